"""What the candidate spans read from a labels folder's ``words/`` files (else the shipped labels'): the words that
join names (``name_joins.yaml``, ``head_joins.yaml``) and the parse labels of the noun-phrase conventions
(``noun_phrases.yaml``), each read once per folder and setting (docs/design.md §3.3)."""

from __future__ import annotations

from functools import cache

from ..conventions import NounPhrases
from ..spans import NameJoins
from .stages.registry import Words

NAME_JOINS, HEAD_JOINS, NOUN_PHRASES = "name_joins", "head_joins", "noun_phrases"


@cache
def name_joins(folder: str | None = None, heads: bool = False) -> NameJoins:
    """The words that join two names (``uner.spans.NameJoins``): the labels ``folder``'s ``words/name_joins.yaml``
    (else the shipped labels'), and with ``heads`` (``TaggerConfig.head_joins``) its ``words/head_joins.yaml`` words
    after a common word too; lower-cased. ValueError naming the file for a list that is not of words."""
    read = Words(folder)
    after = _words(read, NAME_JOINS, "after_common_word") | (_words(read, HEAD_JOINS, "joins") if heads else set())
    return NameJoins(frozenset(_words(read, NAME_JOINS, "connectors")), frozenset(after))


@cache
def noun_phrases(folder: str | None = None, descriptors: bool = False, coordinations: bool = False,
                 determiners: bool = False, hyphens: bool = False, numbers: bool = False) -> NounPhrases:
    """The parse labels of the noun-phrase conventions switched on (``uner.conventions.NounPhrases``; the tagger's
    ``descriptor_weight``, ``coordination_weight``, ``name_determiners`` and ``name_numbers``; the tagger keeps
    hyphenated words whole always), from the labels ``folder``'s ``words/noun_phrases.yaml`` (else the shipped
    labels'), with its proper-noun tags always; the others empty. ValueError naming the file for a list that is not
    of labels."""
    read = Words(folder)

    def labels(key: str, on: bool) -> frozenset[str]:
        return frozenset(_words(read, NOUN_PHRASES, key, lower=False)) if on else frozenset()

    return NounPhrases(labels("descriptor_tags", descriptors), labels("apposition_arcs", descriptors),
                       labels("coordination_arcs", coordinations), labels("determiner_tags", determiners),
                       labels("hyphens", hyphens), labels("number_arcs", numbers), labels("name_tags", True))


def _words(read: Words, name: str, key: str, lower: bool = True) -> set[str]:
    """The word list ``key`` of ``words/<name>.yaml``, lower-cased unless ``lower`` is off (parse labels: "NN");
    ValueError naming the file if it is none."""
    words = read(name).get(key)
    if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
        raise ValueError(f"{read.path(name + '.yaml')}: '{key}' must be a list of words")
    return {" ".join((w.lower() if lower else w).split()) for w in words}
