"""Streaming text readers for pretraining and statistics.

Corpus files hold one paragraph per line; an empty line separates documents
where the source knows them. ``.gz`` and ``.xz`` files are decompressed on the
fly. Token-per-line NER files (CoNLL-2003, ``token<TAB>tag``) are read as text
only: each sentence becomes one paragraph and the labels are dropped.

``read_token_file`` is the one reader of token-per-line files: the corpus readers here and the
gold reader of ``uner.analysis.evaluate`` both use it.
"""

from __future__ import annotations

import gzip
import lzma
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

TOKEN_FILE_SUFFIXES = (".conll", ".tsv", ".iob", ".bio")


def open_text(path: str | Path, encoding: str = "utf-8", errors: str = "replace",
              newline: str | None = None) -> IO[str]:
    """Open a plain, gzip or xz text file for reading (``errors`` and ``newline`` as for ``open``)."""
    p = str(path)
    opener = gzip.open if p.endswith(".gz") else lzma.open if p.endswith(".xz") else open
    return opener(p, "rt", encoding=encoding, errors=errors, newline=newline)


def is_token_file(path: str | Path) -> bool:
    """True for token-per-line NER files (by suffix, or a ``-DOCSTART-`` first line)."""
    name = str(path)
    for comp in (".gz", ".xz"):
        if name.endswith(comp):
            name = name[: -len(comp)]
    if name.endswith(TOKEN_FILE_SUFFIXES):
        return True
    with open_text(path) as f:
        for line in f:
            line = line.strip().strip("\ufeff")
            if line:
                return line.startswith("-DOCSTART-")
    return False


@dataclass
class Sentence:
    """A sentence of a token-per-line file: its tokens and their tags as written (none when read without)."""

    tokens: list[str]
    tags: list[str]


def read_token_file(path: str | Path, tags: bool = True) -> Iterator[Sentence]:
    """Sentences of a token-per-line NER file: CoNLL-2003 (``word POS chunk NER``, whitespace-separated) or
    ``token<TAB>tag`` (tab-separated when a line has a tab, so a token may hold spaces); plain, gzip or xz.
    The token is a line's first column, the tag its last. Blank lines (BOM-only ones too: WNUT-17 has them)
    end a sentence; a ``-DOCSTART-`` line (even after a BOM) yields an empty Sentence, a document boundary.
    ``tags=False``: tokens only, and a line may hold the token alone; else ValueError naming PATH:LINE for a line
    whose last column is not an IOB tag (O, B-TYPE, I-TYPE)."""
    tokens: list[str] = []
    found: list[str] = []
    with open_text(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip().strip("\ufeff")
            if not line or line.startswith("-DOCSTART-"):
                if tokens:
                    yield Sentence(tokens, found)
                    tokens, found = [], []
                if line:
                    yield Sentence([], [])
                continue
            cols = line.split("\t") if "\t" in line else line.split()
            if tags:
                tag = cols[-1].strip() if len(cols) > 1 else ""
                if tag != "O" and tag[:2] not in ("B-", "I-"):
                    raise ValueError(f"{path}:{n}: expected a token and its tag (O, B-TYPE or I-TYPE): not a gold file")
                found.append(tag)
            tokens.append(cols[0].strip())
    if tokens:
        yield Sentence(tokens, found)


def read_paragraphs(path: str | Path) -> Iterator[str]:
    """Yield paragraphs of a corpus file; ``""`` marks a document boundary."""
    if is_token_file(path):
        for sentence in read_token_file(path, tags=False):
            yield " ".join(sentence.tokens)
        return
    with open_text(path) as f:
        for line in f:
            yield line.strip()


@dataclass(frozen=True)
class Source:
    """A corpus file with its sampling weight."""

    path: Path
    weight: float = 1.0

    @classmethod
    def parse(cls, spec: str) -> Source:
        """Parse ``PATH`` or ``PATH:WEIGHT``; raise ValueError with the spec on error."""
        path, weight = spec, 1.0
        head, sep, tail = spec.rpartition(":")
        if sep and head and not Path(spec).exists():
            try:
                path, weight = head, float(tail)
            except ValueError:
                raise ValueError(f"{spec}: weight after ':' must be a number") from None
        if weight <= 0:
            raise ValueError(f"{spec}: weight must be positive")
        if not Path(path).is_file():
            raise ValueError(f"{path}: no such corpus file")
        return cls(Path(path), weight)
