"""Tagging a whole input file into an output file: what ``uner tag`` does.

Records are read (bad lines kept, so there is one output record per input line), tagged by a runner,
and written by the output format's writer into ``OUT.partial``, renamed to ``OUT`` once complete;
``resume`` continues after the complete lines of an interrupted run's ``OUT.partial``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..io import InputError, read_records
from ..models import ModelNotFoundError
from .formats import WRITERS, Destination, format_for, open_partial
from .records import TagOptions
from .runners import make_runner


class SetupError(Exception):
    """Why a tagging run could not start (bad option, missing input, model or labels): one line for the user."""


def tag_file(input: str, out: str, tagger_kwargs: dict, *, input_format: str | None = None,
             output_format: str | None = None, options: TagOptions | None = None, resume: bool = False,
             workers: int = 1, runner: str | None = None) -> int:
    """Tag ``input`` (a file or ``-`` for stdin) into ``out`` (a file or ``-`` for stdout); the number of
    records with an ``error``. ``tagger_kwargs`` go to ``Tagger.from_pretrained``; SetupError before any work."""
    options = options or TagOptions()
    try:
        fmt = format_for(out, output_format)
    except ValueError as exc:
        raise SetupError(f"--output-format: {exc}") from None
    if input != "-" and not Path(input).is_file():
        raise SetupError(f"{input}: no such file")
    if resume and (out == "-" or fmt != "jsonl"):
        raise SetupError("--resume needs a .jsonl output file")
    try:  # with workers, only they load the model; this process just reads, orders and writes
        tagging = make_runner(tagger_kwargs, options, workers, runner)
        records = read_records(input, input_format or ("txt" if input == "-" else None), keep_bad=True)
    except (OSError, ValueError, InputError, ModelNotFoundError) as exc:
        raise SetupError(str(exc)) from None
    partial, done = open_partial(out, resume)
    from tqdm.auto import tqdm

    results = tagging.run(itertools.islice(records, done, None))
    errors: list[dict] = []
    bar = tqdm(_noting_errors(results, errors), desc="tagging", unit="doc", initial=done, disable=out == "-",
               dynamic_ncols=True)
    WRITERS[fmt](bar, Destination(partial, options.batch_size, lambda: tagging.nlp))
    if partial is not None:
        partial.replace(out)
    return len(errors)


def _noting_errors(records: Iterable[dict], errors: list[dict]) -> Iterator[dict]:
    """The records, passed on; those with an ``error`` also appended to ``errors``."""
    for rec in records:
        if "error" in rec:
            errors.append(rec)
        yield rec
