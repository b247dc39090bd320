"""A bounded memo of what a table judged: the strings a run meets again are judged once.

A corpus repeats its words and entity strings (Zipf), so the stages keep their verdicts; a long run meets ever more
new ones, so a memo that reaches its limit starts again rather than growing without end.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

LIMIT = 1 << 16  # the verdicts a memo keeps


class Memo(dict, Generic[K, V]):
    """``judge(key)`` by key, computed once; emptied when it holds ``limit`` verdicts (``LIMIT`` by default)."""

    def __init__(self, judge: Callable[[K], V], limit: int | None = None) -> None:
        super().__init__()
        self.judge, self.limit = judge, LIMIT if limit is None else limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.judge(key)
        return value
