"""Tagging a whole input file into an output file: what ``uner tag`` does.

Records are read (bad lines kept, so there is one output record per input line), tagged by a runner,
and written by the output format's writer into ``OUT.partial`` (locked for the run), renamed to ``OUT``
once complete; ``resume`` continues after the complete lines of an interrupted run's ``OUT.partial``, when
its sidecar says it is made from the same input with the same settings (``partial``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from tqdm.auto import tqdm

from ..io import FileRecords, MissingExtra, check_output
from ..labels.folder import LabelsFolder
from ..models import ModelNotFoundError, load_settings, resolve_backend
from ..spans import load_spacy
from .formats import WRITERS, Destination, format_for
from .partial import OutputInUseError, ResumeMismatch, claim_partial, complete, run_record
from .records import TagOptions
from .runners import RUNNERS, make_runner


class SetupError(Exception):
    """Why a tagging run could not start (bad option, missing input, model or labels): one line for the user."""


def tag_file(input: str, out: str, tagger_kwargs: dict, *, input_format: str | None = None,
             output_format: str | None = None, options: TagOptions | None = None, resume: bool = False,
             workers: int | None = 1, runner: str | None = None, encoding: str = "utf-8",
             runner_settings: dict | None = None) -> int:
    """Tag ``input`` (a file, a FIFO, ``-`` for stdin, or a folder or glob of files, tagged in turn) into
    ``out`` (a file or ``-`` for stdout); the number of records with an ``error``. ``tagger_kwargs`` go to
    ``Tagger.from_pretrained``; ``runner``, ``workers`` and ``runner_settings`` to ``make_runner``.

    SetupError before any work, cheapest check first: options, input and output paths, the spaCy parser,
    the output lock (a second run on the same ``out`` stops here), with ``resume`` the partial file's input
    and settings, then the model. A resumed run starts again at the last cache block of the partial file and
    drops what it already holds, so its output is byte-identical to an uninterrupted run's. WriteError when
    the output cannot be written (a full disk): the partial file keeps its whole records, for ``resume``.
    """
    options = options or TagOptions()
    try:
        fmt = format_for(out, output_format)
    except ValueError as exc:
        raise SetupError(f"--output-format: {exc}") from None
    if resume and (out == "-" or fmt != "jsonl"):
        raise SetupError("--resume needs a .jsonl output file")
    try:
        records = FileRecords.find(input, input_format or ("txt" if input == "-" else None), encoding)
        check_output(out)
        spacy_model = tagger_kwargs.get("spacy_model")
        load_spacy(spacy_model) if spacy_model else load_spacy()  # seconds, before the model's load
        # what shapes the records (where they are tagged — workers, threads, a Ray cluster — does not)
        settings = {"engine": runner, "tagger": {k: v for k, v in tagger_kwargs.items() if k != "threads"},
                    "options": options, "input_format": input_format, "encoding": encoding}
        run = run_record(records.fingerprint(), settings) if fmt == "jsonl" and out != "-" else None
    except (OSError, ValueError) as exc:  # (InputError is a ValueError)
        raise SetupError(str(exc)) from None
    try:
        with claim_partial(out, resume, run) as (partial, done):
            try:  # with workers, only they load the model; this process just reads, orders and writes
                masked_lm = getattr(RUNNERS.get(runner or "serial"), "masked_lm", True)
                if masked_lm:
                    model, labels = LabelsFolder.model_and_labels(tagger_kwargs.get("model"),
                                                                  tagger_kwargs.get("labels"))
                    tagger_kwargs = {**tagger_kwargs, "model": model, "labels": labels}
                if masked_lm and tagger_kwargs.get("backend") == "auto":  # chosen once, for every worker alike
                    tagger_kwargs = {**tagger_kwargs, "backend": resolve_backend(
                        "auto", tagger_kwargs.get("model"), tagger_kwargs.get("device"))}
                torch_lm = masked_lm and tagger_kwargs.get("backend", "torch") == "torch"
                if torch_lm and tagger_kwargs.get("dtype", "auto") == "auto":  # (the same)
                    _, dtype = load_settings(tagger_kwargs.get("model"), "auto", tagger_kwargs.get("device"))
                    tagger_kwargs = {**tagger_kwargs, "dtype": dtype}
                tagging = make_runner(tagger_kwargs, options, workers, runner, **(runner_settings or {}))
            except (OSError, ValueError, ModelNotFoundError, MissingExtra) as exc:
                raise SetupError(str(exc)) from None
            start = options.restart_point(done)
            results = itertools.islice(tagging.run(records.after(start)), done - start, None)
            errors: list[dict] = []
            # (the bar ends its line even when writing fails, so that the message is a line of its own)
            with tqdm(_noting_errors(results, errors), desc="tagging", unit="doc", initial=done,
                      disable=out == "-" or runner == "ray", dynamic_ncols=True) as bar:  # (Ray shows its own)
                WRITERS[fmt](bar, Destination(partial, options.batch_size, lambda: tagging.nlp))
            complete(partial, out)
    except (OutputInUseError, ResumeMismatch) as exc:
        raise SetupError(str(exc)) from None
    return len(errors)


def _noting_errors(records: Iterable[dict], errors: list[dict]) -> Iterator[dict]:
    """The records, passed on; those with an ``error`` also appended to ``errors``."""
    for rec in records:
        if "error" in rec:
            errors.append(rec)
        yield rec
