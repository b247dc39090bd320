"""Loaders that fail cleanly with one line: the model layers (models, labels, tagger, vocab) a command runs.
Kept apart from ``_util`` so that what every command loads stays light; ``tag`` imports this in its body."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..labels import LabelsFolder
from ..models import MaskedLM, ModelNotFoundError
from ..tagger import TaggerConfig
from ..vocab import NeighbourGraph, neighbour_graph
from ._util import fail, parse_stages


def tagger_config(domain: Optional[str], span_policy: Optional[str] = None, min_score: Optional[float] = None,
                  top_k: Optional[int] = None, model: Optional[str] = None, labels: Optional[Path] = None,
                  stages: Optional[str] = None):
    """The domain's TaggerConfig (default: the one the labels were made for) with the options given on the
    command line; exit 2 on a bad value or a malformed file of the labels folder (``LabelsFolder.check_files``)."""
    changes = {k: v for k, v in (("span_policy", span_policy), ("min_score", min_score), ("top_k", top_k),
                                 ("stages", parse_stages(stages))) if v is not None}
    folder = LabelsFolder.of(labels, model)
    try:
        folder.check_files()
        return TaggerConfig.for_labels(folder, domain, **changes)
    except ValueError as exc:  # (LabelError too)
        fail(str(exc))


def load_mlm(model: Optional[str]):
    try:
        return MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))


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
