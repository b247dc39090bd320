"""The ``leading_counts`` stage: an entity without the count that opens it.

English counts a noun phrase with a cardinal number before it — "15 papillary renal cell tumours", "two familial
aniridia", "nine tobramycin (patients)": the number says how many, not which, and the name starts after it. A
tagger that types a run of words takes the number along. The stage drops it: the first words of an entity that are
counts — digits alone, the number words of the labels' ``stages/leading_counts.yaml``, or the quantifiers there that
stand where a count does ("several transcription factors", "other cancers") — each followed by a space, when a
lower-case word of ``min_letters`` or more letters (in that file too) comes after them: a count comes before a
common noun or its adjective, from the entities of the file's ``types`` only (the domain's own): a measure is its
number ("2 years", "50 percent"). A number before a capitalised word is part of a name ("2016 Summer Olympics", "4
Vesta", "two IL6 mRNA" is left alone too), and so is one joined to the rest by a hyphen, a comma or a bracket ("5 -
FU", "1 , 25 - dihydroxyvitamin D3") or one before a single letter ("26 S proteasome")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..scoring import Entity
from .registry import Words, register

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class CountWords:
    """The number words and quantifiers that count (lower case)."""

    count_words: frozenset[str]
    min_letters: int = 2  # the word after the counts: lower case, at least this many letters
    cut_types: frozenset[str] | None = None  # the entity types whose counts are cut (None: every type)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted(self.cut_types or ()))

    @classmethod
    def read(cls, read: Words) -> CountWords:
        conf = read("leading_counts")
        # (the quantifiers and the types both optional: a folder saved before them lacks both)
        return cls(conf.lowered("number_words") | conf.lowered("quantifier_words", optional=True),
                   int(conf["min_letters"]), conf.listed_types())

    def count(self, word: str) -> bool:
        return word.isdigit() or word.lower() in self.count_words

    def cuts(self, ent: Entity) -> bool:
        """Whether ``ent``'s type loses its counts (a measure is its number: "2 years" keeps it)."""
        return self.cut_types is None or ent.type in self.cut_types


def count_end(text: str, words: CountWords) -> int:
    """Where the name starts in ``text`` (an entity's text) once its leading counts are cut; 0 when none."""
    first = _WORD.search(text)
    if first is None or not words.count(first.group()):  # (most names: no count to cut)
        return 0
    found = list(_WORD.finditer(text))
    k = 0
    while k + 1 < len(found) and words.count(found[k].group()):
        k += 1
    if k and len(rest := found[k].group()) >= words.min_letters and rest.isalpha() and rest[0].islower():
        return found[k].start()
    return 0


@register("leading_counts", CountWords,
          after=("phrase_bounds",))  # a count the phrases took in goes again
def leading_counts(text: str, entities: Sequence[Entity], words: CountWords) -> list[Entity]:
    """Each entity without the counts that open it (see the module docstring)."""
    out = []
    for ent in entities:
        cut = count_end(ent.text, words) if words.cuts(ent) else 0
        out.append(replace(ent, text=ent.text[cut:], start=ent.start + cut) if cut else ent)
    return out
