"""The ``word_endings`` stage: a word no entity covers, typed by the ending its corpus's words of a type share.

The ``lexicon`` stage adds the terms the domain's tagged corpus says often; a rare name ("catalepsy", "reserpine")
is not among them, but it is built like the names that are: the corpus's tagger types the words it has seen ending
in "-epsy" ("epilepsy", "narcolepsy") as diseases and most of those ending in "-pine" as drugs
(``uner.vocab.ending_table``, a table made by ``uner endings`` from ``uner tag`` output). A word of letters that no kept
entity overlaps and whose longest kept ending types it is added, scored by the ending's precision. The table, the
types whose endings count, the least precision and the least stem: the labels' ``stages/word_endings.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...vocab.ending_table import Endings
from ..scoring import Entity
from .registry import Words, register
from .shared import add_uncovered, load_table


@dataclass(frozen=True)
class EndingWords:
    """The endings sure enough to type a word (and the letters a word keeps before one)."""

    endings: Endings

    @property
    def types(self) -> tuple[str, ...]:
        return self.endings.types

    @classmethod
    def read(cls, read: Words) -> EndingWords:
        conf = read("word_endings")
        return cls(load_table(read, conf, Endings.load).select(conf.listed_types(), float(conf["min_precision"]),
                                                                int(conf["min_stem"])))


@register("word_endings", EndingWords)
def word_endings(text: str, entities: Sequence[Entity], words: EndingWords) -> list[Entity]:
    """``entities`` and the words of ``text`` that a kept ending types and no entity overlaps, in order, each typed by
    its ending and scored by the ending's precision."""
    return add_uncovered(entities, (Entity(text[s:e], s, e, c.type, c.subtype, c.precision)
                                    for s, e, c in words.endings.find(text)))
