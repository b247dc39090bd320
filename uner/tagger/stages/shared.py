"""What the post-typing stages share, so that no stage imports another: reading the domain's tables (phrase counts,
lexicon), a document's tokens and the tie of its word sequences, how an entity found is added, where a string is
mentioned, and whether a name is one of the countries a stage's settings list."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TypeVar

from ...vocab.lexicon_table import Lexicon
from ...vocab.phrase_counts import PhraseCounts, cached_tokens, token_hash
from ..scoring import Entity
from .registry import Settings, Words

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


@cache
def load_counts(path) -> PhraseCounts:
    """A phrase-count table, read once per process (stages that share one table share it)."""
    return PhraseCounts.load(path)


def tie(both: int, left: int, right: int) -> float:
    """How strongly two parts come together: the larger conditional probability of both given each (0: unseen)."""
    return max(both / left if left else 0.0, both / right if right else 0.0)


class PhraseDoc:
    """One document's tokens and the tie of word sequences in it."""

    def __init__(self, text: str, counts: PhraseCounts) -> None:
        self.text, self.toks = text, cached_tokens(text)
        self.words = [t[0] for t in self.toks]
        self.counts = counts
        self._seen: dict[tuple[int, int], int] = {}
        self.starts = {s: i for i, (_, s, _) in enumerate(self.toks)}  # character offset → the token starting there
        self.ends = {e: i for i, (_, _, e) in enumerate(self.toks, 1)}  # ... → one past the token ending there

    def ranges(self, entities: Sequence[Entity]) -> tuple[list[tuple[int | None, int | None]], set[int]]:
        """Each entity's token range [i, j) (None for an edge inside a token), and the tokens that they cover."""
        ranges = [(self.starts.get(e.start), self.ends.get(e.end)) for e in entities]
        return ranges, {t for a, b in ranges if a is not None and b is not None for t in range(a, b)}

    def count(self, i: int, j: int) -> int:
        if (i, j) not in self._seen:
            self._seen[i, j] = self.counts.count_hashed([token_hash(w) for w in self.words[i:j]])
        return self._seen[i, j]

    def tie(self, i: int, cut: int, j: int) -> float:
        """How strongly tokens i..cut-1 and cut..j-1 come together: the larger conditional probability."""
        both = self.count(i, j)
        return tie(both, self.count(i, cut), self.count(cut, j)) if both else 0.0

    def joined(self, i: int) -> float:
        """How strongly the words at ``i`` and ``i + 2``, a connector between them, come together: the larger
        conditional probability of the three tokens given either word (0 when either is unseen)."""
        return tie(self.count(i, i + 3), self.count(i, i + 1), self.count(i + 2, i + 3))

    def is_word(self, i: int) -> bool:
        return 0 <= i < len(self.words) and self.words[i][0].isalnum()

    def is_connector(self, i: int) -> bool:
        return 0 <= i < len(self.words) and self.words[i] in self.counts.connectors

    def unit(self, i: int, step: int, taken: set[int]) -> int | None:
        """The token index reached by joining the word at ``i`` (through a connector there: the word after it)
        going ``step`` (-1 left, +1 right); None when there is no such word, it is a frequent word or a token on
        the way is in ``taken`` (another entity's)."""
        if self.is_connector(i) and i not in taken:
            i += step
        if not self.is_word(i) or i in taken or self.words[i] in self.counts.frequent:
            return None
        return i


def mentions(text: str, sf: str) -> list[int]:
    """Start offsets of ``sf`` in ``text`` bounded by neither letters, digits nor hyphens ("5-FU", not in
    "5-FU-treated")."""
    return occurrences(text, sf, "-")


def occurrences(text: str, sf: str, joiners: str = "") -> list[int]:
    """Start offsets of ``sf`` in ``text`` with no word character (a letter, digit or "_", as regex ``\\w``) nor one
    of ``joiners`` on either side, found left to right as a regular expression would (after a match the search goes
    on from its end). A string search: a pattern compiled per short form cost more than the search itself."""
    out, n = [], len(sf)
    at = text.find(sf)
    while at >= 0:
        if not (_joins(text[at - 1 : at], joiners) or _joins(text[at + n : at + n + 1], joiners)):
            out.append(at)
            at = text.find(sf, at + max(n, 1))
        else:
            at = text.find(sf, at + 1)
    return out


def _joins(ch: str, joiners: str) -> bool:
    return ch != "" and (ch.isalnum() or ch == "_" or ch in joiners)


def in_countries(name: str, countries: frozenset[str]) -> bool:
    """Whether ``name`` is one of ``countries`` (lower-cased without dots), case, dots and spaces ignored."""
    return " ".join(name.lower().replace(".", "").split()) in countries
