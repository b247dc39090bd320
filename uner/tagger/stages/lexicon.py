"""The ``lexicon`` stage: the domain's terms, learned from its tagged corpus, found where one sentence missed them.

The tagger judges each span from one sentence; the same term elsewhere in the domain's corpus may have been typed
surely many times (``uner.vocab.lexicon_table``: a table made by ``uner lexicon`` from ``uner tag`` output). A term that
the tagger calls an entity in most of its corpus occurrences, nearly always with one type, is added where it stands
in the text and no kept entity overlaps it, typed as in the corpus, scored by its type's share of its tags. The
table, how sure a term must be to count, and the types whose terms are added: the labels' ``stages/lexicon.yaml``.

The ``rarely_tagged`` stage reads the same table the other way: which strings are common words that the tagger now
and then calls a name. "protein", "gene", "promoter" are tagged in 6–29 % of their occurrences in the biomedical
abstracts, "p53" and "insulin" in about half; an entity of the listed ``types`` whose string (words of letters only:
"c-fos" is often tagged inside a longer span; nor a symbol written with a capital, "IgG", with ``name_letters``) was
tagged in fewer than ``below`` of its occurrences goes. Its table, threshold and types: the labels'
``stages/rarely_tagged.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...vocab.lexicon_table import Lexicon
from ...vocab.phrase_counts import cached_tokens
from ..scoring import Entity
from .registry import Words, register
from .shared import add_uncovered, rare_terms, sure_terms

@dataclass(frozen=True)
class LexiconWords:
    """The terms sure enough to be added."""

    lexicon: Lexicon

    @property
    def types(self) -> tuple[str, ...]:
        return self.lexicon.types

    @classmethod
    def read(cls, read: Words) -> LexiconWords:
        return cls(sure_terms(read, read("lexicon")))


@dataclass(frozen=True)
class RareWords:
    """The table's rarely tagged terms, and the entity types judged by them."""

    rare: Lexicon
    types: tuple[str, ...]

    @classmethod
    def read(cls, read: Words) -> RareWords:
        conf = read("rarely_tagged")
        return cls(rare_terms(read, conf), tuple(map(str, conf["types"])))


@register("lexicon", LexiconWords)
def lexicon(text: str, entities: Sequence[Entity], words: LexiconWords) -> list[Entity]:
    """``entities`` and the lexicon's terms in ``text`` that no entity overlaps, in order."""
    return add_uncovered(entities, (Entity(text[s:e], s, e, term.type, term.subtype, term.share)
                                    for s, e, term in words.lexicon.find(text)))


@register("rarely_tagged", RareWords)
def rarely_tagged(text: str, entities: Sequence[Entity], words: RareWords) -> list[Entity]:
    """``entities`` without those of the judged types whose string the corpus's tagger rarely tagged."""
    return [ent for ent in entities if ent.type not in words.types
            or tuple(t for t, _, _ in cached_tokens(ent.text)) not in words.rare.terms]
