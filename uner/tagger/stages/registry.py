"""The stage registry: post-typing stages by name, with the entity types each one reads or writes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from ..scoring import Entity

StageFn = Callable[[str, Sequence[Entity]], list[Entity]]


@dataclass(frozen=True)
class Stage:
    """A named step over one document's kept entities: returns them in order, each the same object or a changed
    copy (retyped, re-bounded). Most stages return as many as they got, each in its place; a stage may also add
    entities or drop some (``abbreviations`` adds the short-form mentions the tagger missed): then every entity
    that is not one of its input objects counts as new or changed, and ``run_stages`` puts its output in start
    order. ``types``: the entity types it names, which the labels' ``types.yaml`` must have."""

    name: str
    apply: StageFn
    types: tuple[str, ...]


STAGES: dict[str, Stage] = {}


def register(name: str, types: Iterable[str] = ()) -> Callable[[StageFn], StageFn]:
    """Decorator: register ``fn(text, entities) -> entities`` as the stage ``name``."""
    def add(fn: StageFn) -> StageFn:
        if name in STAGES:
            raise ValueError(f"stage {name!r} is registered twice")
        STAGES[name] = Stage(name, fn, tuple(types))
        return fn
    return add


@cache
def stage_data(name: str) -> dict:
    """A stage's word lists and type names: ``data/<name>.yaml`` beside this module."""
    return yaml.safe_load(resources.files(__package__).joinpath("data", f"{name}.yaml").read_text(encoding="utf-8"))


def resolve_stages(names: Iterable[str]) -> tuple[Stage, ...]:
    """The registered stages called ``names``, in that order; ValueError naming an unknown one."""
    out = []
    for name in names:
        if name not in STAGES:
            raise ValueError(f"unknown stage {name!r} (registered: {', '.join(sorted(STAGES)) or 'none'})")
        out.append(STAGES[name])
    return tuple(out)


def check_stage_types(names: Iterable[str], known_types: Iterable[str]) -> None:
    """ValueError when a stage names an entity type that the labels do not have."""
    known = set(known_types)
    for stage in resolve_stages(names):
        missing = [t for t in stage.types if t not in known]
        if missing:
            raise ValueError(f"stage {stage.name!r} needs the type(s) {', '.join(missing)}, which these labels do not have "
                             "(list the stages to run in tagger.yaml's 'stages' entry)")
