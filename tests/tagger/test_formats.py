"""Output formats: the registry, each writer's output, records that name their file, and resuming a partial
JSONL file."""

from __future__ import annotations

import json

import pytest

from tests.helpers import uner
from uner.spans import load_spacy
from uner.tagger import WRITERS, bio_tags, format_for, resume_point, tag_file
from uner.tagger.formats import Destination
from uner.tagger.partial import claim_partial, run_record

RECORDS = [
    {"id": "1", "text": "Barack Obama <b>visited</b> Paris .", "entities": [
        {"text": "Barack Obama", "start": 0, "end": 12, "type": "PERSON", "subtype": None, "score": 0.5},
        {"text": "Paris", "start": 28, "end": 33, "type": "LOCATION", "subtype": "CITY", "score": 0.7}]},
    {"id": "2", "text": "", "entities": [], "error": "line 2: bad"},
]


def test_format_from_option_then_extension_then_jsonl():
    assert format_for("out.conll") == "conll" and format_for("out.html") == "html"
    assert format_for("out.txt") == "jsonl" and format_for("-") == "jsonl"
    assert format_for("out.conll", "html") == "html"
    assert set(WRITERS) == {"jsonl", "conll", "html"}


def test_unknown_format_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        format_for("out.xml", "xml")
    inp = tmp_path / "in.txt"
    inp.write_text("Paris .\n")
    res = uner("tag", str(inp), "--output-format", "xml")
    assert res.returncode == 2 and res.stderr.strip() == "uner: error: --output-format: unknown format 'xml'"


def test_writers_write_every_record(tmp_path):
    written = {}
    for name, write in WRITERS.items():
        path = tmp_path / f"o.{name}"
        write(iter(RECORDS), Destination(path, flush_every=1, nlp=load_spacy))
        written[name] = path.read_text(encoding="utf-8")
    assert [json.loads(x) for x in written["jsonl"].splitlines()] == RECORDS
    rows = [r.split("\t") for r in written["conll"].split("\n")]
    assert rows[:3] == [["Barack", "B-PERSON"], ["Obama", "I-PERSON"], ["<", "O"]]
    assert ["Paris", "B-LOCATION"] in rows and rows[-1] == [""]  # a blank line after each record
    page = written["html"]
    assert page.startswith("<!DOCTYPE html>") and "&lt;b&gt;visited&lt;/b&gt;" in page and "<b>" not in page
    assert "LOCATION / CITY" in page and "line 2: bad" in page


def test_records_of_a_folder_or_glob_name_their_file_in_every_format(tiny, tmp_path):
    """Issue 40: two files of a folder both give ids 1 and 2; each record says which file it came from (JSONL
    ``file``, a CoNLL comment, an HTML heading), and a single file's output stays as it was."""
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("Paris is big .\nLondon .\n")
    (folder / "sub" / "b.txt").write_text("Tokyo .\nBerlin is far .\n")
    kwargs = {"model": str(tiny[0]), "labels": tiny[1], "device": "cpu"}
    out = {fmt: tmp_path / f"o.{fmt}" for fmt in WRITERS}
    for path in out.values():
        assert tag_file(str(folder), str(path), kwargs).errors == 0
    records = [json.loads(line) for line in out["jsonl"].read_text().splitlines()]
    assert [(r["file"], r["id"], r["text"]) for r in records] == [
        ("a.txt", "1", "Paris is big ."), ("a.txt", "2", "London ."),
        ("sub/b.txt", "1", "Tokyo ."), ("sub/b.txt", "2", "Berlin is far .")]
    assert list(records[0]) == ["file", "id", "text", "entities"] and all(r["entities"] for r in records)
    conll = out["conll"].read_text().split("\n")
    assert [line for line in conll if line.startswith("#")] == ["# file = a.txt", "# file = sub/b.txt"]
    second = conll.index("# file = sub/b.txt")
    assert conll[0] == "# file = a.txt" and conll[second - 1] == "" and conll[second + 1].startswith("Tokyo\t")
    page = out["html"].read_text()
    heads = [page.index(f'<h3 class="file">{name}</h3>') for name in ("a.txt", "sub/b.txt")]
    assert heads[0] < page.index("London") < heads[1] < page.index("Tokyo")
    glob = tmp_path / "g.jsonl"
    assert tag_file(str(folder / "**" / "*.txt"), str(glob), kwargs).errors == 0
    assert [json.loads(line)["file"] for line in glob.read_text().splitlines()] == \
        [str(folder / "a.txt")] * 2 + [str(folder / "sub" / "b.txt")] * 2
    single = tmp_path / "single.jsonl"
    assert tag_file(str(folder / "a.txt"), str(single), kwargs).errors == 0
    assert single.read_text() == "".join(json.dumps({k: v for k, v in r.items() if k != "file"}, ensure_ascii=False)
                                         + "\n" for r in records[:2])


def test_writers_to_stdout_end_with_one_newline(capsys):
    ends = {"jsonl": "}\n", "conll": "O\n\n", "html": "</html>\n\n"}  # the CLI's echo adds a newline
    for name, write in WRITERS.items():
        write(iter(RECORDS[:1]), Destination(None))
        out = capsys.readouterr().out
        assert out.endswith(ends[name]) and not out.endswith("\n" + ends[name]), name


def test_jsonl_appends_after_a_resumed_partial(tmp_path):
    out = tmp_path / "o.jsonl"
    partial = tmp_path / "o.jsonl.partial"
    run = run_record([{"path": "in.txt"}], {"model": None})
    with claim_partial(str(out), resume=False, run=run) as (path, done):
        path.write_text(json.dumps(RECORDS[0]) + "\n" + '{"id": "2", "te')  # killed mid-line
    with claim_partial(str(out), resume=True, run=run) as (path, done):
        assert (path, done) == (partial, 1)
        WRITERS["jsonl"](iter(RECORDS[1:]), Destination(path))
    assert [json.loads(x) for x in partial.read_text().splitlines()] == RECORDS
    with claim_partial(str(out), resume=False) as (path, done):
        assert done == 0 and partial.read_text() == ""  # a fresh run empties a stale partial file
    assert not partial.exists()  # and an empty one goes when the run ends without a result
    with claim_partial("-", resume=True) as claimed:
        assert claimed == (None, 0) and resume_point(tmp_path / "none") == 0


def test_bio_tags_join_tokens_starting_inside_an_entity():
    tokens = [(0, 6), (7, 12), (13, 20), (21, 26)]
    assert bio_tags(tokens, [{"start": 0, "end": 12, "type": "PERSON"}, {"start": 22, "end": 26, "type": "LOC"}]) == \
        ["B-PERSON", "I-PERSON", "O", "B-LOC"]
