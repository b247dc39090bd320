"""Phrase statistics of a corpus: how often each word sequence occurs, for deciding where a phrase starts and ends.

"heart failure" is a phrase and "severe heart failure" a modifier plus a phrase because the corpus says so: in
abstracts "severe" comes before hundreds of different nouns and "heart failure" stands alone far more often than
after "severe", while "dilated" is mostly followed by "cardiomyopathy" (the tie-or-break view of AutoNER, Shang
et al. 2018, with counts of the domain's own text as AutoPhrase's quality phrases are; docs/design.md §3.3d).

``PhraseCounts.mine`` counts every n-gram (n ≤ ``max_n``) of lower-cased tokens — runs of letters and digits, and
single punctuation marks — that starts and ends with a word and holds no punctuation but the ``connectors`` inside
("5 - fu", "non - small cell"), keeping those seen at least ``min_count`` times. Each n-gram is kept as a 64-bit
hash of its tokens (sorted, with its count), so the table is a few numpy arrays, looked up by binary search. Per
word it also keeps how often the word follows a content word (a word of letters other than the corpus's most
frequent ones): a class noun is written after the names of its members ("aromatase inhibitor"), a name after "of"
or "with" (``PhraseCounts.modified``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..io.atomic import write_npz

TOKEN_RE = re.compile(r"[^\W_]+|[^\w\s]|_")  # words (letters and digits) and single punctuation marks
_MULT = np.uint64(0x100000001B3)  # the n-gram hash: h(t1..tn) = (h(t1..tn-1) * _MULT) ^ h(tn), modulo 2**64


def tokens(text: str) -> list[tuple[str, int, int]]:
    """The lower-cased tokens of ``text`` with their character offsets (the tokenisation of the counts)."""
    low = text.lower()
    if len(low) != len(text):  # (a letter whose lower case is longer, "İ": lower each token instead)
        return [(m.group().lower(), m.start(), m.end()) for m in TOKEN_RE.finditer(text)]
    return [(m.group(), m.start(), m.end()) for m in TOKEN_RE.finditer(low)]


@lru_cache(maxsize=1 << 12)
def cached_tokens(text: str) -> tuple[tuple[str, int, int], ...]:
    """``tokens(text)``, kept for the last texts seen: the post-typing stages read one sentence and its entities'
    texts in turn (a corpus pass calls ``tokens``, not this)."""
    return tuple(tokens(text))


@lru_cache(maxsize=1 << 16)
def token_hash(token: str) -> int:
    """A token's stable 64-bit hash (the same in every process and on every machine)."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")


@lru_cache(maxsize=64)
def _hashes_of(words: tuple[str, ...]) -> np.ndarray:
    """The tokens' hashes as an array (a word list's, looked up again and again)."""
    return np.array([token_hash(w) for w in words], dtype=np.uint64)


def ngram_hash(words: Sequence[str]) -> int:
    """The hash of a token sequence, as ``PhraseCounts`` stores it."""
    return combine([token_hash(w) for w in words])


def combine(hashes: Sequence[int]) -> int:
    """The hash of a token sequence from its tokens' hashes (``token_hash``)."""
    h = 0
    for t in hashes:
        h = ((h * int(_MULT)) & 0xFFFFFFFFFFFFFFFF) ^ t
    return h


@dataclass
class PhraseCounts:
    """Counts of the n-grams of a corpus (n = 1 … ``max_n``): ``count(words)`` is 0 for one seen fewer than
    ``min_count`` times or longer than ``max_n``."""

    hashes: list[np.ndarray]  # per n (index n - 1): sorted uint64 hashes
    counts: list[np.ndarray]  # per n: their counts (uint32)
    min_count: int
    connectors: frozenset[str] = field(default_factory=frozenset)
    frequent: frozenset[str] = field(default_factory=frozenset)  # the corpus's most frequent words (function words)
    after_words: np.ndarray | None = None  # per 1-gram (``hashes[0]``'s order): how often it follows a content word

    @property
    def max_n(self) -> int:
        return len(self.hashes)

    def count(self, words: Sequence[str]) -> int:
        """How often the lower-cased token sequence ``words`` occurs in the corpus (0: rarer than ``min_count``)."""
        return self.count_hashed([token_hash(w) for w in words])

    def count_hashed(self, hashes: Sequence[int]) -> int:
        """``count`` of a token sequence given by its tokens' hashes (``token_hash``)."""
        n = len(hashes)
        if not 0 < n <= self.max_n:
            return 0
        keys, h = self.hashes[n - 1], np.uint64(combine(hashes))
        i = int(keys.searchsorted(h))
        return int(self.counts[n - 1][i]) if i < len(keys) and keys[i] == h else 0

    def after(self, words: Sequence[str], before: Iterable[str], min_seen: int = 1) -> tuple[int, float]:
        """How often ``words`` occurs, and the share of those occurrences that follow one of the words ``before``
        ("severe" after "very" or "so"; "dose" after "a" or "the"); the share is 0, not counted, when ``words`` is
        seen fewer than ``min_seen`` times. The table keeps no n-gram longer than ``max_n`` nor one seen fewer than
        ``min_count`` times, so the share is 0 for ``max_n`` words and low near the floor."""
        seen = self.count(words)
        n = len(words) + 1
        if seen < max(min_seen, 1) or n > self.max_n:
            return seen, 0.0
        hashes = _hashes_of(tuple(before))  # each "b words…" hashed at once (the hash's steps, over an array)
        for w in words:
            hashes = (hashes * _MULT) ^ np.uint64(token_hash(w))
        keys = self.hashes[n - 1]
        if not len(keys):
            return seen, 0.0
        at = np.minimum(keys.searchsorted(hashes), len(keys) - 1)
        return seen, int(self.counts[n - 1][at][keys[at] == hashes].sum()) / seen

    def modified(self, word: str) -> tuple[int, float]:
        """How often the lower-cased token ``word`` occurs, and the share of those occurrences that follow a word of
        letters that is not one of the corpus's ``frequent`` ones: a class noun is mostly written after a name of
        one of its members ("aromatase inhibitor", "antihypertensive agent"), a drug's own name after "of", "with"
        or "and". The share is 0 for a table mined without these counts."""
        seen = self.count((word,))
        if not seen or self.after_words is None:
            return seen, 0.0
        return seen, int(self.after_words[int(self.hashes[0].searchsorted(np.uint64(token_hash(word))))]) / seen

    @classmethod
    def mine(cls, texts: Iterable[str], max_n: int = 5, min_count: int = 3, connectors: Iterable[str] = ("-",),
             n_frequent: int = 50, chunk_tokens: int = 5_000_000, progress=None) -> PhraseCounts:
        """Count the n-grams of ``texts`` (see the module docstring), ``chunk_tokens`` tokens at a time, and keep the
        ``n_frequent`` most frequent words; ``progress`` (optional) is called with the tokens read so far."""
        conn = frozenset(connectors)
        vocab: dict[str, int] = {}
        parts: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(max_n)]  # per n: (hashes, counts)
        pairs: list[tuple[np.ndarray, np.ndarray]] = []  # adjacent words: (left id << 32 | right id, counts)
        ids: list[int] = []
        done = 0

        def flush() -> None:
            nonlocal done
            if ids:
                _count_chunk(np.asarray(ids, dtype=np.int64), vocab, conn, parts, pairs)
                done += len(ids)
                ids.clear()
                if progress:
                    progress(done)

        for text in texts:
            for tok in TOKEN_RE.findall(text):
                tok = tok.lower()
                ids.append(vocab.setdefault(tok, len(vocab)))
            ids.append(-1)  # a text boundary: no n-gram crosses it
            if len(ids) >= chunk_tokens:
                flush()
        flush()
        frequent = _most_frequent(vocab, parts[0], n_frequent)
        hashes, counts = [], []
        for part in parts:
            keys, inverse = np.unique(np.concatenate([k for k, _ in part] or [np.zeros(0, np.uint64)]),
                                      return_inverse=True)
            vals = np.bincount(inverse, weights=np.concatenate([c for _, c in part] or [np.zeros(0)]),
                               minlength=len(keys))
            keep = vals >= min_count  # (np.unique sorts the hashes)
            hashes.append(keys[keep])
            counts.append(np.minimum(vals[keep], np.iinfo(np.uint32).max).astype(np.uint32))
        return cls(hashes, counts, min_count, conn, frequent, _after_words(vocab, pairs, frequent, hashes[0]))

    def save(self, path: str | os.PathLike) -> None:
        """Write the table as one ``.npz`` (atomically)."""
        arrays = {f"h{n + 1}": h for n, h in enumerate(self.hashes)} | {f"c{n + 1}": c for n, c in enumerate(self.counts)}
        if self.after_words is not None:
            arrays["a1"] = self.after_words
        write_npz(path, arrays | {"min_count": np.int64(self.min_count), "connectors": np.array(sorted(self.connectors)),
                                  "frequent": np.array(sorted(self.frequent))})

    @classmethod
    def load(cls, path: str | os.PathLike) -> PhraseCounts:
        """Read a table written by ``save``; ValueError naming the file when it is not one."""
        try:
            with np.load(Path(path), allow_pickle=False) as z:
                max_n = sum(1 for k in z.files if k.startswith("h"))
                return cls([z[f"h{n}"] for n in range(1, max_n + 1)], [z[f"c{n}"] for n in range(1, max_n + 1)],
                           int(z["min_count"]), frozenset(str(c) for c in z["connectors"]),
                           frozenset(str(w) for w in z["frequent"]), z["a1"] if "a1" in z.files else None)
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a phrase-count table ({exc})") from None


def _most_frequent(vocab: dict[str, int], unigrams: list[tuple[np.ndarray, np.ndarray]], n: int) -> frozenset[str]:
    """The ``n`` most frequent words of letters of the corpus (its function words), from its unigram counts."""
    keys = np.concatenate([k for k, _ in unigrams]) if unigrams else np.zeros(0, np.uint64)
    vals = np.concatenate([c for _, c in unigrams]) if unigrams else np.zeros(0, np.int64)
    keys, inverse = np.unique(keys, return_inverse=True)
    total = np.bincount(inverse, weights=vals, minlength=len(keys))
    alpha = np.array([token_hash(w) for w in vocab if w.isalpha()], dtype=np.uint64)
    total[~np.isin(keys, alpha)] = -1
    top = set(keys[np.argsort(-total, kind="stable")[:n]].tolist())
    return frozenset(w for w in vocab if w.isalpha() and token_hash(w) in top)


def _after_words(vocab: dict[str, int], pairs: list[tuple[np.ndarray, np.ndarray]], frequent: frozenset[str],
                 unigrams: np.ndarray) -> np.ndarray:
    """Per kept 1-gram (``unigrams``, sorted hashes), how often it follows a word of letters not among the
    ``frequent``, from the counts of adjacent word pairs."""
    words = sorted(vocab, key=vocab.get)
    codes = np.concatenate([c for c, _ in pairs]) if pairs else np.zeros(0, np.int64)
    vals = np.concatenate([v for _, v in pairs]) if pairs else np.zeros(0, np.int64)
    content = np.array([w.isalpha() and w not in frequent for w in words] or [False], dtype=bool)
    keep = content[codes >> 32]
    by_id = np.bincount(codes[keep] & 0xFFFFFFFF, weights=vals[keep], minlength=len(words))
    thash = np.array([token_hash(w) for w in words], dtype=np.uint64)
    at = np.minimum(unigrams.searchsorted(thash), max(len(unigrams) - 1, 0))
    found = (unigrams[at] == thash) if len(unigrams) else np.zeros(len(words), dtype=bool)
    out = np.zeros(len(unigrams), np.uint32)
    out[at[found]] = np.minimum(by_id[found], np.iinfo(np.uint32).max)
    return out


def _count_chunk(ids: np.ndarray, vocab: dict[str, int], connectors: frozenset[str],
                 parts: list[list[tuple[np.ndarray, np.ndarray]]], pairs: list[tuple[np.ndarray, np.ndarray]]
                 ) -> None:
    """Add the n-gram counts of one chunk of token ids (-1: a text boundary) to ``parts`` (per n), and those of its
    adjacent word pairs by their ids to ``pairs``."""
    words = sorted(vocab, key=vocab.get)
    kind = np.array([0 if w[0].isalnum() else (1 if w in connectors else 2) for w in words] + [2], dtype=np.int8)
    thash = np.array([token_hash(w) for w in words] + [0], dtype=np.uint64)
    k, h = kind[ids], thash[ids]  # (id -1 reads the last entry: a boundary)
    is_word = k == 0
    breaks = np.concatenate([[0], np.cumsum(k == 2)])  # breaks[j] - breaks[i]: marks that break a phrase in i..j-1
    acc = h.copy()
    with np.errstate(over="ignore"):
        for n in range(1, len(parts) + 1):
            if n > 1:
                acc = (acc[:-1] * _MULT) ^ h[n - 1:]
            start = np.arange(len(acc))
            ok = is_word[: len(acc)] & is_word[n - 1:] & (breaks[start + n] == breaks[start])
            parts[n - 1].append(np.unique(acc[ok], return_counts=True))
    adjacent = is_word[:-1] & is_word[1:]
    pairs.append(np.unique((ids[:-1][adjacent] << 32) | ids[1:][adjacent], return_counts=True))
