"""What every command shares: the Typer app, common options, one-line failures, loaders that fail cleanly."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Unsupervised NER with masked language models.")

ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model folder, embedded name or hub id (default: the embedded model).")]
LabelsOpt = Annotated[Optional[Path], typer.Option(help="Labels folder with label_table.npz (default: the model's).")]


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit non-zero."""
    typer.echo(f"uner: error: {message}", err=True)
    raise typer.Exit(code)


PoolingOpt = Annotated[str, typer.Option(help="cls-head | cls | mean | last-k-mean | first-last-mean")]


def read_texts(path: str, input_format: Optional[str]) -> list[str]:
    from ..io import InputError, read_records

    try:
        return [r.text for r in read_records(path, input_format)]
    except (InputError, OSError) as exc:
        fail(str(exc))


def load_mlm(model: Optional[str]):
    from ..models import MaskedLM, ModelNotFoundError

    try:
        return MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))


def read_vectors(path: Path):
    from ..io import InputError, load_vectors

    try:
        return load_vectors(path)
    except InputError as exc:
        fail(str(exc))


def map_vectors(vectors: Path, out: Path, fn) -> None:
    """Apply a fitted transform to a vector file and save the result atomically."""
    from ..io import save_npy

    result = fn(np.asarray(read_vectors(vectors)))
    save_npy(out, result)
    typer.echo(f"{result.shape[0]} vectors of dimension {result.shape[1]} -> {out}")


def load_graph(folder: Optional[Path], model: Optional[str]):
    """The neighbour graph in ``folder`` (default: the model's labels folder) and that folder; exit 2 if missing."""
    from ..graph import NeighbourGraph
    from ..paths import labels_dir

    folder = folder or labels_dir(model)
    try:
        return NeighbourGraph.load(folder), folder
    except FileNotFoundError as exc:
        fail(str(exc))
