"""Streaming text readers for pretraining and statistics.

Corpus files hold one paragraph per line; an empty line separates documents
where the source knows them. ``.gz`` and ``.xz`` files are decompressed on the
fly. Token-per-line NER files (CoNLL-2003, ``token<TAB>tag``) are read as text
only: each sentence becomes one paragraph and the labels are dropped.
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
            if line.strip():
                return line.startswith("-DOCSTART-")
    return False


def _token_file_sentences(f: IO[str]) -> Iterator[str]:
    words: list[str] = []
    for line in f:
        line = line.strip().strip("\ufeff")
        if not line or line.startswith("-DOCSTART-"):
            if words:
                yield " ".join(words)
                words = []
            if line.startswith("-DOCSTART-"):
                yield ""
            continue
        words.append(line.split()[0])
    if words:
        yield " ".join(words)


def read_paragraphs(path: str | Path) -> Iterator[str]:
    """Yield paragraphs of a corpus file; ``""`` marks a document boundary."""
    token_file = is_token_file(path)
    with open_text(path) as f:
        if token_file:
            yield from _token_file_sentences(f)
            return
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
