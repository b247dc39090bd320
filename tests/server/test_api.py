"""The annotation server over HTTP, on copies of the shipped labels folder: decisions land in
clusters.yaml exactly, bad requests get a 4xx and change nothing, two tabs and hand edits lose nothing,
the token guards a public address."""

from __future__ import annotations

import copy
import shutil
import threading
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from tests.helpers import uner
from tests.server.conftest import by_id, read_doc, write_graph
from uner.labels import LabelsFolder, dump_clusters
from uner.server import create_app, open_workbench, running


def client(folder: Path, token: str | None = None, **kwargs) -> TestClient:
    return TestClient(create_app(open_workbench(folder, **kwargs), token), base_url="http://127.0.0.1")


def todo_ids(doc: dict) -> list[int]:
    return [e["id"] for e in doc["clusters"] if e.get("status") == "suggested"]


def test_decisions_undo_and_bulk_write_exactly_that_and_validate(small_folder):
    before = by_id(read_doc(small_folder))
    c = client(small_folder)
    a, b, d, e = todo_ids(read_doc(small_folder))[:4]
    assert c.post(f"/api/clusters/{a}/decision", json={"rev": 0, "label": "LOCATION", "status": "confirmed"}).status_code == 200
    assert c.post(f"/api/clusters/{b}/decision", json={"rev": 0, "label": None, "status": "rejected",
                                                        "note": "mixed: names and places"}).status_code == 200
    r = c.post("/api/bulk", json={"revs": {str(d): 0, str(e): 0}, "label": "PERSON"})
    assert r.status_code == 200 and r.json()["counts"]["confirmed"] == sum(
        x.get("status") == "confirmed" for x in before.values()) + 3
    undone = c.post("/api/undo", json={}).json()["undone"]
    assert sorted(undone) == sorted([d, e])  # the bulk step is one undo step
    f, g = todo_ids(read_doc(small_folder))[4:6]
    r = c.post("/api/decisions", json={"since": 0, "decisions": [  # what the page sends: one request, two steps
        {"id": f, "rev": 0, "label": "OTHER", "status": "confirmed", "note": "x"},
        {"id": g, "rev": 0, "label": "OTHER", "status": "confirmed", "note": "y"}]})
    assert {x["id"] for x in r.json()["changed"]} == {a, b, d, e, f, g}
    assert c.post("/api/undo", json={}).json()["undone"] == [g]
    assert c.post("/api/undo", json={}).json()["undone"] == [f]
    after = by_id(read_doc(small_folder))
    expected = copy.deepcopy(before)
    top = max(before[a]["suggested"], key=before[a]["suggested"].get) if before[a].get("suggested") else None
    expected[a].update(label="LOCATION", status="confirmed", note=(
        "reviewed: accepted suggestion" if top == "LOCATION" else
        f"reviewed: corrected from suggestion {top}" if top else "reviewed: labelled (no suggestion)"))
    expected[b].update(label=None, status="rejected", note="mixed: names and places")
    assert after == expected
    LabelsFolder(small_folder).load_review()  # what `uner labels validate` checks: no LabelError
    history = c.get("/api/state").json()["history"]
    assert [h["clusters"][0][0] for h in history] == [b, a]


def test_bad_requests_get_4xx_and_change_nothing(small_folder):
    c = client(small_folder)
    files = {p.relative_to(small_folder): p.read_bytes() for p in small_folder.rglob("*") if p.is_file()}
    cid, other = todo_ids(read_doc(small_folder))[:2]
    cases = [
        ("/api/clusters/999999/decision", {"rev": 0, "label": "PERSON", "status": "confirmed"}, 404, "unknown cluster id"),
        (f"/api/clusters/{cid}/decision", {"rev": 0, "label": "PERSONN", "status": "confirmed"}, 400, "unknown label"),
        (f"/api/clusters/{cid}/decision", {"rev": 0, "label": "PERSON", "status": "done"}, 400, "status must be"),
        (f"/api/clusters/{cid}/decision", {"rev": 0, "label": None, "status": "confirmed"}, 400, "needs a label"),
        (f"/api/clusters/{cid}/decision", {"rev": 7, "label": "PERSON", "status": "confirmed"}, 409, "changed elsewhere"),
        (f"/api/clusters/{cid}/decision", {"label": "PERSON", "status": "confirmed"}, 400, "rev"),
        (f"/api/clusters/{cid}/decision", {"rev": 0, "label": 5, "status": "confirmed"}, 400, "label must be"),
        ("/api/bulk", {"revs": {str(cid): 0, "999999": 0}, "label": "PERSON"}, 404, "unknown cluster id"),
        ("/api/bulk", {"revs": {str(cid): 0}, "label": "NOPE"}, 400, "unknown label"),
        ("/api/terms", {"term": "notaword123", "labels": ["PERSON"]}, 400, "not in the model's vocabulary"),
        ("/api/terms", {"term": "maiden", "labels": ["NOPE"]}, 400, "unknown label"),
        ("/api/undo", {}, 409, "nothing to undo"),
        ("/api/decisions", {"decisions": [{"id": cid, "rev": 0, "label": "PERSON", "status": "confirmed"},
                                          {"id": other, "rev": 0, "label": "NOPE", "status": "confirmed"}]},
         400, "unknown label"),  # all or none: the valid first decision is not applied either
        ("/api/decisions", {"decisions": []}, 400, "list of 1 to"),
        (f"/api/clusters/{cid}/decision", {"rev": 0, "label": "PERSON", "status": "confirmed", "since": "x"},
         400, "since must be"),
    ]
    for path, body, status, message in cases:
        r = c.post(path, json=body)
        assert (r.status_code, message in r.json()["error"]) == (status, True), (path, body, r.text)
    assert r.json()["id"] is None and c.post("/api/decisions", json=cases[-3][1]).json()["id"] == other
    assert c.post(f"/api/clusters/{cid}/decision", content=b"{not json", headers={"content-type": "application/json"}).status_code == 400
    assert c.post(f"/api/clusters/{cid}/decision", content=b"rev=0", headers={"content-type": "text/plain"}).status_code == 415
    assert c.post(f"/api/clusters/{cid}/decision", json=[1, 2]).status_code == 400
    assert c.get("/api/clusters/abc").status_code == 400
    assert {p.relative_to(small_folder): p.read_bytes() for p in small_folder.rglob("*") if p.is_file()} == files


def test_two_tabs_lose_no_decision(small_folder):
    """Ten tabs decide ten clusters at once: all ten are saved. Two tabs decide one cluster from the
    same view: the first wins, the second is told (409) and nothing is overwritten unseen."""
    wb = open_workbench(small_folder)
    ids = todo_ids(read_doc(small_folder))[:10]
    with running(create_app(wb)) as base:
        codes = {}

        def tab(cid: int, label: str) -> None:
            r = httpx.post(f"{base}api/clusters/{cid}/decision", json={"rev": 0, "label": label, "status": "confirmed"})
            codes[(cid, label)] = r.status_code

        threads = [threading.Thread(target=tab, args=(cid, "PERSON")) for cid in ids]
        threads += [threading.Thread(target=tab, args=(ids[0], "LOCATION"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    on_disk = by_id(read_doc(small_folder))
    assert all(on_disk[cid]["status"] == "confirmed" for cid in ids)
    assert all(on_disk[cid]["label"] == "PERSON" for cid in ids[1:])
    first = on_disk[ids[0]]["label"]  # whichever tab came first; the other got 409
    loser = "LOCATION" if first == "PERSON" else "PERSON"
    assert codes[(ids[0], first)] == 200 and codes[(ids[0], loser)] == 409
    assert sum(code == 200 for code in codes.values()) == 10


def test_hand_edit_of_the_file_is_merged_not_overwritten(small_folder):
    c = client(small_folder)
    a, b, d = todo_ids(read_doc(small_folder))[:3]
    assert c.post(f"/api/clusters/{a}/decision", json={"rev": 0, "label": "PERSON", "status": "confirmed"}).status_code == 200
    doc = read_doc(small_folder)  # someone edits clusters.yaml by hand meanwhile
    by_id(doc)[b].update(label="LOCATION", status="confirmed", note="by hand")
    dump_clusters(small_folder / "clusters.yaml", doc)
    r = c.post(f"/api/clusters/{b}/decision", json={"rev": 0, "label": "OTHER", "status": "confirmed"})
    assert r.status_code == 409 and "outside uner annotate" in r.json()["error"]
    assert c.post(f"/api/clusters/{d}/decision", json={"rev": 0, "label": "OTHER", "status": "confirmed"}).status_code == 200
    on_disk = by_id(read_doc(small_folder))
    assert (on_disk[a]["label"], on_disk[b]["label"], on_disk[b]["note"], on_disk[d]["label"]) == \
        ("PERSON", "LOCATION", "by hand", "OTHER")
    changed = {x["id"]: x for x in c.get("/api/state?since=0").json()["changed"]}
    assert changed[b]["label"] == ["LOCATION"]  # the page learns of the hand edit


def test_token_and_host_guard(small_folder):
    c = client(small_folder, token="s3cret")
    assert c.get("/api/boot").status_code == 403
    assert c.get("/api/boot", headers={"x-uner-token": "wrong"}).status_code == 403
    assert c.get("/api/boot", headers={"x-uner-token": "s3cret"}).status_code == 200
    page = c.get("/?token=s3cret")
    assert page.status_code == 200 and "uner_token" in page.headers["set-cookie"]
    assert c.get("/static/app.js").status_code == 200  # the cookie now carries the token
    open_c = client(small_folder)
    assert open_c.get("/api/boot", headers={"host": "evil.example:8000"}).status_code == 403
    assert open_c.post("/api/undo", json={}, headers={"origin": "http://evil.example"}).status_code == 403
    assert open_c.get("/api/state").status_code == 200


def test_cli_needs_a_token_off_loopback(small_folder):
    r = uner("annotate", str(small_folder), "--host", "0.0.0.0", "--port", "0")
    assert r.returncode == 2 and "--token" in r.stderr and not r.stdout


def test_term_labels_edit_terms_tsv_in_place(small_folder):
    c = client(small_folder)
    tsv = small_folder / "terms.tsv"
    original = tsv.read_text().splitlines()
    assert c.post("/api/terms", json={"term": "maiden", "labels": ["PERSON"]}).json()["labels"] == ["PERSON"]
    assert c.post("/api/terms", json={"term": "president", "labels": ["ORGANIZATION", "PERSON"]}).status_code == 200
    lines = tsv.read_text().splitlines()
    assert lines[:3] == original[:3]  # comments kept
    assert lines.count("president\tORGANIZATION/PERSON") == 1 and lines[-1] == "maiden\tPERSON"
    folder = LabelsFolder(small_folder)
    assert folder.load_terms(folder.load_types())["maiden"] == {"PERSON": 1}
    c.post("/api/terms", json={"term": "maiden", "labels": []})
    assert tsv.read_text().splitlines() == [x if not x.startswith("president\t") else "president\tORGANIZATION/PERSON"
                                            for x in original]


def test_detail_shows_neighbours_examples_and_evidence(small_folder, tmp_path):
    doc = read_doc(small_folder)
    conflicts = [e for e in doc["clusters"] if str(e.get("note", "")).startswith("conflict:")]
    conflict, term = conflicts[0], conflicts[0]["members"][0]
    write_graph(small_folder, {m for e in conflicts for m in [e["pivot"], *e["members"][:5]]})
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(f"Nothing here.\nYesterday the {term} was seen in the old town near the river.\n")
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text(f"{term}\tPERSON\n")
    c = client(small_folder, seeds=[seeds], corpus=corpus)
    boot = c.get("/api/boot").json()
    assert boot["graph"] and boot["corpus"] and boot["seeds"] and len(boot["clusters"]) == len(doc["clusters"])
    d = c.get(f"/api/clusters/{conflict['id']}").json()
    assert d["status"] == "conflict" and sorted(d["members"]) == sorted(conflict["members"])
    assert d["examples"] == [{"term": term, "text": f"Yesterday the {term} was seen in the old town near the river."}]
    assert d["evidence"]["PERSON"] == [term]
    labelled = by_id(doc)
    neighbours = {e["id"]: c.get(f"/api/clusters/{e['id']}").json()["neighbours"] for e in conflicts}
    assert sum(map(bool, neighbours.values())) >= 3  # of this 80-cluster cut, only some neighbours remain
    for cid, found in neighbours.items():
        for n in found:
            assert n["id"] != cid and n["pivot"] == labelled[n["id"]]["pivot"]
            assert n["label"] == ([labelled[n["id"]]["label"]] if labelled[n["id"]].get("label") else [])
            assert all(t in labelled[n["id"]]["members"] for t, _ in n["terms"])


def test_compile_button_writes_the_label_table(tiny_labels):
    """The button saves, then compiles as `uner labels compile` does (a tiny real model: the shipped one
    takes a minute); the confirmed cluster's terms carry its label in the new table."""
    c = client(tiny_labels)
    assert not (tiny_labels / "label_table.npz").exists()
    r = c.post("/api/compile", json={})
    assert r.status_code == 200 and r.json()["message"].startswith("1 confirmed clusters, 0 seed terms")
    folder = LabelsFolder(tiny_labels)
    table, vocab = folder.load_table(), folder.load_review().vocab
    own = table.direct_dense()
    for term in ("paris", "london", "tokyo"):
        assert table.labels[int(own[vocab.index(term)].argmax())] == "LOCATION"


@pytest.fixture()
def tiny_labels(tiny, tmp_path):
    """A labels folder over the tiny test model, with the two-cluster review of the labels tests."""
    from tests.labels.data import GOOD, TYPES

    folder = tmp_path / "tiny-labels"
    folder.mkdir()
    shutil.copy(TYPES, folder / "types.yaml")
    (folder / "clusters.yaml").write_text(GOOD.format(model=tiny[0]))
    return folder
