"""The ``person_titles`` stage: a person's name without the titles written before it.

"President Boris Yeltsin" → "Boris Yeltsin", "Foreign Minister Primakov" → "Primakov", as the CoNLL, OntoNotes and
ACE guidelines annotate names. Candidate spans keep the title (the same words open organisation names: "General
Motors"), so the cut waits until a span is typed a person. Word lists: ``data/person_titles.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ...spans import NAME_CONNECTORS
from ..scoring import Entity
from .registry import register, stage_data

_DATA = stage_data("person_titles")
TITLE_WORDS = frozenset(_DATA["titles"])
# lower-case words a name may hold after its first word: "F.W. de Klerk", "Zayed bin Sultan", "Bashar al-Assad"
NAME_PARTICLES = (NAME_CONNECTORS - {"of", "&"}) | frozenset(_DATA["particles"])
NAME_SUFFIXES = frozenset(_DATA["suffixes"])
PERSON = _DATA["types"]["person"]


def strip_title(text: str, start: int, end: int) -> int:
    """The start of a person's name inside ``text[start:end]`` once the titles before it are cut: everything up to
    the end of the first run of title words ("Prime Minister", "Secretary-General") when a name follows it — a
    capitalised word, then capitalised words or name particles, not only titles or "Jr.", "II"; ``start`` when
    none. "U.S. Ambassador Bill Richardson" → "Bill Richardson"; "Stephen King", "Prime Minister" stay."""
    words = [(m.start() + start, m.group()) for m in re.finditer(r"\S+", text[start:end])]
    first = next((i for i, (_, w) in enumerate(words) if _is_title(w)), None)
    if first is None:
        return start
    cut = first
    while cut < len(words) and _is_title(words[cut][1]):
        cut += 1
    rest = [w for _, w in words[cut:]]
    if rest and rest[0][:1].isupper() and all(w[:1].isupper() or _is_particle(w) for w in rest) and any(
            not _is_title(w) and w.lower().rstrip(".") not in NAME_SUFFIXES for w in rest):
        return words[cut][0]
    return start


def _is_title(word: str) -> bool:
    """A title word, alone or hyphenated ("Secretary-General", "President-elect", "Vice-President")."""
    return word.lower().rstrip(".").split("-")[0] in TITLE_WORDS


def _is_particle(word: str) -> bool:
    """A lower-case name particle, alone ("de", "bin") or hyphenated to the name ("al-Assad")."""
    return word in NAME_PARTICLES or bool(re.fullmatch(r"[a-z]{1,3}-[A-Z]\S*", word))


@register("person_titles", types=tuple(_DATA["types"].values()))
def person_titles(text: str, entities: Sequence[Entity]) -> list[Entity]:
    """Each person entity without the titles before the name; other entities as they are."""
    out = []
    for ent in entities:
        start = strip_title(text, ent.start, ent.end) if ent.type == PERSON else ent.start
        out.append(ent if start == ent.start else replace(ent, text=text[start : ent.end], start=start))
    return out
