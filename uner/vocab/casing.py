"""Which of a person's types a domain writes in lower case: genres and algorithms are common nouns, artists names.

A name is capitalised in running text ("Madonna", "Python"); a music genre, an algorithm or an election is not
("jazz", "gradient descent"). The corpus tells them apart by the person's own seed terms: each seed's occurrences
that do not open a sentence, and how many of them are written without a capital. A type is written in lower case
when its seeds that the corpus has (at least ``min_seen`` times each, two seeds or more) are nearly all lower-case
words (``share`` of them, each lower case in at least half its occurrences): a few names among the seeds ("madonna",
"bowie" beside "singer", "musician") make it a type of names. An acronym says nothing either way, since English writes
every acronym in capitals, a common noun's ("BLEU", "ROC" for metrics) as a name's: a seed's occurrences written in
capitals do not count. ``uner adapt`` lets the tagger look at the common-noun spans of such types
(``TaggerConfig.common_types``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from .phrase_counts import tokens

SENTENCE_ENDS = frozenset({".", "!", "?"})  # a token after one of these opens a sentence


def seed_case_counts(texts: Iterable[str], seeds: Mapping[str, Iterable[str]]) -> dict[str, dict[str, list[int]]]:
    """Per type, per seed term: [occurrences not opening a sentence nor written in capitals, of them written in
    lower case]."""
    by_words: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
    for type_name, terms in seeds.items():
        for term in terms:
            words = tuple(w for w, _, _ in tokens(term))
            if words:
                by_words[words].append((type_name, term))
    longest = max(map(len, by_words), default=0)
    counts: dict[str, dict[str, list[int]]] = {t: {} for t in seeds}
    for text in texts:
        toks = tokens(text)
        for i in range(len(toks)):
            if i == 0 or toks[i - 1][0] in SENTENCE_ENDS:
                continue
            for n in range(1, min(longest, len(toks) - i) + 1):
                found = by_words.get(tuple(w for w, _, _ in toks[i : i + n]))
                if not found:
                    continue
                written = text[toks[i][1] : toks[i + n - 1][2]]
                if _acronym(written):
                    continue
                for type_name, term in found:
                    seen = counts[type_name].setdefault(term, [0, 0])
                    seen[0] += 1
                    seen[1] += written == written.lower()
    return counts


def _acronym(written: str) -> bool:
    """Written in capitals, two letters or more ("BLEU", "K-NN")."""
    return written.isupper() and sum(c.isalpha() for c in written) >= 2


def lowercase_types(counts: Mapping[str, Mapping[str, list[int]]], min_seen: int = 3,
                    share: float = 0.8) -> dict[str, float]:
    """The types written in lower case (``seed_case_counts``; see the module docstring), each with the share of
    its seen seeds that are lower-case words."""
    out = {}
    for type_name, terms in counts.items():
        seen = [lower / total for total, lower in terms.values() if total >= min_seen]
        if len(seen) >= 2:
            lower = sum(s >= 0.5 for s in seen) / len(seen)
            if lower >= share:
                out[type_name] = round(lower, 3)
    return out
