"""The ``word_endings`` and ``word_shapes`` stages: a word no entity covers, typed by the ending its corpus's words
of a type share, or by the shape its corpus's symbols of a type share.

The ``lexicon`` stage adds the terms the domain's tagged corpus says often; a rare name ("catalepsy", "reserpine")
is not among them, but it is built like the names that are: the corpus's tagger types the words it has seen ending
in "-epsy" ("epilepsy", "narcolepsy") as diseases and most of those ending in "-pine" as drugs
(``uner.vocab.endings``, a table made by ``uner endings`` from ``uner tag`` output). A word of letters that no kept
entity overlaps and whose longest kept ending types it is added, scored by the ending's precision. The table, the
types whose endings count, the least precision and the least stem: the labels' ``stages/word_endings.yaml``.

A gene is named by a symbol, not built from stems: the corpus's tagger types most of the symbols it has seen written
like "p53" or "Stat3" as genes (``uner.vocab.shapes``), so a rare one ("p230", "Mus81p") no kept entity covers is
added by its shape, scored by the shape's precision (``stages/word_shapes.yaml``: the table, its types, the least
precision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...vocab.endings import Endings, WordClass
from ...vocab.shapes import Shapes
from ..scoring import Entity
from .lexicon import add_uncovered, load_table
from .registry import Words, register


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
    """``entities`` and the words of ``text`` that a kept ending types and no entity overlaps, in order."""
    return _add_typed(text, entities, words.endings.find(text))


@dataclass(frozen=True)
class ShapeWords:
    """The shapes sure enough to type a symbol."""

    shapes: Shapes

    @property
    def types(self) -> tuple[str, ...]:
        return self.shapes.types

    @classmethod
    def read(cls, read: Words) -> ShapeWords:
        conf = read("word_shapes")
        return cls(load_table(read, conf, Shapes.load).select(conf.listed_types(), float(conf["min_precision"])))


@register("word_shapes", ShapeWords)
def word_shapes(text: str, entities: Sequence[Entity], words: ShapeWords) -> list[Entity]:
    """``entities`` and the symbols of ``text`` that a kept shape types and no entity overlaps, in order."""
    return _add_typed(text, entities, words.shapes.find(text))


def _add_typed(text: str, entities: Sequence[Entity], found: list[tuple[int, int, WordClass]]) -> list[Entity]:
    """``entities`` and the words ``found`` in ``text`` that none overlaps, each typed by its class and scored by the
    class's precision."""
    return add_uncovered(entities, (Entity(text[s:e], s, e, c.type, c.subtype, c.precision) for s, e, c in found))
