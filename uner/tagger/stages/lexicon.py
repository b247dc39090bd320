"""The ``lexicon`` stage: the domain's terms, learned from its tagged corpus, found where one sentence missed them.

The tagger judges each span from one sentence; the same term elsewhere in the domain's corpus may have been typed
surely many times (``uner.vocab.lexicon``: a table made by ``uner lexicon`` from ``uner tag`` output). A term that
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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ...vocab.lexicon import Lexicon
from ...vocab.phrases import cached_tokens
from ..scoring import Entity
from .registry import Settings, Words, register

T = TypeVar("T")


def load_table(read: Words, conf: dict, load: Callable[[Path], T] = Lexicon.load) -> T:
    """The table a stage's settings name, read by ``load`` (a lexicon's by default); ValueError naming the file
    when it cannot be read."""
    path = read.path(conf["table"])
    try:
        return load(path)
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror}") from None


def sure_terms(read: Words, conf: Settings) -> Lexicon:
    """The terms of the table that the settings ``conf`` name, tagged at least ``min_tagged`` times, in at least
    ``min_rate`` of their occurrences, with at least ``min_share`` of their tags on one type, of the ``types`` (all
    when there is no such entry)."""
    return load_table(read, conf).select(int(conf["min_tagged"]), float(conf["min_rate"]), float(conf["min_share"]),
                                         conf.listed_types())


def rare_terms(read: Words, conf: Settings) -> Lexicon:
    """The terms of the table that the settings ``conf`` name, tagged in fewer than ``below`` of their occurrences
    (``Lexicon.rarely_tagged``, with ``name_letters`` when given): common words, not names."""
    letters = conf.get("name_letters")
    return load_table(read, conf).rarely_tagged(float(conf["below"]), None if letters is None else int(letters))


def add_uncovered(entities: Sequence[Entity], found: Iterable[Entity]) -> list[Entity]:
    """``entities`` and those of ``found`` that no entity of ``entities`` overlaps, in start order."""
    added = [f for f in found if not any(ent.start < f.end and f.start < ent.end for ent in entities)]
    return sorted([*entities, *added], key=lambda e: e.start) if added else list(entities)


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
