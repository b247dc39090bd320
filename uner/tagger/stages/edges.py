"""Entity edges: no whitespace, invisible characters or stray punctuation at either end of an entity.

Every engine's entities pass through ``tidy`` before the named stages (a student can tag a run of no-break spaces,
"(714 – 24 September 768" as written on Wikipedia). Kept at the edges: letters, digits, marks and symbols ("C++",
"$5", "90 %"), "#" and "@" ("C#", "@user"), a dot after a letter ("U.S.", "Inc."), and brackets or quotes whose
partner is inside the entity ("Kmart (U.S.)"). A span with nothing left is dropped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from ..scoring import Entity

_PAIRS = {"(": ")", "[": "]", "{": "}", "“": "”", "‘": "’", "«": "»", "‹": "›", '"': '"', "'": "'"}
_CLOSERS = {close: open_ for open_, close in _PAIRS.items()}
_WORD_PUNCT = frozenset("#@%&*/\\§†‰")  # punctuation by Unicode category, but part of names and figures


def _blank(ch: str) -> bool:
    """Whitespace of any kind and invisible format characters (no-break, thin and zero-width spaces, BOM)."""
    return ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf")


def _loose(text: str, i: int, start: int, end: int) -> bool:
    """Whether character ``i`` of ``text[start:end]`` (at one of its edges) can go."""
    ch = text[i]
    if ch.isalnum():  # (most edges: a letter or digit stays)
        return False
    if _blank(ch):
        return True
    if not unicodedata.category(ch).startswith("P") or ch in _WORD_PUNCT:
        return False
    if ch == "." and i == end - 1 and i > start and text[i - 1].isalpha():
        return False  # an abbreviation's dot
    if i == start and ch in _PAIRS:
        return _PAIRS[ch] not in text[start + 1 : end - 1]  # its closer inside (not at the far edge): keep
    if i == end - 1 and ch in _CLOSERS:
        return _CLOSERS[ch] not in text[start + 1 : end - 1]
    return True


def tidy_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """``start``, ``end`` moved inwards past loose edge characters; ``start == end`` when nothing is left."""
    while True:
        before = (start, end)
        while start < end and _loose(text, start, start, end):
            start += 1
        while start < end and _loose(text, end - 1, start, end):
            end -= 1
        if (start, end) == before:
            return start, end


def tidy(text: str, ent: Entity) -> Entity | None:
    """``ent`` with its edges tidied (the same object when they already are), None when nothing is left."""
    start, end = tidy_bounds(text, ent.start, ent.end)
    if start == end:
        return None
    if (start, end) == (ent.start, ent.end) and ent.text == text[start:end]:
        return ent
    return replace(ent, text=text[start:end], start=start, end=end, stages=(*ent.stages, "tidy"))
