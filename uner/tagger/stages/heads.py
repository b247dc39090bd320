"""The ``head_subtypes`` stage: a name's head noun says which kind of its type it is.

English compounds are head-final: "the IL-2 gene" is a gene and "IL-2 mRNA" an RNA, whatever "IL-2" alone names. The
votes weigh the whole span, where the name's own reading (a protein) outweighs its last word, so a gene's DNA comes
out a protein. The stage gives an entity of two or more words whose type lists its last word (lower-cased) as a head
noun of one of the type's subtypes that subtype; the type, the edges and every other entity stay. Head nouns per type
and subtype: the labels' ``stages/head_subtypes.yaml``.

The ``named_lines`` stage: what the words before the head say. Biology names a cell line as it names a specimen, by
an eponym or a code ("Jurkat cells", "HeLa cells", "U937 cells", "HL-60 cells"), and a cell type by common words ("T
cells", "lymphoid cells", "NK cells"); the words alone type both as cells. An entity of the judged type and subtype
whose head noun is one of its heads and a word before it has the shape of a name (a capital before a lower-case
letter, or letters and digits in one word; a word that opens a sentence or a list item, or one of a title-case
heading, read without its capital), and that the domain's corpus never writes after "anti-" (antibodies are raised
against molecules: "CD4" is a cell type's marker), takes the subtype of cell lines. Type, subtypes, heads, shapes,
the marks that open a sentence and those before a molecule: the labels' ``stages/named_lines.yaml``.

The ``bare_heads`` stage: a head noun alone. The noun that says which kind a name is ("the IL-2 gene", "Jurkat
cells") names, standing alone, the kind and no member of it ("these genes", "the cells", "cDNAs"): an entity that is
one word and one of the head nouns of its type goes. The head nouns are those of the two stages above, read from
their files (the labels' ``stages/bare_heads.yaml`` names them).

The ``trailing_heads`` stage: the head noun after a name. The same compounds are written whole, "the TIMP-2 mRNA",
"the human megakaryocytic cell line": the name and its head noun together name the thing, and biomedical corpora
draw the entity so (a gene's DNA, its RNA, a cell line). A tagger that stops before the head ("TIMP-2" of "TIMP-2
mRNA") names another thing. An entity followed by one of its type's head nouns (the next word on its line,
lower-cased, that no other entity begins and no hyphen continues) is grown to take it; ``head_subtypes`` after it
then gives the subtype the head names. The head nouns are those of ``head_subtypes`` (the labels'
``stages/trailing_heads.yaml`` names them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from ...vocab.phrase_counts import PhraseCounts, tokens
from ..scoring import Entity
from .registry import Settings, Words, register
from .shared import load_counts


HYPHEN = re.compile(r"\s*-\s*")  # ("HL - 60" as "HL-60")
# the word after an entity on its line ("IL-2 mRNA", "c-jun proto-oncogene"), not one a hyphen continues ("gene -
# specific" as "gene-specific")
NEXT_WORD = re.compile(r"[^\S\n]+([A-Za-z][\w-]*)(?![\w-]|\s*-\s*\w)")


def subtype_nouns(heads: Settings) -> dict[str, dict[str, str]]:
    """Settings of head nouns per type and subtype as type → head noun (lower-cased) → the subtype it names."""
    return {str(t): {w: str(sub) for sub in subs for w in subs.lowered(sub)} for t, subs in heads.items()}


def head_sets(heads: Settings) -> dict[str, AbstractSet[str]]:
    """Settings of head nouns per type and subtype as type → its head nouns (lower-cased): the keys of
    ``subtype_nouns``, the one reading of such settings."""
    return {t: nouns.keys() for t, nouns in subtype_nouns(heads).items()}


@dataclass(frozen=True)
class HeadWords:
    """Per entity type, each head noun (lower-cased) with the subtype it names."""

    heads: dict[str, dict[str, str]]

    @classmethod
    def read(cls, read: Words) -> HeadWords:
        return cls(subtype_nouns(read("head_subtypes")["heads"]))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.heads)


# the head noun that a name took in names its subtype ("TIMP-2 mRNA")
@register("head_subtypes", HeadWords, after=("trailing_heads",))
def head_subtypes(text: str, entities: Sequence[Entity], words: HeadWords) -> list[Entity]:
    """Each entity with the subtype its head noun names (see the module docstring)."""
    out = []
    for ent in entities:
        parts = ent.text.split()
        sub = words.heads.get(ent.type, {}).get(parts[-1].lower()) if len(parts) > 1 else None
        out.append(ent if sub is None or sub == ent.subtype else replace(ent, subtype=sub))
    return out


@dataclass(frozen=True)
class LineWords:
    """The entities judged (a type and subtype), their head nouns, the subtype they take, and what a name looks
    like."""

    type: str
    subtype: str
    to: str
    heads: frozenset[str]
    shapes: tuple[re.Pattern, ...]
    openers: frozenset[str]  # the marks after which a word opens a sentence or a list item
    counts: PhraseCounts
    molecule_marks: tuple[tuple[str, ...], ...]  # token sequences the corpus writes before a molecule's name

    @classmethod
    def read(cls, read: Words) -> LineWords:
        conf = read("named_lines")
        try:
            shapes = tuple(re.compile(str(s)) for s in conf["shapes"])
        except re.error as exc:
            raise ValueError(f"{read.path('named_lines.yaml')}: shapes: not a regular expression ({exc})") from None
        return cls(str(conf["type"]), str(conf["from"]), str(conf["to"]),
                   conf.lowered("heads"), shapes, frozenset(map(str, conf["openers"])),
                   load_counts(read.path(conf["counts"])),
                   tuple(tuple(t for t, _, _ in tokens(str(m))) for m in conf["molecule_marks"]))

    @property
    def types(self) -> tuple[str, ...]:
        return (self.type,)

    def named(self, text: str, ent: Entity) -> bool:
        """Whether a word of ``ent`` before its head noun looks like a name. A capital that every such word has says
        nothing, so a word that opens a sentence or a list item, and every word of a heading's title case (the head
        capitalised, "Red Blood Cells"), is read without its first one ("Jurkat" says nothing there, "U937" does)."""
        parts = HYPHEN.sub("-", ent.text).split()
        if len(parts) < 2 or parts[-1].lower() not in self.heads:
            return False
        before = text[: ent.start].rstrip()
        uncap = len(parts) - 1 if parts[-1][0].isupper() else int(not before or before[-1] in self.openers)
        words = [w[0].lower() + w[1:] for w in parts[:uncap]] + parts[uncap:-1]
        return any(shape.match(word) and not self.molecule(word) for word in words for shape in self.shapes)

    def molecule(self, word: str) -> bool:
        """Whether the corpus writes ``word`` after one of the molecule marks ("anti-CD4": antibodies are raised
        against molecules, a marker of a cell type, never against a cell line)."""
        toks = tuple(t for t, _, _ in tokens(word))
        return any(self.counts.count(mark + toks) for mark in self.molecule_marks)


@register("named_lines", LineWords,
          after=("trailing_heads",))  # the cells a name took in ("U937 cells")
def named_lines(text: str, entities: Sequence[Entity], words: LineWords) -> list[Entity]:
    """Each entity of the judged type and subtype named by a proper name or a code with the subtype ``to`` (see the
    module docstring)."""
    return [replace(ent, subtype=words.to)
            if ent.type == words.type and ent.subtype == words.subtype and words.named(text, ent) else ent
            for ent in entities]


@dataclass(frozen=True)
class BareHeadWords:
    """Per entity type, its head nouns (lower-cased): those of ``head_subtypes`` and the cells' of ``named_lines``."""

    heads: dict[str, AbstractSet[str]]

    @classmethod
    def read(cls, read: Words) -> BareHeadWords:
        conf = read("bare_heads")
        heads = head_sets(conf["subtype_heads"])
        cells = str(conf["cell_type"])
        heads[cells] = conf.lowered("cell_heads").union(heads.get(cells, ()))
        return cls(heads)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.heads)


@register("bare_heads", BareHeadWords)
def bare_heads(text: str, entities: Sequence[Entity], words: BareHeadWords) -> list[Entity]:
    """``entities`` without those that are a head noun of their type alone (see the module docstring)."""
    return [ent for ent in entities if ent.text.lower() not in words.heads.get(ent.type, ())]


@dataclass(frozen=True)
class TrailingHeadWords(BareHeadWords):
    """Per entity type, the head nouns (lower-cased) that a name of the type takes when one follows it: those of
    ``head_subtypes``."""

    @classmethod
    def read(cls, read: Words) -> TrailingHeadWords:
        return cls(head_sets(read("trailing_heads")["subtype_heads"]))


@register("trailing_heads", TrailingHeadWords,
          after=("phrase_bounds", "name_pieces"))  # the name's own edges first
def trailing_heads(text: str, entities: Sequence[Entity], words: TrailingHeadWords) -> list[Entity]:
    """Each entity followed by a head noun of its type that no other entity begins, grown to take it (see the
    module docstring)."""
    starts = [e.start for e in entities]
    out = []
    for ent in entities:
        heads = words.heads.get(ent.type)
        after = NEXT_WORD.match(text, ent.end) if heads else None
        if after and after.group(1).lower() in heads and not any(ent.end <= s < after.end(1) for s in starts):
            ent = replace(ent, text=text[ent.start : after.end(1)], end=after.end(1))
        out.append(ent)
    return out
