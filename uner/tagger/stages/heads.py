"""The ``head_subtypes`` stage: a name's head noun says which kind of its type it is.

English compounds are head-final: "the IL-2 gene" is a gene and "IL-2 mRNA" an RNA, whatever "IL-2" alone names. The
votes weigh the whole span, where the name's own reading (a protein) outweighs its last word, so a gene's DNA comes
out a protein. The stage gives an entity of two or more words whose type lists its last word (lower-cased) as a head
noun of one of the type's subtypes that subtype; the type, the edges and every other entity stay. Head nouns per type
and subtype: the labels' ``stages/head_subtypes.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..scoring import Entity
from .registry import Words, register


@dataclass(frozen=True)
class HeadWords:
    """Per entity type, each head noun (lower-cased) with the subtype it names."""

    heads: dict[str, dict[str, str]]

    @classmethod
    def read(cls, read: Words) -> HeadWords:
        conf = read("head_subtypes")["heads"]
        return cls({str(t): {str(w).lower(): str(sub) for sub, nouns in subs.items() for w in nouns}
                    for t, subs in conf.items()})

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.heads)


@register("head_subtypes", HeadWords)
def head_subtypes(text: str, entities: Sequence[Entity], words: HeadWords) -> list[Entity]:
    """Each entity with the subtype its head noun names (see the module docstring)."""
    out = []
    for ent in entities:
        parts = ent.text.split()
        sub = words.heads.get(ent.type, {}).get(parts[-1].lower()) if len(parts) > 1 else None
        out.append(ent if sub is None or sub == ent.subtype else replace(ent, subtype=sub))
    return out
