"""The ``repeated_names`` stage: a name tagged once in a document is tagged where the document writes it again.

A document names the same thing with the same string ("one sense per discourse", Gale, Church and Yarowsky 1992;
label consistency across a document, Krishnan and Manning 2006): "dobutamine" tagged in the first sentence of an
abstract is the same drug in the fifth, where its context may give the tagger less to go on ("dobutamine was
stopped"). So each kept entity's exact text (case and all) is looked for again in the document, bounded by neither
a word character nor a hyphen as a short form is (``shared.mentions``), longer names first, and a mention
that no kept entity overlaps is **added** as a copy of the nearest tagged mention before it (else the first after
it): its type, subtype, score and vote distribution ("IL-2 receptor" is found whole before "IL-2" inside it is
looked at). Entities are never retyped, re-bounded or dropped: a mention that the tagger tagged otherwise keeps
what it was given.

Not every tagged string is a name. Strings without a letter ("2", "%") are not looked for, nor the common words
that the domain's tagger now and then calls a name — those its tagged corpus tags in fewer than ``below`` of their
occurrences ("acute" 11 %, "severe" 7 %, "renal" 5 %, "disease" 27 %), read from the lexicon table as the
``rarely_tagged`` stage reads it (``lexicon.rare_terms``): a tagger's slip stays one slip. Only the entities of the
listed ``types`` are looked for (the domain's own: not "patients"). Settings: the labels'
``stages/repeated_names.yaml``.

A document that comes as several texts (a gold file of sentences) is read through ``run_in_context``: a text's
names, those found again among them, are what it carries to the next texts, so a name tagged in one sentence is
found in the later ones of its document (not in the earlier ones: texts are read in order, once), and it travels on
as long as the document keeps writing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...vocab.lexicon_table import Lexicon
from ...vocab.phrase_counts import cached_tokens
from ..scoring import Entity
from .registry import Words, register
from .shared import mentions, rare_terms


@dataclass(frozen=True)
class RepeatWords:
    """The common words that the domain's tagger now and then calls a name: not looked for again."""

    common: Lexicon
    types: tuple[str, ...]  # the types whose names are looked for again (none: all)

    @classmethod
    def read(cls, read: Words) -> RepeatWords:
        conf = read("repeated_names")
        return cls(rare_terms(read, conf), tuple(sorted(conf.listed_types() or ())))

    def is_name(self, ent: Entity) -> bool:
        """Whether ``ent`` names something to look for again: of the types looked for, its text holds a letter
        and is no common word."""
        return ((not self.types or ent.type in self.types) and any(c.isalpha() for c in ent.text)
                and tuple(t for t, _, _ in cached_tokens(ent.text)) not in self.common.terms)


def named(text: str, entities: Sequence[Entity], words: RepeatWords) -> tuple[str, ...]:
    """The texts of the kept entities that are names: what the next texts of the document may mention again
    (``Stage.document``)."""
    return tuple(e.text for e in entities if e.kept and words.is_name(e))


# it carries the names that the other stages of the domain settled
@register("repeated_names", RepeatWords, document=named,
          after=("abbreviations", "phrase_bounds", "word_endings", "hyphen_compounds", "name_pieces",
                 "degree_modifiers", "leading_counts", "rarely_tagged", "lexicon", "class_nouns", "bare_heads",
                 "coordinated_heads", "trailing_heads"))
def repeated_names(text: str, entities: Sequence[Entity], words: RepeatWords) -> list[Entity]:
    """``entities`` (one document's kept ones, in order) with the untagged mentions of their names added, longer
    names first, each a copy of the nearest tagged mention before it, else the first after it; in start order."""
    tagged: dict[str, list[Entity]] = {}
    for ent in entities:
        if text.count(ent.text) > 1 and words.is_name(ent):
            tagged.setdefault(ent.text, []).append(ent)
    if not tagged:
        return list(entities)
    taken = [(e.start, e.end) for e in entities]
    added = []
    for name, sources in sorted(tagged.items(), key=lambda item: -len(item[0])):  # (longer names first)
        for at in mentions(text, name):
            end = at + len(name)
            if any(s < end and at < e for s, e in taken):
                continue
            source = next((s for s in reversed(sources) if s.start < at), sources[0])
            added.append(replace(source, start=at, end=end, descriptors=None, stages=()))
            taken.append((at, end))
    return sorted([*entities, *added], key=lambda e: e.start) if added else list(entities)
