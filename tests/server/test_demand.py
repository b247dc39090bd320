"""The queue by what the corpus needs (``descriptors.jsonl`` of `uner adapt`): a cluster's demand is the number of
corpus spans with one of its members among their descriptors; and the page's "new type" action."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from starlette.testclient import TestClient

from tests.server.conftest import read_doc
from uner.io import InputError
from uner.server import create_app, open_workbench
from uner.server.demand import Demand


def write_descriptors(path: Path, *sentences: list[list[str]]) -> Path:
    path.write_text("".join(json.dumps({"sentence": i, "spans": [{"text": "x", "type": None, "terms": terms}
                                                                  for terms in spans]}) + "\n"
                            for i, spans in enumerate(sentences)), encoding="utf-8")
    return path


def test_a_clusters_demand_counts_each_depending_span_once(tmp_path):
    clusters = [{"id": 1, "members": ["album", "record"]}, {"id": 2, "members": ["band"]}, {"id": 3, "members": ["x"]}]
    path = write_descriptors(tmp_path / "descriptors.jsonl",
                             [["album", "record", "song"], ["band", "group"]], [["album"], ["song"]])
    demand = Demand.read(path, clusters)
    assert demand.spans == 4
    # two members among one span's descriptors count that span once
    assert [demand.summary(c)["spans"] for c in (1, 2, 3)] == [2, 1, 0]
    assert demand.descriptors(["record", "album", "x"]) == [["album", 2], ["record", 1]]
    assert demand.words(2) == [("album", 2), ("song", 2)] and demand.examples["album"] == ["x"]


def test_a_bad_descriptors_line_is_named(tmp_path):
    path = tmp_path / "descriptors.jsonl"
    path.write_text('{"sentence": 0, "spans": []}\n{"sentence": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"descriptors.jsonl:2: not a line of descriptors.jsonl"):
        Demand.read(path, [])


def test_the_page_sorts_by_demand_and_adds_a_new_type(small_folder):
    doc = read_doc(small_folder)
    owners: dict[str, int] = {}
    for e in doc["clusters"]:
        for m in e["members"]:
            owners[m] = owners.get(m, 0) + 1
    first, second = [e for e in doc["clusters"] if sum(owners[m] == 1 for m in e["members"]) >= 2][:2]
    a, b = [m for m in first["members"] if owners[m] == 1][:2]
    c_ = next(m for m in second["members"] if owners[m] == 1)  # (members of one cluster only)
    write_descriptors(small_folder / "descriptors.jsonl", [[a], [b, "zzz"]], [[c_]])
    c = TestClient(create_app(open_workbench(small_folder)), base_url="http://127.0.0.1")
    boot = c.get("/api/boot").json()
    assert boot["demand"] == 3
    spans = {x["id"]: x["spans"] for x in boot["clusters"]}
    assert spans[first["id"]] == 2 and spans[second["id"]] == 1 and sum(spans.values()) == 3
    assert c.get(f"/api/clusters/{first['id']}").json()["descriptors"][0][1] == 1
    # the words view: each descriptor word with its spans, its own labels, its clusters' labels and examples
    assert c.post("/api/terms", json={"term": a, "labels": ["PERSON"]}).status_code == 200
    words = {w["term"]: w for w in c.get("/api/words").json()["words"]}
    assert set(words) == {a, b, c_, "zzz"} and words[a]["spans"] == 1 and words[a]["own"] == ["PERSON"]
    assert words[b]["own"] is None and words[b]["examples"] == ["x"]
    assert words[b]["clusters"] == ({first["label"]: 1} if first.get("status") == "confirmed" and first.get("label") else {})

    r = c.post("/api/types", json={"name": "album", "parent": "ENT", "description": "Albums."})
    assert r.status_code == 200 and {"name": "ALBUM", "parent": "ENT", "kind": "subtype",
                                     "description": "Albums."} in r.json()["types"]
    types = yaml.safe_load((small_folder / "types.yaml").read_text(encoding="utf-8"))["types"]
    assert types["ENT"]["subtypes"]["ALBUM"] == "Albums."
    # the new type is a label at once: a decision with it is saved
    assert c.post(f"/api/clusters/{second['id']}/decision",
                  json={"rev": 0, "label": "ALBUM", "status": "confirmed"}).status_code == 200
    assert {e["id"]: e for e in read_doc(small_folder)["clusters"]}[second["id"]]["label"] == "ALBUM"
    # a clash, an unknown parent or a bad name is refused and changes nothing
    before = (small_folder / "types.yaml").read_bytes()
    for body, message in (({"name": "PERSON", "parent": "ENT"}, "already a type"),
                          ({"name": "SINGLE", "parent": "NOPE"}, "unknown parent 'NOPE'"),
                          ({"name": "9 lives"}, "a type name is letters")):
        r = c.post("/api/types", json=body)
        assert r.status_code == 400 and message in r.json()["error"], r.json()
    r = c.post("/api/types")  # no body at all reads as an empty object: the same one-line refusal, not a 415
    assert r.status_code == 400 and "name, parent and description must be text" in r.json()["error"]
    assert (small_folder / "types.yaml").read_bytes() == before
