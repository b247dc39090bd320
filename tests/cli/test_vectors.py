"""Sentence-vector commands end to end: embed, whiten, search, classify."""

from __future__ import annotations

import json

import numpy as np

from tests.helpers import uner


def test_embed_whiten_and_search_end_to_end(tmp_path):
    corpus = tmp_path / "corpus.txt"
    lines = ["the cat sat on the mat .", "a dog slept on the rug .", "stocks fell sharply on wall street .",
             "shares dropped as markets slid .", "the patient was given aspirin for the headache ."] * 4
    corpus.write_text("\n".join(lines) + "\n")
    vecs = tmp_path / "v.npy"
    res = uner("embed", str(corpus), "-o", str(vecs), "--pooling", "first-last-mean")
    assert res.returncode == 0, res.stderr
    arr = np.load(vecs)
    assert arr.shape == (20, 384) and np.isfinite(arr).all()
    res = uner("whiten", "fit", str(vecs), "-o", str(tmp_path / "w.npz"), "--k", "8")
    assert res.returncode == 0, res.stderr
    res = uner("whiten", "apply", str(vecs), "-t", str(tmp_path / "w.npz"), "-o", str(tmp_path / "vw.npy"))
    assert res.returncode == 0 and np.load(tmp_path / "vw.npy").shape == (20, 8)
    res = uner("search", "share prices fell on the markets .", "--corpus", str(corpus), "--vectors", str(vecs),
               "--pooling", "first-last-mean", "-k", "2")
    assert res.returncode == 0, res.stderr
    hits = res.stdout.splitlines()[1:3]
    assert all("stocks" in h or "shares" in h for h in hits), hits
    res = uner("embed", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "x.npy"))
    assert res.returncode == 2 and not (tmp_path / "x.npy").exists()


def test_classify_by_nearest_examples(tmp_path):
    examples = tmp_path / "ex.jsonl"
    rows = [("stocks fell sharply on wall street", "finance"), ("shares dropped as markets slid", "finance"),
            ("the bank raised interest rates", "finance"), ("bond yields rose again", "finance"),
            ("the striker scored twice in the final", "sport"), ("the team won the championship", "sport"),
            ("the goalkeeper saved a penalty", "sport"), ("the coach praised his players", "sport")]
    examples.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in rows))
    inp = tmp_path / "in.txt"
    inp.write_text("investors sold shares as the market fell\nthe midfielder scored a late goal\n")
    out = tmp_path / "out.jsonl"
    res = uner("classify", str(inp), "--examples", str(examples), "-o", str(out), "--holdout", "0.25")
    assert res.returncode == 0, res.stderr
    assert "held-out accuracy" in res.stderr
    assert [json.loads(x)["label"] for x in out.read_text().splitlines()] == ["finance", "sport"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x"}\n')
    res = uner("classify", str(inp), "--examples", str(bad))
    assert res.returncode == 2 and f"{bad}:1: missing string field 'label'" in res.stderr
