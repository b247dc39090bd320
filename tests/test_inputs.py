"""Input arguments: a folder or a glob names its files in order, and a resumed run's records start per file."""

from __future__ import annotations

import pytest

from uner.io import InputError
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
