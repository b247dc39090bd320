"""The ``person_titles`` stage: a person's name without the titles written before it.

"President Boris Yeltsin" → "Boris Yeltsin", "Foreign Minister Primakov" → "Primakov", as the CoNLL, OntoNotes and
ACE guidelines annotate names. Candidate spans keep the title (the same words open organisation names: "General
Motors"), so the cut waits until a span is typed a person. Word lists: the labels' ``stages/person_titles.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..scoring import Entity
from .registry import Words, register, shipped


@dataclass(frozen=True)
class TitleWords:
    """Title words, the lower-case particles a name may hold after its first word ("F.W. de Klerk", "Zayed bin
    Sultan", "Bashar al-Assad"), the suffixes that end a name ("Jr."), and the person type."""

    titles: frozenset[str]
    particles: frozenset[str]
    suffixes: frozenset[str]
    person: str

    @classmethod
    def read(cls, read: Words) -> TitleWords:
        data = read("person_titles")
        connectors = frozenset(w for w in read("name_joins")["connectors"] if w.isalpha())  # ("de", "van"; not "&")
        return cls(frozenset(data["titles"]), connectors | frozenset(data["particles"]),
                   frozenset(data["suffixes"]), data["types"]["person"])

    @property
    def types(self) -> tuple[str, ...]:
        return (self.person,)


def strip_title(text: str, start: int, end: int, words: TitleWords | None = None) -> int:
    """The start of a person's name inside ``text[start:end]`` once the titles before it are cut: everything up to
    the end of the first run of title words ("Prime Minister", "Secretary-General") when a name follows it — a
    capitalised word, then capitalised words or name particles, not only titles or "Jr.", "II"; ``start`` when
    none. "U.S. Ambassador Bill Richardson" → "Bill Richardson"; "Stephen King", "Prime Minister" stay. ``words``:
    the shipped labels' by default."""
    w = words or shipped(TitleWords)
    found = [(m.start() + start, m.group()) for m in re.finditer(r"\S+", text[start:end])]
    first = next((i for i, (_, word) in enumerate(found) if _is_title(word, w)), None)
    if first is None:
        return start
    cut = first
    while cut < len(found) and _is_title(found[cut][1], w):
        cut += 1
    rest = [word for _, word in found[cut:]]
    if rest and rest[0][:1].isupper() and all(word[:1].isupper() or _is_particle(word, w) for word in rest) and any(
            not _is_title(word, w) and word.lower().rstrip(".") not in w.suffixes for word in rest):
        return found[cut][0]
    return start


def _is_title(word: str, w: TitleWords) -> bool:
    """A title word, alone or hyphenated ("Secretary-General", "President-elect", "Vice-President")."""
    return word.lower().rstrip(".").split("-")[0] in w.titles


def _is_particle(word: str, w: TitleWords) -> bool:
    """A lower-case name particle, alone ("de", "bin") or hyphenated to the name ("al-Assad")."""
    return word in w.particles or bool(re.fullmatch(r"[a-z]{1,3}-[A-Z]\S*", word))


@register("person_titles", TitleWords)
def person_titles(text: str, entities: Sequence[Entity], words: TitleWords) -> list[Entity]:
    """Each person entity without the titles before the name; other entities as they are."""
    out = []
    for ent in entities:
        start = strip_title(text, ent.start, ent.end, words) if ent.type == words.person else ent.start
        out.append(ent if start == ent.start else replace(ent, text=text[start : ent.end], start=start))
    return out
