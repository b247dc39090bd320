"""Input arguments: a folder or a glob names its files in order, and a resumed run's records start per file;
where documents begin; binary files refused."""

from __future__ import annotations

import json

import pytest

from uner.io import InputError, begins_document, read_records
from uner.io.inputs import FileRecords, input_files


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "b" / "c.jsonl").write_text('{"id": "x", "text": "three"}\n\n{bad\n')
    (tmp_path / "b" / "d.txt").write_text("four\n")
    (tmp_path / ".hidden.txt").write_text("never\n")
    return tmp_path


def test_a_folder_or_glob_names_its_files_in_order(folder):
    everything = [str(folder / "a.txt"), str(folder / "b" / "c.jsonl"), str(folder / "b" / "d.txt")]
    assert input_files(str(folder)) == everything
    assert input_files(str(folder / "**" / "*.txt")) == [everything[0], everything[2]]
    assert input_files(str(folder / "a.txt")) == [everything[0]]
    with pytest.raises(InputError, match="no files match"):
        input_files(str(folder / "*.csv"))
    with pytest.raises(InputError, match="no such file"):
        input_files(str(folder / "missing.txt"))


def test_records_of_several_files_and_where_a_resumed_run_starts(folder):
    records = FileRecords.find(str(folder))
    got = [(r.file, r.id, r.text, r.error is not None) for r in records]
    # each file as read alone: a .jsonl's blank line and bad line are records too (one per line), named by the file
    assert got == [("a.txt", "1", "one", False), ("a.txt", "2", "two", False), ("b/c.jsonl", "x", "three", False),
                   ("b/c.jsonl", "2", "", False), ("b/c.jsonl", "3", "", True), ("b/d.txt", "1", "four", False)]
    for skip in range(len(got) + 1):
        later = records.after(skip)
        assert [(r.file, r.id, r.text, r.error is not None) for r in later] == got[skip:]
        rest = [(r.file, r.id, r.text, r.error is not None) for part in later.parts() for r in part]
        assert rest == got[skip:]
    assert [part.files for part in records.after(3).parts()] == [(str(folder / "b" / "c.jsonl"),),
                                                                 (str(folder / "b" / "d.txt"),)]
    with pytest.raises(InputError, match=r"c\.jsonl:3: invalid JSON"):
        list(FileRecords.find(str(folder / "b" / "c.jsonl"), keep_bad=False))


def test_a_glob_names_records_by_its_matches_and_a_single_file_by_nothing(folder):
    glob = str(folder / "**" / "*.txt")
    assert [(r.file, r.text) for r in FileRecords.find(glob)] == [(str(folder / "a.txt"), "one"),
                                                                  (str(folder / "a.txt"), "two"),
                                                                  (str(folder / "b" / "d.txt"), "four")]
    assert {r.file for r in FileRecords.find(str(folder / "a.txt"))} == {None}


def test_a_fingerprint_changes_with_the_files_or_their_content(folder):
    one = FileRecords.find(str(folder / "a.txt")).fingerprint()
    assert one[0]["path"] == str(folder / "a.txt") and one[0]["size"] == 8
    assert FileRecords.find(str(folder)).fingerprint()[0] == one[0]
    (folder / "a.txt").write_text("one\nTwo\n")
    assert FileRecords.find(str(folder / "a.txt")).fingerprint() != one
    assert FileRecords(("-",)).fingerprint() == [{"path": "-"}]


def test_documents_end_at_a_blank_line_a_new_doc_field_or_a_new_file(tmp_path):
    """``uner tag --documents``: a .txt's blank line ends a document; consecutive JSONL records with one 'doc' make
    one, a record without it is its own; each file begins one."""
    (tmp_path / "a.txt").write_text("one\ntwo\n\nthree\n \nfour\n")
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (
        {"doc": 1, "text": "five"}, {"doc": 1, "text": "six"}, {"doc": 2, "text": "seven"}, {"text": "eight"},
        {"text": "nine"}, {"doc": 2, "text": "ten"}, {"doc": 2, "text": "eleven"})))
    before, begins = None, []
    for rec in FileRecords.find(str(tmp_path)):
        begins.append((rec.text, begins_document(rec, before)))
        before = rec
    assert [text for text, starts in begins if starts] == ["one", "three", "four", "five", "seven", "eight", "nine",
                                                           "ten"]


def test_a_binary_file_is_one_error_record_not_a_record_per_line(tmp_path):
    """An executable or an image saved as text (a NUL byte in its first 8 KB): one record saying so, or InputError;
    text in another encoding that holds NUL bytes (UTF-16) is still text. Issue 76: an ELF file was 509 records."""
    elf = tmp_path / "ls.txt"
    elf.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 40 + b"\nsome text\n")
    png = tmp_path / "pic.txt"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    for path in (elf, png):
        [rec] = read_records(str(path), keep_bad=True)
        assert rec.error == f"{path}: a binary file (a NUL character in its first 8,192 bytes), not text: not read"
        with pytest.raises(InputError, match="a binary file"):
            list(read_records(str(path)))
    utf16 = tmp_path / "u16.txt"
    utf16.write_text("Paris\nBerlin\n", encoding="utf-16")
    assert [r.text for r in read_records(str(utf16), encoding="utf-16")] == ["Paris", "Berlin"]


def test_uner_tag_refuses_a_binary_file_and_tags_the_others_of_its_folder(tmp_path):
    """One error record for the binary file (exit 1, the one-line count), the text file beside it tagged; and an
    empty input says so on stderr (exit 0, an empty output)."""
    from typer.testing import CliRunner

    from uner.cli import app

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    (folder / "b.txt").write_text("Barack Obama visited Paris .\n")
    out = tmp_path / "o.jsonl"
    res = CliRunner().invoke(app, ["tag", str(folder), "-o", str(out), "--engine", "student"])
    assert res.exit_code == 1 and res.stderr.endswith("uner: 1 input line(s) had errors (see the 'error' fields)\n")
    first, second = map(json.loads, out.read_text().splitlines())
    assert first["file"] == "a.png" and "a binary file" in first["error"] and first["entities"] == []
    assert second["file"] == "b.txt" and "error" not in second and second["entities"]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    res = CliRunner().invoke(app, ["tag", str(empty), "--engine", "student"])
    assert res.exit_code == 0 and res.stdout == "" and res.stderr == f"uner: {empty}: no lines to tag\n"
