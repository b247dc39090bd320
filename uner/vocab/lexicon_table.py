"""A typed lexicon learned from a tagged corpus: the domain's terms, the type the tagger gives them, how reliably.

One sentence is weak evidence for a span; a domain's corpus says a term many times. Over a corpus tagged by the
teacher or a student (``uner tag`` output), each entity string gets three counts: how often it was tagged, how often
it occurs at all (the same lower-cased tokens, tagged or not), and how many of its tags went to its most frequent
type. A string tagged in most of its occurrences, nearly always with one type, is a term of the domain ("dobutamine"
DRUG, "speech recognition" TASK); one tagged now and then ("dose", "recall") is not. The ``lexicon`` stage then finds
such terms where the tagger missed them in one sentence (docs/design.md §3.3d) — the self-training reading of the
"one sense per discourse" observation (Yarowsky 1995), with the corpus as the discourse, and the typed dictionary of
distant supervision (AutoNER, Shang et al. 2018) made by the tagger instead of a curated resource.

Tokens are those of the phrase counts (``uner.vocab.phrase_counts.tokens``: lower-cased; "5-FU" and "5 - FU" alike).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..io.tables import read_table, write_table
from .phrase_counts import cached_tokens, tokens

Tagged = tuple[str, Sequence[dict]]  # a text and its entities (dicts with start, end, type, subtype)
COLUMNS = ("term", "type", "subtype", "tagged", "seen", "share")


@dataclass(frozen=True)
class Term:
    """A lexicon entry: its most frequent written form, its type and subtype (the most frequent among its tags),
    how often it was tagged and seen, and the share of its tags that gave this type."""

    text: str
    type: str
    subtype: str | None
    tagged: int
    seen: int
    share: float

    @property
    def rate(self) -> float:
        """The share of its occurrences that were tagged."""
        return min(1.0, self.tagged / self.seen) if self.seen else 0.0


@dataclass(frozen=True)
class Lexicon:
    """Terms by their lower-cased tokens."""

    terms: dict[tuple[str, ...], Term]
    _lengths: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)  # by first token, longest first

    def __post_init__(self) -> None:
        object.__setattr__(self, "_lengths", _lengths(self.terms))

    @property
    def types(self) -> tuple[str, ...]:
        """The entity types its terms have."""
        return tuple(sorted({t.type for t in self.terms.values()}))

    @classmethod
    def build(cls, corpus: Callable[[], Iterable[Tagged]], min_tagged: int = 2, max_tokens: int = 8,
              progress: Callable[[int], None] | None = None) -> Lexicon:
        """The terms of a tagged corpus tagged at least ``min_tagged`` times, of at most ``max_tokens`` tokens.
        ``corpus()`` yields (text, entities) and is read twice: the tags first, then every occurrence."""
        votes: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        forms: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        for text, entities in corpus():
            for ent in entities:
                written = " ".join(text[ent["start"]:ent["end"]].split())  # (one line of the table)
                key = tuple(t for t, _, _ in tokens(written))
                if 0 < len(key) <= max_tokens:
                    votes[key][(ent["type"], ent.get("subtype"))] += 1
                    forms[key][written] += 1
        keys = {k for k, v in votes.items() if v.total() >= min_tagged}
        lengths = _lengths(keys)
        seen: Counter = Counter()
        for n, (text, _) in enumerate(corpus(), 1):
            words = [t for t, _, _ in tokens(text)]
            for i, word in enumerate(words):
                for length in lengths.get(word, ()):
                    if i + length <= len(words) and tuple(words[i : i + length]) in keys:
                        seen[tuple(words[i : i + length])] += 1
            if progress and n % 1000 == 0:
                progress(n)
        terms = {}
        for key in keys:
            by_type = Counter()
            for (type_, _), c in votes[key].items():
                by_type[type_] += c
            type_, top = by_type.most_common(1)[0]
            subtype = Counter({s: c for (t, s), c in votes[key].items() if t == type_}).most_common(1)[0][0]
            tagged = votes[key].total()
            terms[key] = Term(forms[key].most_common(1)[0][0], type_, subtype, tagged, max(seen[key], tagged),
                              round(top / tagged, 4))
        return cls(terms)

    def select(self, min_tagged: int = 1, min_rate: float = 0.0, min_share: float = 0.0,
               types: Collection[str] | None = None) -> Lexicon:
        """The terms tagged at least ``min_tagged`` times, in at least ``min_rate`` of their occurrences, with at
        least ``min_share`` of their tags on their type, and of one of ``types`` (None: any)."""
        return Lexicon({k: t for k, t in self.terms.items()
                        if t.tagged >= min_tagged and t.rate >= min_rate and t.share >= min_share
                        and (types is None or t.type in types)})

    def rarely_tagged(self, below: float, name_letters: int | None = None) -> Lexicon:
        """The terms of words of letters only tagged in fewer than ``below`` of their occurrences: common words that
        the tagger now and then calls a name ("protein"). A name with a digit or a hyphen ("c-fos") is often tagged
        inside a longer span, so it is left out; so, with ``name_letters``, is one word of at least that many letters
        whose most frequent tagged form has a capital ("IgG", "Ras": a symbol, tagged inside "IgG antibodies")."""
        return Lexicon({k: t for k, t in self.terms.items() if t.rate < below and all(w.isalpha() for w in k)
                        and not (name_letters is not None and len(k) == 1 and len(k[0]) >= name_letters
                                 and any(c.isupper() for c in t.text))})

    def adjectives(self, suffixes: Iterable[tuple[str, str]], subtype: str | None, min_stem: int = 4) -> Lexicon:
        """The adjectives of the one-word terms by the (adjective ending, noun ending) ``suffixes``, English
        derivation ("hypertension" → "hypertensive", "epilepsy" → "epileptic"): each a term typed as its noun, of
        ``subtype``, with its noun's counts; a noun's stem keeps ``min_stem`` letters; none that is a term already."""
        out: dict[tuple[str, ...], Term] = {}
        for key, term in self.terms.items():
            noun = key[0]
            if len(key) > 1 or not noun.isalpha():
                continue
            for adjective, ending in suffixes:
                if noun.endswith(ending) and len(noun) - len(ending) >= min_stem:
                    word = noun[: len(noun) - len(ending)] + adjective
                    if (word,) not in self.terms and (word,) not in out:
                        out[word,] = Term(word, term.type, subtype, term.tagged, term.seen, term.share)
        return Lexicon(out)

    def find(self, text: str) -> list[tuple[int, int, Term]]:
        """The terms in ``text``, as (start, end, term) character offsets: at each token the longest term that
        starts there, left to right, none overlapping."""
        toks = cached_tokens(text)
        words, lengths = [t for t, _, _ in toks], self._lengths
        out, free = [], 0  # (free: the first token that no term found covers)
        for i in [i for i, w in enumerate(words) if w in lengths]:  # (the tokens that start a term: few)
            if i < free:
                continue
            for n in lengths[words[i]]:
                if i + n <= len(words) and (term := self.terms.get(tuple(words[i : i + n]))) is not None:
                    out.append((toks[i][1], toks[i + n - 1][2], term))
                    free = i + n
                    break
        return out

    def save(self, path: str | Path) -> None:
        """A TSV file (``COLUMNS``, most tagged first), written whole or not at all."""
        write_table(path, COLUMNS, ([t.text, t.type, t.subtype or "", str(t.tagged), str(t.seen), f"{t.share:.4f}"]
                                    for t in sorted(self.terms.values(), key=lambda t: (-t.tagged, t.text))))

    @classmethod
    def load(cls, path: str | Path) -> Lexicon:
        """A table written by ``save``; ValueError naming the file and line of a bad row."""
        terms = {}
        for line, (text, type_, subtype, tagged, seen, share) in read_table(path, COLUMNS):
            try:
                term = Term(text, type_, subtype or None, int(tagged), int(seen), float(share))
            except ValueError:
                raise ValueError(f"{path}:{line}: expected counts in 'tagged' and 'seen' and a number in 'share'"
                                 ) from None
            key = tuple(t for t, _, _ in tokens(text))
            if not key or not type_:
                raise ValueError(f"{path}:{line}: a term and its type must not be empty")
            terms[key] = term
        return cls(terms)


def _lengths(keys: Iterable[tuple[str, ...]]) -> dict[str, tuple[int, ...]]:
    """The lengths of the ``keys`` that start with each token, longest first (so that a text is read once)."""
    lengths: dict[str, set[int]] = defaultdict(set)
    for key in keys:
        lengths[key[0]].add(len(key))
    return {t: tuple(sorted(n, reverse=True)) for t, n in lengths.items()}
