"""The ``lexicon`` stage: the domain's terms, learned from its tagged corpus, found where one sentence missed them.

The tagger judges each span from one sentence; the same term elsewhere in the domain's corpus may have been typed
surely many times (``uner.vocab.lexicon``: a table made by ``uner lexicon`` from ``uner tag`` output). A term that
the tagger calls an entity in most of its corpus occurrences, nearly always with one type, is added where it stands
in the text and no kept entity overlaps it, typed as in the corpus, scored by its type's share of its tags. The
table, how sure a term must be to count, and the types whose terms are added: the labels' ``stages/lexicon.yaml``.

The same table says which strings are common words that the tagger now and then calls a name: "protein", "gene",
"promoter" are tagged in 6–29 % of their occurrences in the biomedical abstracts, "p53" and "insulin" in about half.
An entity of the ``drop_types`` whose string is words of letters only (a name such as "c-fos" or "IL-2", which the
tagger often tags as part of a longer span, is not judged) and which the table holds with a tag rate below
``drop_below`` goes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...vocab.lexicon import Lexicon
from ...vocab.phrases import tokens
from ..scoring import Entity
from .registry import Words, register


@dataclass(frozen=True)
class LexiconWords:
    """The terms sure enough to be added, and the strings too rarely tagged to stay entities of ``drop_types``."""

    lexicon: Lexicon
    rare: frozenset[tuple[str, ...]] = frozenset()
    drop_types: frozenset[str] = frozenset()

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.lexicon.types) | self.drop_types))

    @classmethod
    def read(cls, read: Words) -> LexiconWords:
        conf = read("lexicon")
        path = read.path(conf["table"])
        try:
            table = Lexicon.load(path)
        except OSError as exc:
            raise ValueError(f"{path}: {exc.strerror}") from None
        types = conf.get("types")
        below = float(conf.get("drop_below", 0.0))
        return cls(table.select(int(conf["min_tagged"]), float(conf["min_rate"]), float(conf["min_share"]),
                                None if types is None else frozenset(map(str, types))),
                   frozenset(k for k, t in table.terms.items() if t.rate < below and all(w.isalpha() for w in k)),
                   frozenset(map(str, conf.get("drop_types", ()))))


@register("lexicon", LexiconWords)
def lexicon(text: str, entities: Sequence[Entity], words: LexiconWords) -> list[Entity]:
    """``entities`` without the rarely tagged strings of the drop types, and the lexicon's terms in ``text`` that no
    entity overlaps, in order."""
    if words.rare:
        entities = [ent for ent in entities if ent.type not in words.drop_types
                    or tuple(t for t, _, _ in tokens(ent.text)) not in words.rare]
    added = [Entity(text[s:e], s, e, term.type, term.subtype, term.share)
             for s, e, term in words.lexicon.find(text)
             if not any(ent.start < e and s < ent.end for ent in entities)]
    return sorted([*entities, *added], key=lambda e: e.start) if added else list(entities)
