"""Tagging a whole input file into an output file: what ``uner tag`` does.

Records are read (bad lines kept, so there is one output record per input line), tagged by a runner,
in document mode read again by the document stages document by document (``records.in_documents``),
and written by the output format's writer into ``OUT.partial`` (locked for the run), renamed to ``OUT``
once complete; ``resume`` continues after the complete lines of an interrupted run's ``OUT.partial``, when
its sidecar says it is made from the same input with the same settings (``partial``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from tqdm.auto import tqdm

from ..io import FileRecords, MissingExtra, Record, begins_document, check_output
from ..labels.folder import LabelsFolder
from ..models import ModelNotFoundError, load_settings, resolve_backend
from ..spans import load_spacy
from .formats import WRITERS, Destination, format_for
from .partial import OutputInUseError, ResumeMismatch, claim_partial, complete, run_record
from .records import TagOptions, in_documents
from .runners import RUNNERS, make_runner, placement


class SetupError(Exception):
    """Why a tagging run could not start (bad option, missing input, model or labels): one line for the user."""


class Tagged(NamedTuple):
    """What a run wrote: its output records (those of the run it resumed too), and this run's with an ``error``."""

    records: int
    errors: int


def tag_file(input: str, out: str, tagger_kwargs: dict, *, input_format: str | None = None,
             output_format: str | None = None, options: TagOptions | None = None, resume: bool = False,
             workers: int | None = 1, runner: str | None = None, encoding: str = "utf-8",
             runner_settings: dict | None = None, documents: bool = False) -> Tagged:
    """Tag ``input`` (a file, a FIFO, ``-`` for stdin, or a folder or glob of files, tagged in turn) into
    ``out`` (a file or ``-`` for stdout); how many records it wrote and how many have an ``error``.
    ``tagger_kwargs`` go to ``Tagger.from_pretrained``; ``runner``, ``workers`` and ``runner_settings`` to
    ``make_runner``. ``documents``: the input is documents of several records (``uner.io.begins_document``: a
    blank line ends one), each record still tagged alone and written as its own, then read again by the document
    stages after the records before it in its document (``records.in_documents``, as ``uner eval --context``
    reads a gold file); a record with given spans is a document of its own (typed as given).

    SetupError before any work, cheapest check first: options, input and output paths, the spaCy parser,
    the output lock (a second run on the same ``out`` stops here), with ``resume`` the partial file's input
    and settings, then the model. A resumed run starts again at the last cache block of the partial file (in
    document mode, the last one that begins before the document it stopped in) and drops what it already holds, so
    its output is byte-identical to an uninterrupted run's; so the record of a run holds where it tagged as far as
    that shapes the records (``placement``: a partial file made with another runner or thread count is refused).
    WriteError when
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
        # what shapes the records: where they are tagged only as far as ``placement`` says
        settings = {**placement(tagger_kwargs, workers, runner, **(runner_settings or {})),
                    "tagger": {k: v for k, v in tagger_kwargs.items() if k != "threads"}, "options": options,
                    "input_format": input_format, "encoding": encoding, "documents": documents}
        run = run_record(records.fingerprint(), settings) if fmt == "jsonl" and out != "-" else None
    except (OSError, ValueError) as exc:  # (InputError is a ValueError)
        raise SetupError(str(exc)) from None
    try:
        with claim_partial(out, resume, run) as (partial, done):
            start = options.restart_point(_document_start(records, done, options.inline) if documents else done)
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
            if documents:
                starts: set[int] = set()
                results = in_documents(tagging.run(_noting_starts(records.after(start), starts, options.inline)),
                                       starts, *tagging.stages, options)
            else:
                results = tagging.run(records.after(start))
            counts: Counter = Counter()
            # (the bar ends its line even when writing fails, so that the message is a line of its own)
            with tqdm(_counting(itertools.islice(results, done - start, None), counts), desc="tagging", unit="doc",
                      initial=done, disable=out == "-" or runner == "ray", dynamic_ncols=True) as bar:  # (Ray: its own)
                WRITERS[fmt](bar, Destination(partial, options.batch_size, lambda: tagging.nlp))
            complete(partial, out)
    except (OutputInUseError, ResumeMismatch) as exc:
        raise SetupError(str(exc)) from None
    return Tagged(done + counts["records"], counts["errors"])


def _counting(records: Iterable[dict], counts: Counter) -> Iterator[dict]:
    """The records, passed on, counted in ``counts``: all (``records``) and those with an ``error`` (``errors``)."""
    for rec in records:
        counts["records"] += 1
        counts["errors"] += "error" in rec
        yield rec


def _beginnings(records: Iterable[Record], inline: bool) -> Iterator[tuple[Record, bool]]:
    """Each record with whether it begins a document (``begins_document``); a record with given spans (``inline``,
    a ``spans`` field) is a document of its own: typed as given, it neither reads nor is read by the others."""
    before, alone = None, False
    for rec in records:
        begins = alone or begins_document(rec, before)
        alone = inline or "spans" in rec.fields
        yield rec, begins or alone
        before = rec


def _noting_starts(records: Iterable[Record], starts: set[int], inline: bool) -> Iterator[Record]:
    """The records, passed on (to a runner), the index of each that begins a document added to ``starts``."""
    for i, (rec, begins) in enumerate(_beginnings(records, inline)):
        if begins:
            starts.add(i)
        yield rec


def _document_start(records: FileRecords, done: int, inline: bool) -> int:
    """The index of the first record of the document that holds record ``done``: where a resumed run in document
    mode reads again, so that the document stages see what an uninterrupted run's saw. SetupError for an input that
    cannot be read twice (stdin, a FIFO)."""
    if not done:
        return 0
    if not records.on_disk:
        raise SetupError("--resume with --documents reads the input's start again: give it as files, not stdin")
    start = 0
    for i, (_, begins) in enumerate(_beginnings(itertools.islice(records, done + 1), inline)):
        start = i if begins else start
    return start
