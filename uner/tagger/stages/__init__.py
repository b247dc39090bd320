"""Post-typing stages (docs/design.md §3.3d): what happens to one document's typed entities after the votes.

spans → masked inputs → votes → type → **stages** → records. Every engine (teacher, student, ensemble, and the
process and Ray runners through them) ends in ``run_stages``: the entities' edges are tidied first (``edges``;
always), then the named stages listed for the domain run in order (``TaggerConfig.stages``, set per domain and
overridable in the labels' ``tagger.yaml`` or with ``uner tag --stages``). A stage is registered by name
(``registry.register``) and its word lists live beside the labels, ``<labels>/stages/<name>.yaml`` (a labels folder
without them uses the shipped labels'); each entity records the stages that
changed it (``Entity.stages``, shown by ``--explain``). Caller-given spans are typed as given: no stage runs.
A document that comes as several texts (a gold file of sentences) goes through ``run_in_context`` after that: the
stages that read beyond a sentence (``abbreviations``, ``repeated_names``) see the earlier texts that carry what a
text mentions.

The shipped stages, what each does, the domain that lists it and what it adds on which dev sets: the table in
docs/design.md §3.3d. A dataset's annotation convention is no stage of a domain: its mapping turns such stages on
for ``uner eval`` (``Mapping.stages``; ``uner tag --stages`` runs the same list).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable, Iterator, Sequence
from dataclasses import replace
from operator import is_not

from ..scoring import Entity
# (importing the modules registers the shipped stages)
from . import (abbreviations, coordination, counts, endings, heads, lexicon, phrases,  # noqa: F401
               pieces, repeats, teams, titles)
from .edges import tidy, tidy_bounds
from .registry import (STAGES, LoadedStage, Stage, check_stage_types, forget_loaded, load_stages, read_words, register,
                       resolve_stages)


def run_stages(text: str, entities: Sequence[Entity], stages: Sequence[str], folder: str | None = None
               ) -> list[Entity]:
    """``entities`` of ``text`` (kept and rejected candidates, in order) tidied, then the kept ones through
    ``stages`` in order, with the words of the labels ``folder`` (None: the shipped labels'); each entity a stage
    changed or added names it in ``stages``. A stage that returns as many entities as it got changes them in
    place; one that adds or drops entities has its output merged with the rejected candidates by start offset."""
    out = [e for e in (tidy(text, ent) for ent in entities) if e is not None]
    return _apply(text, out, load_stages(stages, folder))


def _apply(text: str, out: list[Entity], stages: Sequence[LoadedStage]) -> list[Entity]:
    """``out`` (tidied) through the loaded ``stages``, as ``run_stages`` says."""
    kept = [i for i, e in enumerate(out) if e.kept]  # (a stage keeps what it returns: the places change with the list)
    before = [out[i] for i in kept]
    for stage in stages:
        after = stage.apply(text, before)
        if len(after) == len(before):  # one for one: each in its place
            if any(map(is_not, after, before)):
                before = [new if new is old else replace(new, stages=(*old.stages, stage.name))
                          for old, new in zip(before, after)]
            continue
        # entities added or dropped: those not among the stage's input are new (or changed copies) and name it;
        # the rejected candidates keep their places, the stage's entities go in by start offset
        ids = {id(e) for e in before}
        after = [e if id(e) in ids else replace(e, stages=(*e.stages, stage.name)) for e in after]
        spans = {(e.start, e.end) for e in after}
        rejected = [e for e in out if not e.kept and (e.start, e.end) not in spans]  # (a stage kept that span)
        out = sorted(rejected + after, key=lambda e: e.start)  # (stable: the stage's order among equal starts)
        kept = [i for i, e in enumerate(out) if e.kept]
        before = [out[i] for i in kept]
    for i, ent in zip(kept, before):
        out[i] = ent
    return out


# The texts before a text that the document stages read in a document that comes as several texts (``uner tag
# --documents``, as ``uner eval --context 20``): an abstract's sentences and more; a name tagged further back still
# reaches a text through the nearer ones that write it again (``repeated_names`` carries it on).
DOCUMENT_CONTEXT = 20


def run_in_context(texts: Iterable[str], entities: Iterable[list[Entity]], stages: Sequence[str],
                   folder: str | None = None, context: int = 0, starts: Container[int] = ()
                   ) -> Iterator[list[Entity]]:
    """Each text's ``entities`` (as ``run_stages`` left them), in order, after the document stages among ``stages``
    have read the text joined to those of the up to ``context`` texts before it in its document that carry a string
    it holds (``Stage.document``; of the texts that carry one string for one stage, the last: its typed definition
    or tagged name is the nearest before), with their entities as this pass left them: for a document that comes as
    several texts (a file of sentences), so that an abbreviation defined in one sentence types its mentions in the
    next ones. ``starts``: the indexes of the texts that begin a document (none before is read with it)."""
    document = tuple(s for s in load_stages(stages, folder) if s.document)
    # the texts that carry something: index, text, entities, the strings each document stage carries from it
    window: deque[tuple[int, str, list[Entity], tuple[tuple[str, ...], ...]]] = deque()
    for i, (text, ents) in enumerate(zip(texts, entities)):
        if i in starts:
            window.clear()
        while window and window[0][0] < i - context:
            window.popleft()
        last = {(k, c): n for n, (_, _, _, carried) in enumerate(window)
                for k, strings in enumerate(carried) for c in strings if c in text}
        read = [window[n][1:3] for n in sorted(set(last.values()))]
        if read:
            joined, at = [], 0
            for before, their in read:
                joined += [replace(e, start=e.start + at, end=e.end + at) for e in their]
                at += len(before) + 1
            joined += [replace(e, start=e.start + at, end=e.end + at) for e in ents]
            out = _apply(" ".join([t for t, _ in read] + [text]), joined, document)
            ents = [replace(e, start=e.start - at, end=e.end - at) for e in out if e.start >= at]
        carried = tuple(stage.document(text, ents) for stage in document) if context else ()
        if any(carried):
            window.append((i, text, ents, carried))
        yield ents


__all__ = ["DOCUMENT_CONTEXT", "STAGES", "LoadedStage", "Stage", "check_stage_types", "forget_loaded", "load_stages", "read_words",
           "register", "resolve_stages", "run_in_context", "run_stages", "tidy", "tidy_bounds"]
