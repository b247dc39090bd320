"""Tagging input records (``uner.io.Record``) into output records, one per input, errors kept per record."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..io import Record
from ..spans import parse_inline
from .core import BaseTagger, PredictionCache


@dataclass(frozen=True)
class TagOptions:
    """How records are tagged: ``inline`` span marks, documents per ``batch_size``, ``explain`` descriptors."""

    inline: bool = False
    batch_size: int = 64
    explain: bool = False


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


def tag_records(tagger: BaseTagger, records: Iterable[Record], *, inline: bool = False, batch_size: int = 64,
                explain: bool = False) -> Iterator[dict]:
    """Output record per input record (same order): ``{"id", "text", "entities"}`` plus ``error`` for bad input.

    Given spans come from a record's ``spans`` field (``[[start, end], …]`` or ``[{"start", "end"}, …]``) or,
    with ``inline``, from ``term:__entity__`` marks in the text.
    """
    pending: list[tuple[dict, str, list | None]] = []
    cache = PredictionCache()  # repeated masked inputs run once per call

    def flush() -> Iterator[dict]:
        good = [(out, text, spans) for out, text, spans in pending if "error" not in out]
        try:
            results = list(tagger.tag([t for _, t, _ in good], [s for _, _, s in good], batch_size=len(good) or 1,
                                      explain=explain, cache=cache))
        except ValueError:  # one bad document must not sink the batch: redo one by one
            results = []
            for out, text, spans in good:
                try:
                    results.append(next(tagger.tag([text], [spans], explain=explain, cache=cache)))
                except ValueError as exc:
                    out["error"] = f"line {out['id']}: {exc}"
                    results.append([])
        for (out, _, _), ents in zip(good, results):
            out["entities"] = [e.to_dict(explain) for e in ents]
        for out, _, _ in pending:
            yield out
        pending.clear()

    for rec in records:
        out = {"id": rec.id, "text": rec.text, "entities": []}
        spans = None
        if rec.error:
            out["error"] = rec.error
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
