"""What the page shows beside a cluster's own fields: term frequency, example sentences from a corpus,
neighbouring clusters in the graph, the seed terms behind a suggestion, and the labels to pick from."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field

from ..io import read_paragraphs
from ..labels import Review, cluster_labels
from ..vocab import NeighbourGraph

WORD_RE = re.compile(r"\w+")
SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")


def words_in(text: str, terms: Container[str]) -> list[str]:
    """The words of ``text`` (runs of ``\\w``, lower-cased) that are in ``terms``: how the page counts a
    term in a corpus and finds it in a tagged entity (whole words, any case)."""
    return [w for w in WORD_RE.findall(text.lower()) if w in terms]


@dataclass
class Corpus:
    """Term counts and a few example sentences per term (lower-cased) from the start of a corpus."""

    counts: Counter = field(default_factory=Counter)
    hits: dict[str, list[int]] = field(default_factory=dict)
    sentences: dict[int, str] = field(default_factory=dict)
    paragraphs: int = 0

    @classmethod
    def read(cls, path: str | os.PathLike, terms: Iterable[str], limit: int = 20_000, per_term: int = 3,
             max_chars: int = 300) -> Corpus:
        """Index the first ``limit`` paragraphs of a text corpus (.txt, .gz, .xz or token file) for ``terms``."""
        wanted = {t.lower() for t in terms}
        corpus = cls()
        n = 0
        for paragraph in read_paragraphs(path):
            corpus.paragraphs += 1
            for sentence in SENTENCE_RE.split(paragraph):
                words = words_in(sentence, wanted)
                corpus.counts.update(words)
                if not 20 <= len(sentence) <= max_chars:
                    continue
                for w in set(words):
                    seen = corpus.hits.setdefault(w, [])
                    if len(seen) < per_term:
                        seen.append(n)
                        corpus.sentences[n] = sentence
                n += 1
            if corpus.paragraphs >= limit:
                break
        return corpus

    def examples(self, terms: Sequence[str], n: int = 3) -> list[dict]:
        """Up to ``n`` sentences, each for a different term, most frequent terms first."""
        out, used = [], set()
        for term in terms:
            for i in self.hits.get(term.lower(), []):
                if i not in used:
                    used.add(i)
                    out.append({"term": term, "text": self.sentences[i]})
                    break
            if len(out) == n:
                break
        return out


class Context:
    """Per-term frequency order, member → cluster lookup, the optional graph, corpus and seeds."""

    def __init__(self, vocab: Sequence[str], graph: NeighbourGraph | None = None, corpus: Corpus | None = None,
                 seeds: dict[str, Counter] | None = None) -> None:
        self.rank = {t: i for i, t in enumerate(vocab)}
        self.graph, self.corpus, self.seeds = graph, corpus, seeds or {}
        self._lower = {}
        for term in self.seeds:
            self._lower.setdefault(term.lower(), term)
        self.owner: dict[str, int] = {}

    def index(self, clusters: Sequence[dict]) -> None:
        """Remember which cluster holds each term (the first, by id)."""
        self.owner = {}
        for entry in sorted(clusters, key=lambda e: e["id"]):
            for m in entry["members"]:
                self.owner.setdefault(m, entry["id"])

    def count(self, term: str) -> int | None:
        """The term's corpus count (None without a corpus)."""
        return self.corpus.counts.get(term.lower(), 0) if self.corpus else None

    def by_frequency(self, members: Sequence[str]) -> list[str]:
        """Members most frequent first: corpus counts when there is a corpus, then vocabulary order
        (WordPiece vocabularies list whole words roughly by frequency)."""
        return sorted(members, key=lambda m: (-(self.count(m) or 0), self.rank.get(m, len(self.rank))))

    def frequency(self, members: Sequence[str]) -> dict:
        """A cluster's frequency keys: total corpus count (or None) and its most frequent member's vocabulary rank."""
        counts = [self.count(m) for m in members]
        return {"freq": sum(counts) if self.corpus else None,
                "rank": min((self.rank.get(m, len(self.rank)) for m in members), default=len(self.rank))}

    def evidence(self, members: Sequence[str]) -> dict[str, list[str]]:
        """Suggested label → the members whose seed entries carry it (exact case first, then lower case)."""
        out: dict[str, list[str]] = {}
        for m in members:
            key = m if m in self.seeds else self._lower.get(m.lower())
            for label in self.seeds.get(key, ()):
                out.setdefault(label, []).append(m)
        return out

    def neighbours(self, entry: dict, terms: int = 5, top: int = 8) -> list[dict]:
        """Clusters the graph links to from the cluster's first ``terms`` members: id and the linked terms
        with their cosines, strongest first (empty without a graph)."""
        if self.graph is None:
            return []
        own = set(entry["members"])
        weight: Counter = Counter()
        linked: dict[int, dict[str, float]] = {}
        for m in [entry["pivot"]] + [m for m in self.by_frequency(entry["members"]) if m != entry["pivot"]][:terms - 1]:
            try:
                tail = self.graph.out_neighbours(m)
            except KeyError:  # a graph of another vocabulary
                continue
            for t, cos in tail:
                cid = self.owner.get(t)
                if t in own or cid is None:
                    continue
                weight[cid] += cos
                best = linked.setdefault(cid, {})
                best[t] = max(best.get(t, 0.0), cos)
        return [{"id": cid, "terms": [[t, round(c, 3)] for t, c in sorted(linked[cid].items(), key=lambda x: -x[1])[:6]],
                 "weight": round(w, 3)} for cid, w in weight.most_common(top)]


def key_types(review: Review, n: int = 9) -> list[str]:
    """The labels for the number keys 1–9: the most common confirmed labels, then types.yaml order."""
    counts = Counter(lab for e in review.clusters if e.get("status") == "confirmed" for lab in cluster_labels(e)[:1])
    keys = [lab for lab, _ in counts.most_common(n) if review.types.canonical(lab)]
    return (keys + [lab for lab in review.types.labels if lab not in keys])[:n]


def type_list(review: Review) -> list[dict]:
    """Every label for the type picker: name, its type (for subtypes), description, and kind."""
    t = review.types
    out = []
    for name, subs in t.types.items():
        out.append({"name": name, "parent": None, "kind": "type", "description": t.descriptions.get(name, "")})
        out += [{"name": s, "parent": name, "kind": "subtype", "description": t.descriptions.get(s, "")} for s in subs]
    out += [{"name": s, "parent": None, "kind": "not-entity", "description": t.descriptions.get(s, "")}
            for s in t.not_entity]
    return out
