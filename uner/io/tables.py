"""Tab-separated tables with a header: the learned tables of the post-typing stages (lexicon, word endings)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .atomic import atomic_write_text


def write_table(path: str | Path, columns: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """``columns`` then ``rows``, tab-separated, written whole or not at all."""
    atomic_write_text(path, "\n".join("\t".join(r) for r in [columns, *rows]) + "\n")


def read_table(path: str | Path, columns: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """The rows of a table ``write_table`` wrote, with their line numbers; ValueError naming the file and line of a
    missing header or a row without as many fields as ``columns``."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if next(rows, None) != list(columns):
            raise ValueError(f"{path}:1: expected the header {' '.join(columns)}")
        for line, row in enumerate(rows, 2):
            if len(row) != len(columns):
                raise ValueError(f"{path}:{line}: expected {len(columns)} tab-separated fields ({', '.join(columns)})")
            yield line, row
