"""Word shapes learned from a tagged corpus: the written forms of the symbols that the domain's tagger types one way.

Endings (``uner.vocab.endings``) generalise the names built from stems; a gene or a protein is named by a symbol
("CD44", "Stat3", "hMLH1", "p53"), and symbols are written to a pattern of capitals, small letters and digits. A
word's *shape* writes each capital as X, each small letter as x and each digit as d, runs of more than ``RUN`` cut to
``RUN`` ("CD44" XXdd, "IE110" XXdd, "Stat3" Xxxd), the word-shape feature of supervised taggers. Only *symbols*
count: words of letters and digits with a digit, or with a capital after a small letter ("cAMP"); a word of
letters alone is written in case, not to a pattern. Over a corpus tagged by the teacher or a student (``uner tag``
output), symbols are typed as ``uner.vocab.endings`` types words (case kept), and a shape is kept for a type as an
ending is (``min_words``, ``min_precision``), with the symbols of its shape that the corpus types otherwise or not at
all as exceptions. The ``word_shapes`` stage types a symbol no entity covers by its shape.
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .endings import EndingParams, WordClass, load_classes, save_classes, typed_words, word_class
from .lexicon import Tagged
from .memo import Memo
from .phrases import cached_tokens, tokens

COLUMNS = ("shape", "type", "subtype", "words", "seen", "precision", "exceptions")
RUN = 2  # (runs cut to one, two, three marks: the student's BC2GM dev 0.434, 0.439, 0.437; docs/log/accuracy.md §3.26)
_RUNS = re.compile(r"(.)\1{%d,}" % RUN)
_MARKS = str.maketrans(string.ascii_uppercase + string.ascii_lowercase + string.digits, "X" * 26 + "x" * 26 + "d" * 10)
_SHAPE_MARKS = frozenset("Xxd")
_MIXED = re.compile(r"[a-z][A-Z]")  # a capital after a small letter


def is_symbol(word: str) -> bool:
    """Whether ``word`` (one token) is written like a symbol: ASCII letters and digits with a digit and a letter,
    or with a capital after a small letter."""
    return (word.isascii() and word.isalnum() and not word.isdigit()
            and (not word.isalpha() or _MIXED.search(word) is not None))


def word_shape(word: str) -> str:
    """``word`` written as capitals X, small letters x and digits d, runs of more than ``RUN`` cut to ``RUN``."""
    return _RUNS.sub(lambda m: m.group(1) * RUN, word.translate(_MARKS))


def _symbols(text: str) -> list[str]:
    """The symbols of ``text``, case kept (what a shape is learned from)."""
    return [word for _, start, end in tokens(text) if is_symbol(word := text[start:end])]


@dataclass(frozen=True)
class Shapes:
    """Kept shapes by their text."""

    shapes: dict[str, WordClass]
    _matched: Memo[str, WordClass | None] = field(init=False, repr=False, compare=False)  # (each word's match, once)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matched", Memo(self._match))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted({c.type for c in self.shapes.values()}))

    @classmethod
    def build(cls, corpus: Iterable[Tagged], params: EndingParams = EndingParams(),
              progress: Callable[[int], None] | None = None) -> Shapes:
        """The shapes of a tagged corpus (``corpus`` yields text and entities, read once)."""
        seen, typed = typed_words(corpus, _symbols, params, progress)
        by_shape: dict[str, list[str]] = defaultdict(list)
        for word, n in seen.items():
            if n >= params.min_seen:
                by_shape[word_shape(word)].append(word)
        return cls({shape: found for shape, words in by_shape.items()
                    if (found := word_class(shape, words, typed, params)) is not None})

    def select(self, types: Iterable[str] | None = None, min_precision: float = 0.0) -> Shapes:
        """The shapes of one of ``types`` (None: any) with at least ``min_precision``."""
        wanted = None if types is None else set(types)
        return Shapes({k: c for k, c in self.shapes.items()
                       if (wanted is None or c.type in wanted) and c.precision >= min_precision})

    def match(self, word: str) -> WordClass | None:
        """The kept shape of the symbol ``word`` unless it lists the word as an exception; None otherwise."""
        return self._matched[word]

    def _match(self, word: str) -> WordClass | None:
        found = self.shapes.get(word_shape(word)) if is_symbol(word) else None
        return None if found is None or word in found.exceptions else found

    def find(self, text: str) -> list[tuple[int, int, WordClass]]:
        """The symbols of ``text`` that a kept shape types, as (start, end, shape) character offsets. Read from the
        text's tokens (``cached_tokens``, which the stages before have read): a word with a digit and a letter, or
        with letters alone when the text has a capital after a small letter somewhere (most texts do not)."""
        mixed, match, out = _MIXED.search(text) is not None, self.match, []
        for token, start, end in cached_tokens(text):
            if (mixed if token.isalpha() else token.isalnum() and not token.isdigit()) \
                    and (found := match(text[start:end])) is not None:
                out.append((start, end, found))
        return out

    def save(self, path: str | Path) -> None:
        """A TSV file (``COLUMNS``, most words first; exceptions space-separated), written whole or not at all."""
        save_classes(path, COLUMNS, self.shapes.values())

    @classmethod
    def load(cls, path: str | Path) -> Shapes:
        """A table written by ``save``; ValueError naming the file and line of a bad row."""
        return cls(load_classes(path, COLUMNS, lambda k: bool(k) and set(k) <= _SHAPE_MARKS and not _RUNS.search(k),
                                f"a shape must be X, x and d in runs of at most {RUN}"))
