"""Scoring: descriptors vote their label distributions, label votes roll up into types (DESIGN.md §3.3).

``LabelScorer`` holds the label table as matrices for one model vocabulary; ``SpanScores`` are the
votes of a list of spans and turn each into an ``Entity`` (with its descriptors when asked, taken
from the scorer whose predictions they are).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..labels import LabelTable, TypeHierarchy, Weighting, term_distribution, type_rollup
from ..spans import Span

if TYPE_CHECKING:
    from .core import BaseTagger

PUNCT = set(string.punctuation) | {"``", "''", "--", "...", "…", "–", "—"}


@dataclass
class Entity:
    """A typed span; ``start``/``end`` are character offsets into the input text."""

    text: str
    start: int
    end: int
    type: str
    subtype: str | None
    score: float
    descriptors: list | None = None
    distribution: dict | None = field(default=None, repr=False)

    def to_dict(self, explain: bool = False) -> dict:
        d = asdict(self)
        d.pop("distribution")
        if not explain:
            d.pop("descriptors")
        return d


class LabelScorer:
    """The label table as matrices, built once: descriptor → label distribution, label → type."""

    def __init__(self, table: LabelTable, types: TypeHierarchy, vocab: Sequence[str],
                 stop_descriptors: Iterable[str] = (), weighting: Weighting = Weighting()) -> None:
        if table.vocab_size != len(vocab):
            raise ValueError(f"label table is for a vocabulary of {table.vocab_size}, the model has {len(vocab)}")
        self.vocab = vocab
        self.dist = term_distribution(table, types, weighting)
        self.labels = table.labels
        self.type_names, self.rollup = type_rollup([types.parent(lab) for lab in table.labels])
        self.not_entity = {self.type_names.index(t) for t in types.not_entity if t in self.type_names}
        stop = set(stop_descriptors)
        self.usable = np.array([not (t.startswith("##") or len(t) < 2 or t in PUNCT or t in stop
                                     or all(c in PUNCT for c in t) or re.fullmatch(r"\[.*\]|<.*>", t))
                                for t in vocab], dtype=bool)

    def label_scores(self, ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """M × labels: logit-weighted label votes of the usable descriptors, normalised per row."""
        weights = np.where(self.usable[ids], logits, 0.0).astype(np.float32)
        votes = np.einsum("mk,mkl->ml", weights, self.dist[ids])
        total = votes.sum(1, keepdims=True)
        return np.divide(votes, total, out=np.zeros_like(votes), where=total > 0)

    def describe(self, ids: np.ndarray, logits: np.ndarray) -> list[list[dict]]:
        """The usable descriptors of each input with their logits and strongest label."""
        return [[{"term": self.vocab[i], "logit": round(float(lg), 3),
                  "label": self.labels[int(np.argmax(self.dist[i]))] if self.dist[i].any() else None}
                 for i, lg in zip(row_ids, row_logits) if self.usable[i]]
                for row_ids, row_logits in zip(ids, logits)]

    def span_scores(self, votes: np.ndarray, ids: np.ndarray, logits: np.ndarray, min_score: float) -> SpanScores:
        """This scorer's label votes of spans (spans × labels) with the predictions behind them."""
        return SpanScores(self.labels, self.type_names, self.rollup, self.not_entity, votes, ids, logits,
                          min_score, self)


@dataclass
class SpanScores:
    """Scores of a list of spans: normalised label votes (spans × labels), rolled up into types.

    ``ids``/``logits`` (spans × inputs × k) are the predictions of ``scorer``'s model, which names
    their descriptors."""

    labels: list[str]
    type_names: list[str]
    rollup: np.ndarray
    not_entity: set[int]
    label_scores: np.ndarray
    ids: np.ndarray
    logits: np.ndarray
    min_score: float
    scorer: LabelScorer

    def entity(self, k: int, text: str, span: Span, explain: bool = False) -> Entity | None:
        """The entity for span ``k``, or None when its top type is a not-entity label, nothing voted, or the
        top type's share is at most ``min_score``."""
        type_row = self.label_scores[k] @ self.rollup
        best = int(np.argmax(type_row))
        if type_row[best] <= self.min_score or best in self.not_entity:
            return None
        members = np.flatnonzero(self.rollup[:, best])
        subtype = self.labels[int(members[np.argmax(self.label_scores[k, members])])]
        dist = {self.type_names[j]: round(float(v), 4) for j, v in enumerate(type_row) if v > 0}
        descriptors = self.scorer.describe(self.ids[k], self.logits[k]) if explain else None
        return Entity(text[span.start : span.end], span.start, span.end, self.type_names[best],
                      subtype if subtype != self.type_names[best] else None, round(float(type_row[best]), 4),
                      descriptors, dist)


def entity_guesses(tagger: BaseTagger, texts: Sequence[str], k: int = 50) -> list[list[dict[str, float]]]:
    """Fill-in-the-blank entity guessing: per mask, entity types with the summed probability of the
    top-k predicted terms that carry them ("aripiprazole is used to treat [MASK]" → DISEASE …)."""
    scorer = tagger.scorer
    out = []
    for preds in tagger.mlm.top_k(texts, k=k):
        per_mask = []
        for p in preds:
            probs = np.exp(p.logits - p.logits.max())
            probs /= probs.sum()
            types = (scorer.dist[p.ids] @ scorer.rollup) * probs[:, None]
            totals = types.sum(0)
            order = np.argsort(-totals)
            per_mask.append({scorer.type_names[j]: round(float(totals[j]), 4) for j in order if totals[j] > 0})
        out.append(per_mask)
    return out
