"""`uner adapt`: a corpus and a types file to a labels folder ready for the annotation page (uner.adapt)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..adapt import AdaptConfig
from ..adapt import adapt as adapt_folder
from ._util import ModelOpt, app, fail
from .labels import SeedsOpt, _reported


@app.command()
def adapt(
    corpus: Annotated[list[str], typer.Argument(help="Text files of your domain, PATH or PATH:WEIGHT (.txt, .gz, .xz).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The labels folder to make (run again to continue).")],
    types: Annotated[Optional[Path], typer.Option(help="Your types file, a list of seed terms per type (as uner labels add-types reads it).")] = None,
    base: Annotated[Optional[Path], typer.Option(help="Labels folder to start from (default: the model's).")] = None,
    model: ModelOpt = None,
    seeds: SeedsOpt = None,
    sentences: Annotated[int, typer.Option(min=1, help="Corpus sentences the teacher reads for the page's queue.")] = 2000,
) -> None:
    """Copy the model's labels, add your types and seeds, suggest and compile, and read the corpus with the teacher
    so that the annotation page asks first about the descriptor words your corpus needs."""
    try:
        config = AdaptConfig(tuple(corpus), out, types, base, model, tuple(str(s) for s in seeds or ()), sentences)
    except ValueError as exc:
        fail(str(exc))
    with _reported():
        adapt_folder(config, typer.echo)
