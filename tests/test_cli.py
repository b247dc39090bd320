"""End-to-end CLI tests on the shipped default model, through the installed console script."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

UNER = shutil.which("uner") or f"{sys.executable} -m uner.cli"


def uner(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*UNER.split(), *args], input=stdin, capture_output=True, text=True, timeout=300)


def predictions(stdout: str) -> list[list[str]]:
    """Predicted tokens per mask line of `uner fill` output."""
    rows = []
    for line in stdout.splitlines():
        if line.strip().startswith("mask "):
            rows.append(re.findall(r"(\S+) -?\d+\.\d+(?: \[\w+\])?", line.split(":", 1)[1]))
    return rows


def test_fill_capital_probe_on_shipped_model():
    res = uner("fill", "paris is the capital of [MASK] .", "tokyo is the capital of [MASK] .", "-k", "5")
    assert res.returncode == 0, res.stderr
    rows = predictions(res.stdout)
    assert len(rows) == 2 and all(len(r) == 5 for r in rows)
    assert "france" in rows[0]
    assert "japan" in rows[1]


def test_fill_reads_stdin_and_files(tmp_path):
    f = tmp_path / "probes.txt"
    f.write_text("the [MASK] of the river .\n\nshe [MASK] to the [MASK] .\n")
    res = uner("fill", "--file", str(f), "-k", "3")
    assert res.returncode == 0, res.stderr
    assert len(predictions(res.stdout)) == 3  # blank line skipped, two masks in the last text
    res = uner("fill", "-k", "2", stdin="the [MASK] is red .\n")
    assert res.returncode == 0 and len(predictions(res.stdout)) == 1


def test_fill_missing_model_is_a_one_line_error(tmp_path):
    res = uner("fill", "--model", str(tmp_path / "nowhere"), "a [MASK] .")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "not found" in lines[0] and str(tmp_path / "nowhere") in lines[0]


def test_fill_too_long_text_is_reported():
    res = uner("fill", "word " * 600 + "[MASK]")
    assert res.returncode == 2
    assert "more than the model window" in res.stderr


@pytest.mark.parametrize("args", [["pretrain", "x.txt", "-o", "out"]])
def test_pretrain_needs_a_budget(args, tmp_path):
    res = uner(*args)
    assert res.returncode == 2 and "--max-steps or --max-time" in res.stderr


def test_cluster_limit_run_is_reproducible_and_queryable(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        res = uner("cluster", "--limit", "1500", "--out", str(out))
        assert res.returncode == 0, res.stderr
    for name in ("graph.npz", "neighbourhoods.npz", "clusters.yaml", "summary.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    import yaml

    doc = yaml.safe_load((a / "clusters.yaml").read_text())
    first = doc["clusters"][0]
    assert first["members"][0] == first["pivot"] and first["size"] == len(first["members"]) >= 2
    res = uner("neighbors", first["pivot"], "--graph", str(a))
    assert res.returncode == 0, res.stderr
    out_line = next(line for line in res.stdout.splitlines() if line.startswith("out ("))
    assert any(m in out_line for m in first["members"][1:])
    res = uner("neighbors", "zzzz-not-a-term", "--graph", str(a))
    assert res.returncode == 2 and "not in the vocabulary" in res.stderr


def test_embed_whiten_and_search_end_to_end(tmp_path):
    import numpy as np

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
    import json

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
