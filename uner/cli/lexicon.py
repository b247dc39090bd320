"""`uner lexicon` and `uner endings`: a domain's typed terms and word endings from its tagged corpus, for the
``lexicon`` and ``word_endings`` stages (uner.vocab.lexicon_table, .endings)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from ..vocab.ending_table import EndingParams, Endings
from ..vocab.lexicon_table import Lexicon, Tagged
from ._util import app, fail

T = TypeVar("T")


def read_tagged(paths: list[Path]) -> Iterator[Tagged]:
    """(text, entities) of each record of ``uner tag`` JSONL files; records with an ``error`` are passed over;
    ValueError naming the file and line of one that is not such a record."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line, row in enumerate(f, 1):
                try:
                    rec = json.loads(row)
                    if "error" not in rec:
                        ents = rec["entities"]
                        if not all(isinstance(e["start"], int) and isinstance(e["end"], int) and e["type"]
                                   for e in ents):
                            raise TypeError
                        yield rec["text"], ents
                except (ValueError, KeyError, TypeError):
                    raise ValueError(f"{path}:{line}: expected a record of uner tag's JSONL output (text, entities "
                                     "with start, end and type)") from None


@app.command()
def lexicon(
    tagged: Annotated[list[Path], typer.Argument(help="The domain corpus as uner tag wrote it (.jsonl).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The table to write (.tsv), e.g. LABELS/stages/lexicon.tsv.")],
    min_tagged: Annotated[int, typer.Option(min=1, help="Strings tagged fewer times are not kept.")] = 2,
) -> None:
    """Count how often each tagged string of the corpus was tagged, with which type, and how often it occurs at
    all, into a table for the lexicon stage."""
    _check_paths(tagged, out)
    table = _built(lambda: Lexicon.build(lambda: read_tagged(tagged), min_tagged=min_tagged, progress=_progress))
    table.save(out)
    typer.echo(f"{out}: {len(table.terms):,} terms tagged at least {min_tagged} times")


_Tagged = Annotated[list[Path], typer.Argument(help="The domain corpus as uner tag wrote it (.jsonl).")]
_Out = Annotated[Path, typer.Option("--out", "-o", help="The table to write (.tsv), e.g. LABELS/stages/x.tsv.")]
_MinSeen = Annotated[int, typer.Option("--min-seen", min=1, help="Words seen fewer times say nothing.")]
_MinWords = Annotated[int, typer.Option("--min-words", min=1, help="Typed words an ending needs.")]
_MinPrecision = Annotated[float, typer.Option("--min-precision", min=0.0, max=1.0,
                                              help="Share of its words an ending must type.")]


@app.command()
def endings(tagged: _Tagged, out: _Out, min_seen: _MinSeen = EndingParams.min_seen,
            min_words: _MinWords = EndingParams.min_words,
            min_precision: _MinPrecision = EndingParams.min_precision) -> None:
    """Learn the word endings whose words the tagged corpus types one way (the stems of a drug class, the suffixes
    of disease names), with the words that are exceptions, into a table for the word_endings stage."""
    _check_paths(tagged, out)
    table = _built(lambda: Endings.build(read_tagged(tagged), EndingParams(min_seen=min_seen, min_words=min_words,
                                                                           min_precision=min_precision),
                                         progress=_progress))
    table.save(out)
    typer.echo(f"{out}: {len(table.endings):,} endings")


def _check_paths(tagged: list[Path], out: Path) -> None:
    for path in tagged:
        if not path.is_file():
            fail(f"{path}: no such tagged file")
    if not out.parent.is_dir():
        fail(f"{out.parent}: no such folder for --out")


def _progress(n: int) -> None:
    print(f"\r{n:,} texts read", end="", file=sys.stderr, flush=True)


def _built(build: Callable[[], T]) -> T:
    """``build()``, its progress line ended; a bad record fails with its file and line."""
    try:
        table = build()
    except ValueError as exc:
        print(file=sys.stderr)
        fail(str(exc))
    print(file=sys.stderr)
    return table
