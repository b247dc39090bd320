"""Post-typing stages (docs/design.md §3.3d): what happens to one document's typed entities after the votes.

spans → masked inputs → votes → type → **stages** → records. Every engine (teacher, student, ensemble, and the
process and Ray runners through them) ends in ``run_stages``: the entities' edges are tidied first (``edges``;
always), then the named stages listed for the domain run in order (``TaggerConfig.stages``, set per domain and
overridable in the labels' ``tagger.yaml`` or with ``uner tag --stages``). A stage is registered by name
(``registry.register``) and its word lists live beside the labels, ``<labels>/stages/<name>.yaml`` (a labels folder
without them uses the shipped labels'); each entity records the stages that
changed it (``Entity.stages``, shown by ``--explain``). Caller-given spans are typed as given: no stage runs.

Shipped stages: two conventions of English news, the general domain's, ``person_titles`` (``titles``) and
``sports_teams`` (``teams``); and ``abbreviations`` (``abbreviations``): a short form defined in the document,
"long form (SF)", typed as its long form's entity, the one stage that may add entities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..scoring import Entity
from . import abbreviations, phrases, teams, titles  # noqa: F401  (registers the shipped stages)
from .edges import tidy, tidy_bounds
from .registry import STAGES, LoadedStage, Stage, check_stage_types, load_stages, read_words, register, resolve_stages


def run_stages(text: str, entities: Sequence[Entity], stages: Sequence[str], folder: str | None = None
               ) -> list[Entity]:
    """``entities`` of ``text`` (kept and rejected candidates, in order) tidied, then the kept ones through
    ``stages`` in order, with the words of the labels ``folder`` (None: the shipped labels'); each entity a stage
    changed or added names it in ``stages``. A stage that returns as many entities as it got changes them in
    place; one that adds or drops entities has its output merged with the rejected candidates by start offset."""
    out = [e for e in (tidy(text, ent) for ent in entities) if e is not None]
    for stage in load_stages(stages, folder):
        kept = [i for i, e in enumerate(out) if e.kept]
        before = [out[i] for i in kept]
        after = stage.apply(text, before)
        if len(after) == len(before):  # one for one: each in its place
            for i, old, new in zip(kept, before, after):
                if new is not old:
                    out[i] = replace(new, stages=(*old.stages, stage.name))
            continue
        # entities added or dropped: those not among the stage's input are new (or changed copies) and name it;
        # the rejected candidates keep their places, the stage's entities go in by start offset
        ids = {id(e) for e in before}
        after = [e if id(e) in ids else replace(e, stages=(*e.stages, stage.name)) for e in after]
        spans = {(e.start, e.end) for e in after}
        rejected = [e for e in out if not e.kept and (e.start, e.end) not in spans]  # (a stage kept that span)
        out = sorted(rejected + after, key=lambda e: e.start)  # (stable: the stage's order among equal starts)
    return out


__all__ = ["STAGES", "LoadedStage", "Stage", "check_stage_types", "load_stages", "read_words", "register",
           "resolve_stages", "run_stages", "tidy", "tidy_bounds"]
