"""`uner fill`: the model's top predictions at each [MASK]."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..labels import LabelsFolder, term_types
from ._load import load_mlm
from ._util import ModelOpt, app, fail


def read_lines(texts: Optional[list[str]], file: Optional[Path]) -> list[str]:
    """The texts given, then the file's lines; stdin when there are none (or '-'); blank lines dropped."""
    lines = list(texts or [])
    if file is not None:
        if not file.is_file():
            fail(f"{file}: no such file")
        lines += [ln.rstrip("\n") for ln in file.open(encoding="utf-8")]
    if not lines or lines == ["-"]:
        lines = [ln.rstrip("\n") for ln in sys.stdin]
    return [ln for ln in lines if ln.strip()]


@app.command()
def fill(
    texts: Annotated[Optional[list[str]], typer.Argument(help="Texts containing [MASK]; '-' or none reads lines from stdin.")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read texts from this file, one per line.")] = None,
    model: ModelOpt = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1)] = 10,
    labels: Annotated[Optional[Path], typer.Option(help="Labels folder for the terms' entity types (default: the model's, if compiled).")] = None,
) -> None:
    """Fill in the blanks: top-k predictions with logits (and entity types, when labels exist) at every [MASK]."""
    lines = read_lines(texts, file)
    mlm = load_mlm(model)
    lines = [ln.replace("[MASK]", mlm.mask_token) for ln in lines]
    try:
        results = mlm.top_k(lines, k=top_k)
    except ValueError as exc:
        fail(str(exc))
    folder = LabelsFolder.of(labels, mlm.name)
    typed = term_types(folder.load_table(), folder.load_types()) if folder.has_table() else None
    for text, preds in zip(lines, results):
        typer.echo(text)
        if not preds:
            typer.echo(f"  (no {mlm.mask_token} in this text)")
        for m, p in enumerate(preds, 1):
            cells = "  ".join(f"{tok} {logit:.2f}" + (f" [{typed[i]}]" if typed and typed[i] else "")
                              for tok, logit, i in zip(p.tokens, p.logits, p.ids))
            typer.echo(f"  mask {m}: {cells}")
