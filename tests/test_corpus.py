"""Streaming corpus readers and source specs."""

from __future__ import annotations

import pytest

from uner.corpus import Source, is_token_file, read_paragraphs


def test_plain_gz_xz_read_the_same(tiny_corpus):
    contents = [list(read_paragraphs(p)) for p in tiny_corpus]
    assert contents[0] == contents[1] == contents[2]
    assert "" in contents[0]  # document breaks are kept
    assert contents[0][0].startswith("paris is the capital of france")


def test_token_files_become_sentences(tmp_path):
    conll = tmp_path / "train.txt"
    conll.write_text("-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP B-PER\n")
    tsv = tmp_path / "train.tsv"
    tsv.write_text("Aspirin\tB-Chemical\nhelps\tO\n\nPain\tB-Disease\n")
    assert is_token_file(conll) and is_token_file(tsv)
    assert [p for p in read_paragraphs(conll) if p] == ["EU rejects", "Peter"]
    assert list(read_paragraphs(tsv)) == ["Aspirin helps", "Pain"]


def test_source_spec(tiny_corpus, tmp_path):
    plain = tiny_corpus[0]
    assert Source.parse(str(plain)) == Source(plain, 1.0)
    assert Source.parse(f"{plain}:2.5") == Source(plain, 2.5)
    with pytest.raises(ValueError, match="weight"):
        Source.parse(f"{plain}:heavy")
    with pytest.raises(ValueError, match="positive"):
        Source.parse(f"{plain}:0")
    with pytest.raises(ValueError, match="no such corpus file"):
        Source.parse(str(tmp_path / "missing.txt"))
