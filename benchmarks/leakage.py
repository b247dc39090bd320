"""Leakage check (issue 76): how many sentences of each gold split in ../shared occur verbatim in the unlabelled
corpus files uner trains models and builds tables on (../shared/data/corpus).

A sentence counts when it has more than ``MIN_TOKENS`` tokens and its word sequence (lower-cased ``\\w+`` runs, so
tokenisation and spacing do not matter) appears inside one corpus paragraph. Every split must stay at or under
``LIMIT`` unless ``KNOWN`` lists it with the reason its text recurs (tests/test_leakage.py runs it on ../shared).

    python -m benchmarks.leakage                    # every split against every corpus file, a table
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from uner.analysis.evaluate import read_gold
from uner.io import read_paragraphs

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MIN_TOKENS = 10  # shorter sentences ("Results were similar .") recur by chance
LIMIT = 0.01  # the share of a split's sentences allowed in the corpus
KEY = 8  # words of a sentence's opening that index it
WORD = re.compile(r"\w+")
# splits whose text is known to recur in the corpus files, with the reason (path fragment -> why)
KNOWN = {"crossner/": "CrossNER's sentences are Wikipedia's, and the corpus holds a Wikipedia sample: an "
                      "encyclopedia's sentences recur in any sample of it (as in every pretrained model's data)"}


def words(text: str) -> tuple[str, ...]:
    """The word sequence a sentence is compared by."""
    return tuple(WORD.findall(text.lower()))


def gold_splits(root: Path = SHARED / "ner") -> list[Path]:
    """Every gold file under ``root``."""
    return sorted(p for p in root.rglob("*") if p.suffix in (".txt", ".tsv", ".conll") and p.is_file())


class Sentences:
    """Gold sentences indexed by their first ``KEY`` words, to find them inside corpus paragraphs in one pass."""

    def __init__(self, sentences: Iterable[tuple[str, ...]]) -> None:
        self.by_key: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        for sent in sentences:
            if len(sent) > MIN_TOKENS:
                self.by_key.setdefault(sent[:KEY], []).append(sent)
        self.total = sum(len(v) for v in self.by_key.values())

    def found_in(self, paragraphs: Iterable[str]) -> set[tuple[str, ...]]:
        """The sentences that occur verbatim (as word sequences) in any of ``paragraphs``."""
        found = set()
        for para in paragraphs:
            toks = words(para)
            for i, key in enumerate(zip(*(toks[j:] for j in range(KEY)))):
                for sent in self.by_key.get(key, ()):
                    if toks[i : i + len(sent)] == sent:
                        found.add(sent)
        return found


def split_sentences(path: Path) -> Iterator[tuple[str, ...]]:
    """A gold file's sentences as word sequences."""
    for sent in read_gold(path):
        yield words(" ".join(sent.tokens))


def known_reason(path: Path) -> str | None:
    """Why ``path``'s text may recur in the corpus, when it is a known case."""
    return next((why for fragment, why in KNOWN.items() if fragment in path.as_posix()), None)


def leakage(splits: list[Path], corpus_files: list[Path]) -> dict[Path, tuple[int, int]]:
    """Per split: (its sentences found in the corpus files, its sentences counted)."""
    index = {split: Sentences(split_sentences(split)) for split in splits}
    merged = Sentences(s for idx in index.values() for group in idx.by_key.values() for s in group)
    found: set[tuple[str, ...]] = set()
    for path in corpus_files:
        found |= merged.found_in(read_paragraphs(path))
    return {split: (sum(s in found for group in idx.by_key.values() for s in group), idx.total)
            for split, idx in index.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    parser.add_argument("--gold", type=Path, default=SHARED / "ner")
    args = parser.parse_args()
    files = sorted(p for p in args.corpus.iterdir() if p.name != "MANIFEST.tsv" and p.is_file())
    for split, (hit, total) in leakage(gold_splits(args.gold), files).items():
        share = hit / total if total else 0.0
        flag = "known: " + known_reason(split)[:40] if known_reason(split) else ("OVER" if share > LIMIT else "ok")
        print(f"{split.relative_to(args.gold)!s:<32} {hit:>6} / {total:<6} {share:7.2%}  {flag}", flush=True)


if __name__ == "__main__":
    main()
