"""Tagging input records (``uner.io.Record``) into output records, one per input, errors kept per record."""

from __future__ import annotations

import itertools
import os
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..io import Record
from ..models import MODEL_FAILURES, release_memory
from ..spans import parse_inline
from .core import BaseTagger, PredictionCache
from .scoring import Entity
from .stages import DOCUMENT_CONTEXT, run_in_context

CACHE_BLOCK = 128  # documents whose identical masked inputs go through the model once (one prediction cache); small,
# so that memory stays flat on long runs (1,024 grew the teacher by about 0.7 MB per paragraph: docs/log/accuracy.md)


class ModelFailure(RuntimeError):
    """The model itself failed (out of memory …) while tagging: the run stops; one line for the user."""


def _error_text(line, exc: Exception) -> str:
    """A record's ``error`` for an exception in its own tagging: the exception's type and message (a ValueError's
    message alone: it describes the input), with the traceback when ``uner --verbose`` is on."""
    message = str(exc) if type(exc) is ValueError else f"{type(exc).__name__}: {exc}"
    if len(message) > 300:
        message = message[:297] + "..."
    if os.environ.get("UNER_VERBOSE"):
        message += "\n" + "".join(traceback.format_exception(exc)).rstrip()
    return f"line {line}: {message}"


@dataclass(frozen=True)
class TagOptions:
    """How records are tagged: ``inline`` span marks, documents per ``batch_size``, ``explain`` descriptors,
    documents longer than ``max_chars`` rejected (their record gets an ``error``: time and memory stay bounded),
    identical masked inputs run once per ``cache_block`` documents, ``rejected`` candidates listed too (the
    teacher's output for a student: ``uner.distill``)."""

    inline: bool = False
    batch_size: int = 64
    explain: bool = False
    max_chars: int = 100_000
    cache_block: int = CACHE_BLOCK
    rejected: bool = False

    @property
    def block(self) -> int:
        """Documents per prediction-cache block: ``cache_block`` rounded up to whole batches."""
        return -(-self.cache_block // self.batch_size) * self.batch_size

    def restart_point(self, done: int) -> int:
        """Where a resumed run starts tagging again after ``done`` records: the start of their last block,
        so that every batch and cache holds the documents it held in an uninterrupted run (byte-identical output)."""
        return done - done % self.block


def _given_spans(rec: Record) -> list[tuple[int, int]]:
    """A record's ``spans`` field as (start, end) pairs inside its text; ValueError when they are not."""
    try:
        spans = [(int(s["start"]), int(s["end"])) if isinstance(s, dict) else (int(s[0]), int(s[1]))
                 for s in rec.fields["spans"]]
    except (TypeError, ValueError, KeyError, IndexError):
        spans = None
    if spans is None or any(not 0 <= a < b <= len(rec.text) for a, b in spans):
        raise ValueError(f"line {rec.line}: 'spans' must be [start, end] character offsets inside the text")
    return spans


def in_documents(results: Iterable[dict], starts: set[int], stages: Sequence[str], folder: str | None = None,
                 options: TagOptions = TagOptions()) -> Iterator[dict]:
    """Output records (``tag_records``' with ``options``), in order, with the document stages among ``stages`` (with
    the word lists of the labels ``folder``) run over the records of each document as ``uner eval --context`` runs
    them over a gold file's sentences: one function, ``run_in_context``, reading ``DOCUMENT_CONTEXT`` records back.
    ``starts``: the indexes of the records that begin a document; it may fill as the results are drawn (an index is
    read once its record's result is in) and is emptied behind them."""
    texts, found, records = itertools.tee(results, 3)
    entities = ([Entity(**{**e, "stages": tuple(e.get("stages", ()))}) for e in rec["entities"]] for rec in found)
    in_context = run_in_context((r["text"] for r in texts), entities, stages, folder, DOCUMENT_CONTEXT, starts)
    for i, (rec, ents) in enumerate(zip(records, in_context)):
        starts.discard(i)  # (run_in_context has read it)
        rec["entities"] = [e.to_dict(options.explain, options.rejected) for e in ents]
        yield rec


def tag_records(tagger: BaseTagger, records: Iterable[Record], *, inline: bool = False, batch_size: int = 64,
                explain: bool = False, max_chars: int = 100_000, cache_block: int = CACHE_BLOCK,
                rejected: bool = False) -> Iterator[dict]:
    """Output record per input record (same order): ``{"id", "text", "entities"}`` (after the record's ``file``
    when it has one) plus ``error`` for bad input, and with ``rejected`` a ``rejected`` list: the candidate spans
    that are not entities, with their top type (a not-entity label included), share and whether they were
    name-like (``named``).

    Given spans come from a record's ``spans`` field (``[[start, end], …]`` or ``[{"start", "end"}, …]``) or,
    with ``inline``, from ``term:__entity__`` marks in the text. Batches (``batch_size`` records) and
    prediction caches (``TagOptions.block`` records) are cut at fixed positions from the first record, so a
    record's result depends only on its batch, never on how far an earlier run got.
    """
    block = TagOptions(batch_size=batch_size, cache_block=cache_block).block
    pending: list[tuple[dict, str, list | None]] = []
    cache = PredictionCache()
    tagger.nlp.max_length = max(tagger.nlp.max_length, max_chars + 1)  # spaCy's own cap must not cut in first

    def flush() -> Iterator[dict]:
        good = [(out, text, spans) for out, text, spans in pending if "error" not in out]
        try:
            results = list(tagger.tag([t for _, t, _ in good], [s for _, _, s in good], batch_size=len(good) or 1,
                                      explain=explain, cache=cache, rejected=rejected))
        except MODEL_FAILURES as exc:
            raise ModelFailure(f"the model failed while tagging ({type(exc).__name__}: {exc})") from exc
        except Exception:  # one bad document must not sink the batch (or the run): redo one by one
            results = []
            for out, text, spans in good:
                try:
                    results.append(next(tagger.tag([text], [spans], explain=explain, cache=cache, rejected=rejected)))
                except MODEL_FAILURES as exc:
                    raise ModelFailure(f"the model failed on line {out['id']} ({type(exc).__name__}: {exc})") from exc
                except Exception as exc:
                    out["error"] = _error_text(out["id"], exc)
                    results.append([])
        for (out, _, _), ents in zip(good, results):
            out["entities"] = [e.to_dict(explain, rejected) for e in ents if e.kept]
            if rejected:
                out["rejected"] = [e.to_dict(explain, True) for e in ents if not e.kept]
        for out, _, _ in pending:
            yield out
        pending.clear()

    for n, rec in enumerate(records):
        if n % block == 0 and n:
            cache = PredictionCache()  # (after the flush of the block's last batch)
            release_memory()  # the last block's batches and cache are freed: their pages go back to the OS
        out = {"id": rec.id, "text": rec.text, "entities": []}
        if rec.file is not None:  # (a folder's or glob's files: ids may repeat across them)
            out = {"file": rec.file, **out}
        spans = None
        if rec.error:
            out["error"] = rec.error
        elif len(rec.text) > max_chars:
            out["error"] = (f"line {rec.line}: {len(rec.text):,} characters, more than the {max_chars:,} allowed per "
                            "document (--max-chars); split long documents into paragraphs, one per line")
        elif inline:
            out["text"], spans = parse_inline(rec.text)
        elif "spans" in rec.fields:
            try:
                spans = _given_spans(rec)
            except ValueError as exc:
                out["error"] = str(exc)
        pending.append((out, out["text"], spans))
        if len(pending) >= batch_size:
            yield from flush()
    yield from flush()
