"""What every command shares: the Typer app (which imports a command's module only when it runs), common options,
one-line failures, readers that fail cleanly. Light: no model layer is imported here (see ``_load``)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from typer.core import TyperGroup

from ..io import InputError, check_output, input_files, load_vectors, read_records, save_npy

# command -> the module of uner.cli that defines it, in the order `uner --help` lists them
COMMANDS = {"fill": "fill", "pretrain": "pretrain", "cluster": "cluster", "neighbors": "cluster", "embed": "vectors",
            "search": "vectors", "classify": "vectors", "diagnose": "diagnose", "tag": "tag", "distill": "distill", "calibrate": "distill",
            "eval": "evaluate", "relations": "relations", "synonyms": "synonyms", "annotate": "annotate",
            "whiten": "vectors", "flow": "vectors", "labels": "labels", "phrases": "phrases", "lexicon": "lexicon",
            "endings": "lexicon", "adapt": "adapt"}


class LazyCommands(TyperGroup):
    """The ``uner`` group: every command of ``COMMANDS`` is known by name (None until loaded), and its module is
    imported when the command is looked up (run, or listed by ``--help``), so that a command loads only the layers
    it runs and a bad option or a missing file is reported before torch and spaCy load."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.commands = {name: None for name in COMMANDS} | dict(self.commands)

    def get_command(self, ctx, name: str):
        if name in COMMANDS and self.commands.get(name) is None:
            importlib.import_module(f"{__package__}.{COMMANDS[name]}")  # (registers its commands on ``app``)
            self.commands.update(typer.main.get_command(app).commands)
        return self.commands.get(name)


# Help text is Rich markup: a bracket that reads as a tag is escaped ("pip install 'uner\\[ray]'") or Rich drops it.
app = typer.Typer(cls=LazyCommands, add_completion=False, no_args_is_help=True,
                  help="Unsupervised NER with masked language models.")


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
    help="Candidate spans: names (name-like stretches) | named (names; common nouns only on confident "
         "votes) | nouns (every noun run).")]
MinScoreOpt = Annotated[Optional[float], typer.Option(
    min=0.0, max=0.99, help="A span is an entity only when its score (teacher: its top type's share of the votes; "
                            "student: its confidence on the teacher's scale) exceeds this.")]
BackendOpt = Annotated[str, typer.Option(
    help="The masked LM's runtime: torch | onnx (ONNX Runtime, int8 weights by default: faster on a CPU without "
         "AMX; pip install 'uner\\[onnx]'; the graph is built once into the user cache) | auto (onnx where it measured "
         "faster on this CPU, once, cached).")]
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


PoolingOpt = Annotated[str, typer.Option(help="cls-head | cls | mean | last-k-mean | first-last-mean")]


def check_paths(input: str, out: str) -> None:
    """Exit 2 with one line when ``input`` names nothing readable or ``out`` cannot be written: before a command
    imports its model layers, so that these mistakes are told at once."""
    try:
        input_files(input)
        check_output(out)
    except (ValueError, OSError) as exc:  # (InputError is a ValueError)
        fail(str(exc))


def read_texts(path: str, input_format: Optional[str]) -> list[str]:
    try:
        return [r.text for r in read_records(path, input_format)]
    except (InputError, OSError) as exc:
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


