"""Post-typing stages (docs/design.md §3.3d): what happens to one document's typed entities after the votes.

spans → masked inputs → votes → type → **stages** → records. Every engine (teacher, student, ensemble, and the
process and Ray runners through them) ends in ``run_stages``: the entities' edges are tidied first (``edges``;
always), then the named stages listed for the domain run in order (``TaggerConfig.stages``, set per domain and
overridable in the labels' ``tagger.yaml`` or with ``uner tag --stages``). A stage is registered by name
(``registry.register``) and keeps its word lists in ``data/<name>.yaml``; each entity records the stages that
changed it (``Entity.stages``, shown by ``--explain``). Caller-given spans are typed as given: no stage runs.

Shipped stages, both conventions of English news (the general domain's; the biomedical domain runs none):
``person_titles`` (``titles``) and ``sports_teams`` (``teams``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..scoring import Entity
from . import teams, titles  # noqa: F401  (registers the shipped stages)
from .edges import tidy, tidy_bounds
from .registry import STAGES, Stage, check_stage_types, register, resolve_stages, stage_data


def run_stages(text: str, entities: Sequence[Entity], stages: Sequence[str]) -> list[Entity]:
    """``entities`` of ``text`` (kept and rejected candidates, in order) tidied, then the kept ones through
    ``stages`` in order; each entity a stage changed names it in ``stages``."""
    out = [e for e in (tidy(text, ent) for ent in entities) if e is not None]
    kept = [i for i, e in enumerate(out) if e.kept]
    for stage in resolve_stages(stages):
        before = [out[i] for i in kept]
        after = stage.apply(text, before)
        if len(after) != len(before):
            raise RuntimeError(f"stage {stage.name!r} returned {len(after)} entities for {len(before)}")
        for i, old, new in zip(kept, before, after):
            if new is not old:
                out[i] = replace(new, stages=(*old.stages, stage.name))
    return out


__all__ = ["STAGES", "Stage", "check_stage_types", "register", "resolve_stages", "run_stages", "stage_data", "tidy",
           "tidy_bounds"]
