"""The Ray engine (local Ray, two actors): the same records as the serial engine, bad lines as error records,
and one clear line when Ray is not installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import uner

SAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "sample.txt").read_text().splitlines()
# float32: under bfloat16 a span's scores depend on which other inputs share its model batch, and Ray's
# batches need not hold the same documents as the serial engine's
ARGS = ["--dtype", "float32", "--batch-size", "16"]


def _corpus(path: Path) -> list[str]:
    """200 JSONL records: own ids, some with given spans, one line of bad JSON (line 50)."""
    lines = []
    for n in range(200):
        text = SAMPLE[n % len(SAMPLE)] if n % 7 else f"{SAMPLE[n % len(SAMPLE)]} Record {n} ."
        rec = {"id": f"doc-{n:03d}", "text": text}
        if n % 11 == 0:
            rec["spans"] = [[0, text.index(" ")]]
        lines.append(json.dumps(rec))
    lines[49] = '{"id": "broken", "text": '
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_ray_engine_gives_the_records_of_the_serial_engine(tmp_path):
    pytest.importorskip("ray")
    inp = tmp_path / "in.jsonl"
    _corpus(inp)
    serial, ray = tmp_path / "serial.jsonl", tmp_path / "ray.jsonl"
    done = uner("tag", str(inp), "-o", str(serial), *ARGS)
    res = uner("tag", str(inp), "-o", str(ray), "--engine", "ray", "--num-actors", "2", *ARGS)
    # the bad line is an error record and the job goes on to the end (exit 1 only reports the error, as serial)
    assert (res.returncode, done.returncode) == (1, 1), res.stderr[-2000:]
    assert "1 input line(s) had errors" in res.stderr
    got = [json.loads(line) for line in ray.read_text().splitlines()]
    want = [json.loads(line) for line in serial.read_text().splitlines()]
    assert len(got) == 200 and got == want  # ids, texts, entities (offsets, types, scores), errors, in order
    assert ray.read_bytes() == serial.read_bytes()
    assert [r["id"] for r in got[48:51]] == ["doc-048", "50", "doc-050"]
    assert f"{inp}:50: invalid JSON" in got[49]["error"] and got[49]["entities"] == []
    assert sum(len(r["entities"]) for r in got) > 300
    assert [(e["start"], e["end"]) for e in got[11]["entities"]] == [(0, got[11]["text"].index(" "))]


def test_rows_for_the_cluster_keep_every_field_of_a_record():
    """Records cross to Ray actors as rows of plain columns and come back whole, ``file`` included (issue 40)."""
    from uner.io import Record, batch_records
    from uner.io.distributed import _row

    records = [Record(1, "1", "Paris .", {}, file="a.txt"), Record(3, "x", "", {"id": "x"}, "bad line", "b/c.jsonl"),
               Record(2, "2", "Tokyo .", {})]
    rows = [_row(rec) for rec in records]
    assert batch_records({k: np.array([row[k] for row in rows]) for k in rows[0]}) == records


def test_ray_embed_gives_the_vectors_of_the_serial_engine(tmp_path):
    pytest.importorskip("ray")
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(SAMPLE * 8) + "\n")
    serial, ray = tmp_path / "serial.npy", tmp_path / "ray.npy"
    assert uner("embed", str(inp), "-o", str(serial), "--batch-size", "8").returncode == 0
    res = uner("embed", str(inp), "-o", str(ray), "--engine", "ray", "--num-actors", "2", "--batch-size", "8")
    assert res.returncode == 0, res.stderr[-2000:]
    got, want = np.load(ray), np.load(serial)
    assert got.shape == want.shape == (40, want.shape[1])
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("command", [["tag", "-o", "{out}.jsonl"], ["embed", "-o", "{out}.npy"]])
def test_without_ray_the_engine_fails_with_one_line_saying_what_to_install(tmp_path, command):
    inp = tmp_path / "in.txt"
    inp.write_text(SAMPLE[0] + "\n")
    out = str(tmp_path / "out")
    argv = [command[0], str(inp), *(a.format(out=out) for a in command[1:]), "--engine", "ray"]
    no_ray = "import sys; sys.modules['ray'] = None; from uner.cli import main; sys.argv[0] = 'uner'; main()"
    res = subprocess.run([sys.executable, "-c", no_ray, *argv], capture_output=True, text=True, timeout=300)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == ["uner: error: --engine ray needs Ray, which is not installed: "
                                               "pip install 'uner[ray]'"]
    assert list(tmp_path.iterdir()) == [inp]
