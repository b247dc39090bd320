"""The ``lexicon`` stage: the domain's terms, learned from its tagged corpus, found where one sentence missed them.

The tagger judges each span from one sentence; the same term elsewhere in the domain's corpus may have been typed
surely many times (``uner.vocab.lexicon``: a table made by ``uner lexicon`` from ``uner tag`` output). A term that
the tagger calls an entity in most of its corpus occurrences, nearly always with one type, is added where it stands
in the text and no kept entity overlaps it, typed as in the corpus, scored by its type's share of its tags. The
table, how sure a term must be to count, and the types whose terms are added: the labels' ``stages/lexicon.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...vocab.lexicon import Lexicon
from ..scoring import Entity
from .registry import Words, register


@dataclass(frozen=True)
class LexiconWords:
    """The terms sure enough to be added."""

    lexicon: Lexicon

    @property
    def types(self) -> tuple[str, ...]:
        return self.lexicon.types

    @classmethod
    def read(cls, read: Words) -> LexiconWords:
        conf = read("lexicon")
        path = read.path(conf["table"])
        try:
            table = Lexicon.load(path)
        except OSError as exc:
            raise ValueError(f"{path}: {exc.strerror}") from None
        types = conf.get("types")
        return cls(table.select(int(conf["min_tagged"]), float(conf["min_rate"]), float(conf["min_share"]),
                                None if types is None else frozenset(map(str, types))))


@register("lexicon", LexiconWords)
def lexicon(text: str, entities: Sequence[Entity], words: LexiconWords) -> list[Entity]:
    """``entities`` and the lexicon's terms in ``text`` that no entity overlaps, in order."""
    added = [Entity(text[s:e], s, e, term.type, term.subtype, term.share)
             for s, e, term in words.lexicon.find(text)
             if not any(ent.start < e and s < ent.end for ent in entities)]
    return sorted([*entities, *added], key=lambda e: e.start) if added else list(entities)
