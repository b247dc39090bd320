"""`uner phrases`: count a domain corpus's phrases for the ``phrase_bounds`` stage (uner.vocab.phrase_counts)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..io.corpus import read_paragraphs
from ..vocab.phrase_counts import PhraseCounts
from ._util import app, fail


@app.command()
def phrases(
    corpus: Annotated[list[Path], typer.Argument(help="Text files of the domain (.txt, .gz, .xz; a paragraph per line).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The table to write (.npz), e.g. LABELS/stages/NAME.npz.")],
    max_n: Annotated[int, typer.Option(min=2, max=8, help="Longest phrase counted, in tokens.")] = 5,
    min_count: Annotated[int, typer.Option(min=1, help="Phrases seen fewer times are not kept.")] = 3,
    frequent: Annotated[int, typer.Option(min=0, help="How many of the most frequent words count as function words.")] = 50,
) -> None:
    """Count every phrase of up to --max-n tokens in the corpus files into a table for the phrase_bounds stage."""
    for path in corpus:
        if not path.is_file():
            fail(f"{path}: no such corpus file")
    if not out.parent.is_dir():
        fail(f"{out.parent}: no such folder for --out")

    def texts():
        for path in corpus:
            yield from read_paragraphs(path)

    def progress(n: int) -> None:
        print(f"\r{n:,} tokens counted", end="", file=sys.stderr, flush=True)

    counts = PhraseCounts.mine(texts(), max_n=max_n, min_count=min_count, n_frequent=frequent, progress=progress)
    print(file=sys.stderr)
    counts.save(out)
    typer.echo(f"{out}: {', '.join(f'{len(h):,} {n}-grams' for n, h in enumerate(counts.hashes, 1))} "
               f"(seen ≥ {min_count} times)")
