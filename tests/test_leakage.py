"""No gold split's text in the unlabelled corpus (benchmarks/leakage.py): found when planted, absent in ../shared."""

from __future__ import annotations

import gzip

import pytest

from benchmarks.leakage import KNOWN, LIMIT, SHARED, gold_splits, known_reason, leakage

DEV = ("Mutations in the BRCA1 gene were found in 12 of the 40 families with early onset breast cancer .\n"
       "Short one .\n")


def _gold(path, text: str):
    path.write_text("".join(f"{tok}\tO\n" if tok != "\n" else "\n"
                            for line in text.splitlines() for tok in [*line.split(), "\n"]), encoding="utf-8")
    return path


def test_a_dev_sentence_planted_in_a_corpus_is_found(tmp_path):
    gold = _gold(tmp_path / "devel.tsv", DEV)
    clean = tmp_path / "clean.txt.gz"
    clean.write_bytes(gzip.compress(b"An unrelated paragraph about BRCA1 and breast cancer in families.\n"))
    planted = tmp_path / "planted.txt.gz"  # (other spacing and case, inside a longer paragraph)
    planted.write_bytes(gzip.compress(b"Background. mutations in the BRCA1 gene were found in 12 of the 40 "
                                      b"families with early-onset breast cancer. Methods follow.\n"))
    assert leakage([gold], [clean]) == {gold: (0, 1)}  # (the short sentence is not counted)
    assert leakage([gold], [clean, planted]) == {gold: (1, 1)}


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="needs ../shared/data (the corpus and gold splits)")
def test_no_gold_split_of_shared_is_in_the_corpus():
    corpus = sorted(p for p in (SHARED / "corpus").iterdir() if p.name != "MANIFEST.tsv")
    splits = gold_splits()
    assert any("jnlpba" in s.as_posix() for s in splits) and len(corpus) > 5
    over = {s.relative_to(SHARED).as_posix(): f"{hit}/{total}" for s, (hit, total) in leakage(splits, corpus).items()
            if total and hit / total > LIMIT and known_reason(s) is None}
    assert not over, f"gold sentences found verbatim in the corpus (list the split in KNOWN with why): {over}"
    assert all(reason for reason in KNOWN.values())
