"""The undo history of the annotation page: what each step changed, so it can be reverted or replayed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..labels import HUMAN_KEYS


def human(entry: dict) -> dict:
    """The human fields the entry has (absent ones stay absent when restored)."""
    return {k: entry[k] for k in HUMAN_KEYS if k in entry}


def restore(entry: dict, fields: dict) -> None:
    """Set the entry's human fields to ``fields``, removing those it does not hold."""
    for k in HUMAN_KEYS:
        if k in fields:
            entry[k] = fields[k]
        else:
            entry.pop(k, None)


@dataclass
class Change:
    """One cluster's human fields before and after a change."""

    id: int
    before: dict
    after: dict


@dataclass
class Step:
    """One entry of the undo history: a decision or a bulk accept."""

    what: str
    changes: list[Change]
    version: int
    when: float = field(default_factory=time.time)

    def view(self, pivots: dict[int, str]) -> dict:
        return {"what": self.what, "version": self.version, "when": self.when,
                "clusters": [[c.id, pivots.get(c.id, "?")] for c in self.changes]}
