"""`uner diagnose`: embedding-space diagnostics of a model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..vectors import diagnostics
from ._load import load_mlm
from ._util import ModelOpt, app, fail


@app.command()
def diagnose(
    corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files for word frequencies and sentences.")],
    model: ModelOpt = None,
    max_paragraphs: int = 20000,
    sentences: Annotated[int, typer.Option(help="Corpus paragraphs embedded for the anisotropy figures.")] = 2000,
    plots: Annotated[Optional[Path], typer.Option(help="Write PNG plots here (needs matplotlib).")] = None,
) -> None:
    """Norms and k-NN distances by frequency rank, anisotropy before/after whitening, decoder bias vs frequency."""
    for f in corpus:
        if not f.is_file():
            fail(f"{f}: no such file")
    result = diagnostics.diagnose(load_mlm(model), corpus, max_paragraphs, sentences)
    typer.echo("\n".join(diagnostics.report_lines(result)))
    if plots is not None:
        try:
            diagnostics.write_plots(plots, result)
        except ImportError:
            fail("--plots needs matplotlib (pip install matplotlib)")
        typer.echo(f"plots -> {plots}")
