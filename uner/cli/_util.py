"""What every command shares: the Typer app, common options, one-line failures, loaders that fail cleanly."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ..io import InputError, load_vectors, read_records, save_npy
from ..labels import LabelsFolder
from ..models import MaskedLM, ModelNotFoundError
from ..tagger import TaggerConfig
from ..vocab import NeighbourGraph, neighbour_graph

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Unsupervised NER with masked language models.")


@app.callback()
def _global_options(verbose: Annotated[bool, typer.Option("--verbose", help="Show transformers' model loading bars "
                                                            "(uner --verbose COMMAND …).")] = False) -> None:
    if verbose:  # an environment variable, so that worker processes see it too
        os.environ["UNER_VERBOSE"] = "1"


ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model folder, embedded name or hub id (default: the embedded model).")]
LabelsOpt = Annotated[Optional[Path], typer.Option(help="Labels folder with label_table.npz (default: the model's).")]


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit non-zero."""
    typer.echo(f"uner: error: {message}", err=True)
    raise typer.Exit(code)


DomainOpt = Annotated[Optional[str], typer.Option(
    help="Tagger settings for the text: general (names) | biomedical (every noun phrase); default: the domain "
         "the model's labels were made for (tagger.yaml), else general.")]
EnsembleOpt = Annotated[Optional[list[str]], typer.Option(
    help="Another model to vote with, MODEL or MODEL:LABELS_DIR (repeatable; equal weights; e.g. uner-bio "
         "beside the default model for mixed text).")]
SpanPolicyOpt = Annotated[Optional[str], typer.Option(
    help="Candidate spans: named (names; common nouns only on confident votes) | nouns (every noun run).")]
MinScoreOpt = Annotated[Optional[float], typer.Option(
    min=0.0, max=0.99, help="A span is an entity only when its score (teacher: its top type's share of the votes; "
                            "student: its confidence on the teacher's scale) exceeds this.")]
TopKOpt = Annotated[Optional[int], typer.Option(
    min=1, help="Descriptors per masked input (default: the domain's: general 10, biomedical 5).")]

StagesOpt = Annotated[Optional[str], typer.Option(
    help="Post-typing stages to run, comma-separated, in order (none: no stage; default: the domain's, "
         "e.g. person_titles,sports_teams for general text). Ablation: leave one out.")]


def parse_stages(stages: Optional[str]) -> Optional[tuple[str, ...]]:
    """``--stages`` as a tuple of names (``none`` or empty: no stage); None when not given."""
    if stages is None:
        return None
    return tuple(n.strip() for n in stages.split(",") if n.strip() and n.strip() != "none")


def tagger_config(domain: Optional[str], span_policy: Optional[str] = None, min_score: Optional[float] = None,
                  top_k: Optional[int] = None, model: Optional[str] = None, labels: Optional[Path] = None,
                  stages: Optional[str] = None):
    """The domain's TaggerConfig (default: the one the labels were made for) with the options given on the
    command line; exit 2 on a bad value."""
    changes = {k: v for k, v in (("span_policy", span_policy), ("min_score", min_score), ("top_k", top_k),
                                 ("stages", parse_stages(stages))) if v is not None}
    try:
        return TaggerConfig.for_labels(LabelsFolder.of(labels, model), domain, **changes)
    except ValueError as exc:  # (LabelError too)
        fail(str(exc))


PoolingOpt = Annotated[str, typer.Option(help="cls-head | cls | mean | last-k-mean | first-last-mean")]


def read_texts(path: str, input_format: Optional[str]) -> list[str]:
    try:
        return [r.text for r in read_records(path, input_format)]
    except (InputError, OSError) as exc:
        fail(str(exc))


def load_mlm(model: Optional[str]):
    try:
        return MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))


def read_vectors(path: Path):
    try:
        return load_vectors(path)
    except InputError as exc:
        fail(str(exc))


def map_vectors(vectors: Path, out: Path, fn) -> None:
    """Apply a fitted transform to a vector file and save the result atomically."""
    result = fn(np.asarray(read_vectors(vectors)))
    save_npy(out, result)
    typer.echo(f"{result.shape[0]} vectors of dimension {result.shape[1]} -> {out}")


def load_graph(folder: Optional[Path], model: Optional[str]):
    """The neighbour graph in ``folder``; by default ``uner.vocab.neighbour_graph``'s: the one in the model's labels
    folder, else the one in the user cache, built there on first use (the model's vocabulary, about a minute).
    Exit 2 when there is none."""
    def announce(cache: Path) -> None:
        typer.echo(f"uner: building the neighbour graph of {model or 'the embedded model'} once, into {cache} "
                   "(about a minute)", err=True)

    try:
        return NeighbourGraph.load(folder) if folder is not None else neighbour_graph(model, build=True,
                                                                                     announce=announce)
    except (FileNotFoundError, ModelNotFoundError) as exc:
        fail(str(exc))
