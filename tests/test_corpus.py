"""Streaming corpus readers and source specs."""

from __future__ import annotations

import gzip

import pytest

from uner.analysis.evaluate import read_gold
from uner.io.corpus import Source, is_token_file, read_paragraphs, read_token_file


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



def test_gold_and_corpus_read_token_files_alike(tmp_path):
    """One reader for both: the gold reader used to read a -DOCSTART- line after a BOM as a sentence and
    keep a leading BOM in the first token, the corpus reader to miss that file as a token file and cut a
    tab-separated token holding a space to its first word."""
    conll = tmp_path / "gold.txt"
    conll.write_text("\ufeff-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n", encoding="utf-8")
    tsv = tmp_path / "gold.tsv"
    tsv.write_text("\ufeffNew York\tI-LOC \nis\tO\n", encoding="utf-8")
    assert [(s.tokens, s.tags) for s in read_gold(conll)] == [(["EU", "rejects"], ["B-ORG", "O"])]
    assert is_token_file(conll) and list(read_paragraphs(conll)) == ["", "EU rejects"]
    assert [(s.tokens, s.tags) for s in read_gold(tsv)] == [(["New York", "is"], ["B-LOC", "O"])]
    assert list(read_paragraphs(tsv)) == ["New York is"]


def test_token_file_tags_are_required_for_gold_only(tmp_path):
    words = tmp_path / "words.conll.gz"
    with gzip.open(words, "wt", encoding="utf-8") as f:
        f.write("EU\tB-ORG\nrejects\n")
    assert [s.tokens for s in read_token_file(words, tags=False)] == [["EU", "rejects"]]
    assert list(read_paragraphs(words)) == ["EU rejects"]
    with pytest.raises(ValueError, match=r"words.conll.gz:2: expected a token and its tag"):
        list(read_gold(words))


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
