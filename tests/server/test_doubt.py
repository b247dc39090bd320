"""`uner annotate --records`: tagged entities linked to the clusters their words are members of, each cluster's
doubt (the sum of 1 - score over them) for the queue's 'least sure first', the least sure entities in a cluster's
details, and a bad records file told as one line naming FILE:LINE (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from tests.helpers import uner
from tests.server.conftest import read_doc, touches
from uner.io import InputError
from uner.server import create_app, open_workbench
from uner.server.doubt import Doubt


def write_records(path: Path, *records: tuple[str, list[tuple[str, str, float]]]) -> str:
    """JSONL records as `uner tag` writes them: the text, and entities (text, type, score) with their offsets."""
    lines = []
    for n, (text, entities) in enumerate(records, 1):
        ents = [{"text": t, "start": text.index(t), "end": text.index(t) + len(t), "type": typ, "subtype": None,
                 "score": score} for t, typ, score in entities]
        lines.append(json.dumps({"id": str(n), "text": text, "entities": ents}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_doubt_sums_one_minus_score_over_the_entities_whose_words_are_members(tmp_path):
    clusters = [{"id": 1, "members": ["paris", "london"]}, {"id": 2, "members": ["united", "states"]},
                {"id": 3, "members": ["Kingdom", "rome"]}, {"id": 4, "members": ["cafes"]}]
    a = write_records(tmp_path / "a.jsonl",
                      ("It rained. Then PARIS-London trains stopped! Nobody cared.",
                       [("PARIS-London", "LOCATION", 0.5)]),
                      ("Parisian cafes face the United Kingdom.",
                       [("Parisian", "NORP", 0.1), ("United Kingdom", "LOCATION", 0.2)]))
    b = write_records(tmp_path / "b.jsonl", ("Paris again.", [("Paris", "LOCATION", 0.9)]), ("Nothing.", []))
    doubt = Doubt.read([a, b], clusters)
    assert doubt.entities == 4
    # two words of one cluster count once; an entity touches each of its words' clusters; whole words, any case
    assert [doubt.summary(c) for c in (1, 2, 3, 4)] == [{"doubt": 0.6, "tagged": 2}, {"doubt": 0.8, "tagged": 1},
                                                        {"doubt": 0.8, "tagged": 1}, {"doubt": 0, "tagged": 0}]
    assert doubt.examples(1) == [
        {"text": "PARIS-London", "type": "LOCATION", "score": 0.5, "snippet": "Then PARIS-London trains stopped!",
         "span": [5, 17]},
        {"text": "Paris", "type": "LOCATION", "score": 0.9, "snippet": "Paris again.", "span": [0, 5]}]
    assert [e["text"] for e in Doubt.read([b, a], clusters, keep=1).examples(1)] == ["PARIS-London"]
    assert doubt.examples(4) == []


GOOD = {"id": "1", "text": "Paris is big.", "entities": [{"text": "Paris", "start": 0, "end": 5, "type": "LOCATION",
                                                          "subtype": None, "score": 0.4}]}
BAD = {
    "not JSON": ("{oops", "2: invalid JSON"),
    "no text": ('{"entities": []}', "2: expected an object with a string field 'text'"),
    "no entities": ('{"id": "2", "text": "Paris"}', "2: no 'entities' list"),
    "no score": (json.dumps({**GOOD, "entities": [{**GOOD["entities"][0], "score": None}]}),
                 "2: entity 'Paris' has no score in 0-1 (score None)"),
    "offsets": (json.dumps({**GOOD, "entities": [{**GOOD["entities"][0], "end": 99}]}),
                "2: entity 'Paris' has no 'start'/'end' offsets"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_record_is_named_by_file_and_line(tmp_path, case):
    path = tmp_path / "tagged.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + BAD[case][0] + "\n")
    with pytest.raises(InputError) as err:
        Doubt.read([str(path)], [{"id": 1, "members": ["paris"]}])
    assert str(err.value).startswith(f"{path}:{BAD[case][1]}")


def test_cli_tells_a_bad_records_file_in_one_line(small_folder, tmp_path):
    """A glob of two files, the second bad (after a blank line): one line naming it and the line, exit 2, no
    server; a missing file is told before the labels load."""
    (tmp_path / "a.jsonl").write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(GOOD) + "\n\n" + BAD["no score"][0] + "\n")
    res = uner("annotate", str(small_folder), "--port", "0", "--records", str(tmp_path / "*.jsonl"))
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr.splitlines() == [f"uner: error: {tmp_path / 'b.jsonl'}:3: entity 'Paris' has no score in 0-1 "
                                       "(score None); tag it again"]
    missing = tmp_path / "missing.jsonl"
    res = uner("annotate", str(small_folder), "--port", "0", "--records", str(tmp_path / "a.jsonl"),
               "--records", str(missing))
    assert (res.returncode, res.stderr.splitlines()) == (2, [f"uner: error: {missing}: no such file"])


def test_boot_and_detail_carry_the_doubt(small_folder, tmp_path):
    todo = [e for e in read_doc(small_folder)["clusters"] if e.get("status") == "suggested"]
    a = todo[0]
    b = next(e for e in todo[1:] if a["pivot"] not in e["members"] and e["pivot"] not in a["members"])
    x, y = a["pivot"], b["pivot"]
    records = write_records(tmp_path / "t.jsonl", (f"A {x} and a {y}.", [(x, "PERSON", 0.1), (y, "LOCATION", 0.6)]),
                            (f"Then {y}.", [(y, "LOCATION", 0.7)]))
    c = TestClient(create_app(open_workbench(small_folder, records=[records])), base_url="http://127.0.0.1")
    boot = c.get("/api/boot").json()
    assert boot["records"] is True
    entities = [{"text": x, "score": 0.1}, {"text": y, "score": 0.6}, {"text": y, "score": 0.7}]
    for row in boot["clusters"]:  # every cluster holding one of the two words, and only those
        touching = [e for e in entities if touches(e, row)]
        assert (row["doubt"], row["tagged"]) == (round(sum(1 - e["score"] for e in touching), 3), len(touching))
    least = c.get(f"/api/clusters/{b['id']}").json()["least_sure"]
    assert [(e["text"], e["type"], e["score"], e["snippet"]) for e in least] == [
        (y, "LOCATION", 0.6, f"A {x} and a {y}."), (y, "LOCATION", 0.7, f"Then {y}.")]
    plain = TestClient(create_app(open_workbench(small_folder)), base_url="http://127.0.0.1")
    boot = plain.get("/api/boot").json()
    assert boot["records"] is False and "doubt" not in boot["clusters"][0]
    assert plain.get(f"/api/clusters/{a['id']}").json()["least_sure"] == []


def test_the_shipped_students_records(records_server):
    """Records of the real student (examples/sample.txt): every entity with a calibrated score is linked to the
    clusters holding one of its words, and a cluster's details list the least sure of them first."""
    base, folder, records = records_server
    entities = [e for line in records.read_text(encoding="utf-8").splitlines() for e in json.loads(line)["entities"]]
    assert len(entities) >= 5 and all(0 < e["score"] < 1 for e in entities)
    boot = httpx.get(f"{base}api/boot").json()
    clusters = {e["id"]: e for e in read_doc(folder)["clusters"]}
    for row in boot["clusters"]:
        touching = sorted((e for e in entities if touches(e, clusters[row["id"]])), key=lambda e: e["score"])
        assert (row["doubt"], row["tagged"]) == (round(sum(1 - e["score"] for e in touching), 3), len(touching))
    top = max(boot["clusters"], key=lambda c: c["doubt"])
    least = httpx.get(f"{base}api/clusters/{top['id']}").json()["least_sure"]
    touching = sorted((e for e in entities if touches(e, clusters[top["id"]])), key=lambda e: e["score"])
    assert top["tagged"] >= 1
    assert [(e["text"], e["score"]) for e in least] == [(e["text"], e["score"]) for e in touching[:5]]
