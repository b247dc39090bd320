"""Fuzzing `uner tag` (issue 21): random bytes and unicode, as text or JSONL input, always give one output
record per input line and a clean exit (0, or 1 when some lines have an ``error``), never a traceback; a file with
a NUL in its first 8 KB is binary and gets one error record instead (issue 76)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.helpers import uner
from uner.cli import app

LINE = st.one_of(st.binary(max_size=120), st.text(max_size=120).map(str.encode),
                 st.sampled_from([b"", b"\r", b"\xef\xbb\xbf", b'{"text": "Paris \\ud800"}', b'{"text": 5}',
                                  b'{"id": [1], "text": "Paris is big ."}', b"\x00\x1c\x1d\xe2\x80\xa8 Paris"]))
CONTENT = st.lists(LINE, max_size=6).map(b"\n".join)


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def expected_records(data: bytes) -> int:
    """Input lines as `wc -l` counts them, plus an unterminated last line; one error record for a binary file."""
    if is_binary(data):
        return 1
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def check_output(data: bytes, out: Path, fmt: str) -> None:
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line] if out.exists() else []
    assert len(records) == expected_records(data), (data, records)
    if is_binary(data):
        assert "binary file" in records[0]["error"] and not records[0]["entities"], records
    for n, rec in enumerate(records, 1):
        assert set(rec) in ({"id", "text", "entities"}, {"id", "text", "entities", "error"}), rec
        assert fmt == "jsonl" or rec["id"] == str(n)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=CONTENT, fmt=st.sampled_from(["txt", "jsonl"]))
def test_tag_gives_one_record_per_line_for_any_bytes(tiny, data, fmt):
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = Path(tmp) / f"in.{fmt}", Path(tmp) / "out.jsonl"
        inp.write_bytes(data)
        res = CliRunner().invoke(app, ["tag", str(inp), "-o", str(out), "--model", str(tiny[0]),
                                       "--labels", str(tiny[1]), "--dtype", "float32"])
        assert res.exit_code in (0, 1) and "Traceback" not in res.output, (data, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), (data, res.exception)
        check_output(data, out, fmt)


def test_random_bytes_through_the_console_script(tiny, tmp_path):
    rnd = random.Random(0)
    data = b"\n".join(bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(80))) for _ in range(30))  # text: no NUL
    data += "\nZürich , 東京 and Paris 🙂 .\n".encode()
    inp, out = tmp_path / "in.txt", tmp_path / "out.jsonl"
    inp.write_bytes(data)
    res = uner("tag", str(inp), "-o", str(out), "--model", str(tiny[0]), "--labels", str(tiny[1]))
    assert res.returncode == 1 and "Traceback" not in res.stderr and "had errors" in res.stderr
    check_output(data, out, "txt")
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[-1])["entities"]


# Unicode that real corpora hold: no-break, thin, ideographic and zero-width spaces, line/paragraph separators,
# combining marks, right-to-left and mixed scripts, bidi controls, very long tokens, digits with unit symbols
PIECES = st.sampled_from(["\u00a0", "\u2009", "\u200b", "\u2028", "\u2029", "\u3000", "\ufeff", "e\u0301", "\u0301",
                          "שלום", "مرحبا بالعالم", "\u202eParis\u202c", "Zürich", "東京", "Москва", "x" * 400,
                          "5\u00a0km²", "30\u202f°C", "12 µg/mL", "$5bn", "90\u00a0%", "–", "(714\u00a0–\u00a024", ")",
                          "Paris", "Leicestershire beat Somerset", "President Boris Yeltsin", ",", ".", "Pepin the Short"])
UNICODE_TEXT = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=14).map(lambda xs: "".join(xs))


@pytest.fixture(scope="module")
def engines(tiny):
    from uner.tagger import load_tagger

    teacher = dict(model=str(tiny[0]), labels=tiny[1], device="cpu")
    return {"teacher": load_tagger(**teacher), "student": load_tagger(engine="student"),
            "ensemble": load_tagger([f"{tiny[0]}:{tiny[1]}"], **teacher)}


@pytest.mark.parametrize("engine", ["teacher", "student", "ensemble"])
def test_every_engine_gives_clean_entities_for_unicode_text(engines, engine):
    from uner.io import Record
    from uner.tagger import tag_records

    @settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(texts=st.lists(UNICODE_TEXT, min_size=1, max_size=4))
    def check(texts):
        records = [Record(n, str(n), t, {}) for n, t in enumerate(texts, 1)]
        out = list(tag_records(engines[engine], records, batch_size=3))
        assert [r["id"] for r in out] == [str(n) for n in range(1, len(texts) + 1)]
        for rec in out:
            assert "error" not in rec, rec
            for e in rec["entities"]:
                text = rec["text"][e["start"] : e["end"]]
                assert e["text"] == text and text and not text[0].isspace() and not text[-1].isspace(), (rec, e)
                assert text[0] not in "\u200b\ufeff\u202e\u202c,;:(–" and text[-1] not in "\u200b\ufeff,;:(–", (rec, e)

    check()
