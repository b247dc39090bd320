"""Word endings learned from a tagged corpus: the endings whose words the domain's tagger types one way.

The lexicon (``uner.vocab.lexicon_table``) knows the terms a corpus says often; a domain's rare names are built like its
frequent ones. Drug names share the stems of their class ("-mycin", "-olol"), disease names the suffixes of medical
Greek and Latin ("-itis", "-toxicity"). Over a corpus tagged by the teacher or a student (``uner tag`` output), each
word of letters (lower-cased) gets how often it occurs and how often it stands in an entity of each type
("hepatitis" mostly in "hepatitis B", "chronic hepatitis"); a word seen at least ``min_seen`` times is *typed* when
it stands in entities in at least ``min_rate`` of its occurrences with at least ``min_share`` of them of one type.
An ending of ``min_length`` to ``max_length`` letters, with at least ``min_stem`` letters before it, is kept for a
type when at least ``min_words`` of the words that end in it are typed that type and they are at least
``min_precision`` of the words seen that end in it. The words that end in it and are not typed that way are kept
with it as its exceptions. A longer ending of the same type as a shorter one it ends in adds nothing and is left
out. The ``word_endings`` stage types a word no entity covers by its longest kept ending.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..io.tables import read_table, write_table
from .lexicon_table import Tagged
from .memo import Memo
from .phrase_counts import cached_tokens, tokens

COLUMNS = ("ending", "type", "subtype", "words", "seen", "precision", "exceptions")


@dataclass(frozen=True)
class WordClass:
    """A kept class of words that share a form (``key``: the ending): its
    type and subtype, how many of its words the corpus types so of how many seen, and the words it does not."""

    key: str
    type: str
    subtype: str | None
    words: int
    seen: int
    precision: float
    exceptions: frozenset[str]


@dataclass(frozen=True)
class EndingParams:
    """How an ending is learned (see the module docstring)."""

    min_seen: int = 2
    min_rate: float = 0.5
    min_share: float = 0.8
    min_length: int = 3
    max_length: int = 9
    min_stem: int = 2
    min_words: int = 2
    min_precision: float = 0.6  # (min_seen, min_words, min_precision: chosen on BC5CDR and NCBI-disease dev)


@dataclass(frozen=True)
class Endings:
    """Kept endings by their text."""

    endings: dict[str, WordClass]
    min_stem: int = 2  # the letters a word keeps before its ending
    _matched: Memo[str, WordClass | None] = field(init=False, repr=False, compare=False)  # (each word's match, once)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matched", Memo(self._match))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted({e.type for e in self.endings.values()}))

    @cached_property
    def _lengths(self) -> tuple[int, ...]:
        """The lengths of the kept endings, longest first."""
        return tuple(sorted({len(k) for k in self.endings}, reverse=True))

    @cached_property
    def _tails(self) -> tuple[int, frozenset[str]]:
        """An index of the loaded table, no word list of its own: the shortest kept ending's length n, and the last
        n letters of every kept ending; a word whose own last n letters are not among them has no ending (most
        words; a set lookup, not a ``match``)."""
        n = min(self._lengths, default=1)
        return n, frozenset(k[-n:] for k in self.endings)

    @classmethod
    def build(cls, corpus: Iterable[Tagged], params: EndingParams = EndingParams(),
              progress: Callable[[int], None] | None = None) -> Endings:
        """The endings of a tagged corpus (``corpus`` yields text and entities, read once)."""
        seen, typed = typed_words(corpus, _letter_words, params, progress)
        words_by_end: dict[str, list[str]] = defaultdict(list)
        for word, n in seen.items():
            if n >= params.min_seen:
                for k in range(params.min_length, min(params.max_length, len(word) - params.min_stem) + 1):
                    words_by_end[word[-k:]].append(word)
        kept: dict[str, WordClass] = {}
        for end in sorted(words_by_end, key=len):
            found = word_class(end, words_by_end[end], typed, params)
            if found is None:
                continue
            shorter = next((kept[end[-k:]] for k in range(len(end) - 1, 0, -1) if end[-k:] in kept), None)
            if shorter is None or shorter.type != found.type:  # (else the shorter ending, the one that would match)
                kept[end] = found
        return cls(kept, params.min_stem)

    def select(self, types: Iterable[str] | None = None, min_precision: float = 0.0, min_stem: int | None = None
               ) -> Endings:
        """The endings of one of ``types`` (None: any) with at least ``min_precision``, matched leaving ``min_stem``
        letters before them (None: as now)."""
        wanted = None if types is None else set(types)
        return Endings({k: e for k, e in self.endings.items()
                        if (wanted is None or e.type in wanted) and e.precision >= min_precision},
                       self.min_stem if min_stem is None else min_stem)

    def match(self, word: str) -> WordClass | None:
        """The longest kept ending of ``word`` (lower-cased letters) that leaves ``min_stem`` letters before it and
        does not list the word as an exception; None when there is none, or the word is not all letters."""
        return self._matched[word]

    def _match(self, word: str) -> WordClass | None:
        get, lengths = self.endings.get, self._lengths
        ending = next((e for k in lengths if k <= len(word) - self.min_stem and (e := get(word[-k:]))), None) \
            if word.isalpha() else None
        return None if ending is None or word in ending.exceptions else ending

    def find(self, text: str) -> list[tuple[int, int, WordClass]]:
        """The words of ``text`` that a kept ending types, as (start, end, ending) character offsets."""
        (n, tails), match = self._tails, self.match
        return [(s, e, ending) for t, s, e in cached_tokens(text)
                if t[-n:] in tails and (ending := match(t)) is not None]

    def save(self, path: str | Path) -> None:
        """A TSV file (``COLUMNS``, most words first; exceptions space-separated), written whole or not at all."""
        save_classes(path, COLUMNS, self.endings.values())

    @classmethod
    def load(cls, path: str | Path) -> Endings:
        """A table written by ``save``; ValueError naming the file and line of a bad row."""
        return cls(load_classes(path, COLUMNS, lambda k: k.isalpha() and k == k.lower(),
                                "an ending must be lower-case letters"))


def _letter_words(text: str) -> list[str]:
    """The lower-cased words of letters of ``text`` (what an ending is learned from)."""
    return [t for t, _, _ in tokens(text) if t.isalpha()]


def typed_words(corpus: Iterable[Tagged], words_of: Callable[[str], list[str]], params: EndingParams,
                progress: Callable[[int], None] | None = None) -> tuple[Counter, dict[str, tuple[str, str | None]]]:
    """How often each word of the tagged ``corpus`` occurs (its words: ``words_of`` a text), and the type and
    subtype of each word it *types*: seen at least ``min_seen`` times, in entities in at least ``min_rate`` of them,
    with at least ``min_share`` of those of one type."""
    seen: Counter = Counter()
    tags: dict[str, Counter] = defaultdict(Counter)
    for n, (text, entities) in enumerate(corpus, 1):
        seen.update(words_of(text))
        for ent in entities:
            for word in words_of(text[ent["start"]:ent["end"]]):
                tags[word][(ent["type"], ent.get("subtype"))] += 1
        if progress and n % 1000 == 0:
            progress(n)
    typed = {}
    for word, votes in tags.items():
        by_type = Counter()
        for (type_, _), c in votes.items():
            by_type[type_] += c
        type_, top = by_type.most_common(1)[0]
        if seen[word] >= params.min_seen and votes.total() >= params.min_rate * seen[word] \
                and top >= params.min_share * votes.total():
            sub = Counter({s: c for (t, s), c in votes.items() if t == type_}).most_common(1)[0][0]
            typed[word] = (type_, sub)
    return seen, typed


def word_class(key: str, words: list[str], typed: dict[str, tuple[str, str | None]], params: EndingParams
               ) -> WordClass | None:
    """The class of the ``words`` that share ``key``: the type most of them are typed, when at least ``min_words``
    of them and ``min_precision`` of all are; else None."""
    by_type = Counter(typed[w][0] for w in words if w in typed)
    if not by_type:
        return None
    type_, n = by_type.most_common(1)[0]
    if n < params.min_words or n < params.min_precision * len(words):
        return None
    sub = Counter(typed[w][1] for w in words if typed.get(w, ("",))[0] == type_).most_common(1)[0][0]
    return WordClass(key, type_, sub, n, len(words), round(n / len(words), 4),
                     frozenset(w for w in words if typed.get(w, ("",))[0] != type_))


def save_classes(path: str | Path, columns: tuple[str, ...], classes: Iterable[WordClass]) -> None:
    """``classes`` as a TSV file under ``columns`` (most words first; exceptions space-separated), whole or not at
    all."""
    write_table(path, columns, ([c.key, c.type, c.subtype or "", str(c.words), str(c.seen), f"{c.precision:.4f}",
                                 " ".join(sorted(c.exceptions))]
                                for c in sorted(classes, key=lambda c: (-c.words, c.key))))


def load_classes(path: str | Path, columns: tuple[str, ...], valid: Callable[[str], bool], invalid: str
                 ) -> dict[str, WordClass]:
    """The classes ``save_classes`` wrote, by key; ValueError naming the file and line of a bad row (``invalid``
    saying what a key that is not ``valid`` must be)."""
    classes = {}
    for line, (key, type_, subtype, words, seen, precision, exceptions) in read_table(path, columns):
        try:
            found = WordClass(key, type_, subtype or None, int(words), int(seen), float(precision),
                              frozenset(exceptions.split()))
        except ValueError:
            raise ValueError(f"{path}:{line}: expected counts in 'words' and 'seen' and a number in 'precision'"
                             ) from None
        if not valid(key) or not type_:
            raise ValueError(f"{path}:{line}: {invalid} and have a type")
        classes[key] = found
    return classes
