"""Word endings learned from a tagged corpus: the endings whose words the domain's tagger types one way.

The lexicon (``uner.vocab.lexicon``) knows the terms a corpus says often; a domain's rare names are built like its
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
from .lexicon import Tagged
from .memo import Memo
from .phrases import cached_tokens, tokens

COLUMNS = ("ending", "type", "subtype", "words", "seen", "precision", "exceptions")


@dataclass(frozen=True)
class Ending:
    """A kept ending: its type and subtype, how many words it types of how many seen, and the words it does not."""

    ending: str
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

    endings: dict[str, Ending]
    min_stem: int = 2  # the letters a word keeps before its ending
    _matched: Memo[str, Ending | None] = field(init=False, repr=False, compare=False)  # (each word's match, once)

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
        seen: Counter = Counter()
        tags: dict[str, Counter] = defaultdict(Counter)
        for n, (text, entities) in enumerate(corpus, 1):
            seen.update(t for t, _, _ in tokens(text) if t.isalpha())
            for ent in entities:
                for word, _, _ in tokens(text[ent["start"]:ent["end"]]):
                    if word.isalpha():
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
        words_by_end: dict[str, list[str]] = defaultdict(list)
        for word, n in seen.items():
            if n >= params.min_seen:
                for k in range(params.min_length, min(params.max_length, len(word) - params.min_stem) + 1):
                    words_by_end[word[-k:]].append(word)
        kept: dict[str, Ending] = {}
        for end in sorted(words_by_end, key=len):
            words = words_by_end[end]
            by_type = Counter(typed[w][0] for w in words if w in typed)
            if not by_type:
                continue
            type_, n = by_type.most_common(1)[0]
            if n < params.min_words or n < params.min_precision * len(words):
                continue
            shorter = next((kept[end[-k:]] for k in range(len(end) - 1, 0, -1) if end[-k:] in kept), None)
            if shorter is not None and shorter.type == type_:  # (the shorter ending, the one that would match)
                continue
            sub = Counter(typed[w][1] for w in words if typed.get(w, ("",))[0] == type_).most_common(1)[0][0]
            kept[end] = Ending(end, type_, sub, n, len(words), round(n / len(words), 4),
                               frozenset(w for w in words if typed.get(w, ("",))[0] != type_))
        return cls(kept, params.min_stem)

    def select(self, types: Iterable[str] | None = None, min_precision: float = 0.0, min_stem: int | None = None
               ) -> Endings:
        """The endings of one of ``types`` (None: any) with at least ``min_precision``, matched leaving ``min_stem``
        letters before them (None: as now)."""
        wanted = None if types is None else set(types)
        return Endings({k: e for k, e in self.endings.items()
                        if (wanted is None or e.type in wanted) and e.precision >= min_precision},
                       self.min_stem if min_stem is None else min_stem)

    def match(self, word: str) -> Ending | None:
        """The longest kept ending of ``word`` (lower-cased letters) that leaves ``min_stem`` letters before it and
        does not list the word as an exception; None when there is none, or the word is not all letters."""
        return self._matched[word]

    def _match(self, word: str) -> Ending | None:
        get, lengths = self.endings.get, self._lengths
        ending = next((e for k in lengths if k <= len(word) - self.min_stem and (e := get(word[-k:]))), None) \
            if word.isalpha() else None
        return None if ending is None or word in ending.exceptions else ending

    def find(self, text: str) -> list[tuple[int, int, Ending]]:
        """The words of ``text`` that a kept ending types, as (start, end, ending) character offsets."""
        (n, tails), match = self._tails, self.match
        return [(s, e, ending) for t, s, e in cached_tokens(text)
                if t[-n:] in tails and (ending := match(t)) is not None]

    def save(self, path: str | Path) -> None:
        """A TSV file (``COLUMNS``, most words first; exceptions space-separated), written whole or not at all."""
        write_table(path, COLUMNS, ([e.ending, e.type, e.subtype or "", str(e.words), str(e.seen),
                                     f"{e.precision:.4f}", " ".join(sorted(e.exceptions))]
                                    for e in sorted(self.endings.values(), key=lambda e: (-e.words, e.ending))))

    @classmethod
    def load(cls, path: str | Path) -> Endings:
        """A table written by ``save``; ValueError naming the file and line of a bad row."""
        endings = {}
        for line, (end, type_, subtype, words, seen, precision, exceptions) in read_table(path, COLUMNS):
            try:
                ending = Ending(end, type_, subtype or None, int(words), int(seen), float(precision),
                                frozenset(exceptions.split()))
            except ValueError:
                raise ValueError(f"{path}:{line}: expected counts in 'words' and 'seen' and a number in 'precision'"
                                 ) from None
            if not end.isalpha() or end != end.lower() or not type_:
                raise ValueError(f"{path}:{line}: an ending must be lower-case letters and have a type")
            endings[end] = ending
        return cls(endings)
