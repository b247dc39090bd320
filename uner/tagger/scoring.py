"""Scoring: descriptors vote their label distributions, label votes roll up into types (docs/design.md §3.3).

``LabelScorer`` holds the label table as matrices for one model vocabulary; ``SpanScores`` are the
votes of a list of spans and turn each into an ``Entity`` (with its descriptors when asked, taken
from the scorer whose predictions they are).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from ..labels import Calibration, LabelTable, TypeHierarchy, Weighting, term_distribution, type_rollup
from ..spans import Span

ADJECTIVE_TAGS = frozenset({"JJ", "JJR", "JJS"})
PUNCT = set(string.punctuation) | {"``", "''", "--", "...", "…", "–", "—"}
DOTTED = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]\.?")  # an abbreviation written with dots: "U.S.", "U.K." (looked up as "US")


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
    kept: bool = field(default=True, repr=False)  # False: a candidate the tagger rejected (``rejected=True``)
    named: bool = field(default=True, repr=False)  # the span is name-like (``Span.named``)
    stages: tuple[str, ...] = field(default=(), repr=False)  # the post-typing stages that changed it (``stages``)

    def to_dict(self, explain: bool = False, named: bool = False) -> dict:
        """The JSON form; with ``named``, whether the span was name-like (the teacher's output for a student); with
        ``explain``, the descriptors and the stages that changed the entity (when any)."""
        d = asdict(self)
        for key in ("distribution", "kept") + (() if named else ("named",)):
            d.pop(key)
        if not explain:
            d.pop("descriptors")
        if not (explain and self.stages):
            d.pop("stages")
        else:
            d["stages"] = list(self.stages)
        return d


class LabelScorer:
    """The label table as matrices, built once: descriptor → label distribution, label → type."""

    def __init__(self, table: LabelTable, types: TypeHierarchy, vocab: Sequence[str],
                 stop_descriptors: Iterable[str] = (), weighting: Weighting = Weighting(),
                 calibration: Calibration = Calibration()) -> None:
        if table.vocab_size != len(vocab):
            raise ValueError(f"label table is for a vocabulary of {table.vocab_size}, the model has {len(vocab)}")
        self.vocab = vocab
        self.index = {t: i for i, t in enumerate(vocab)}
        self.calibration = calibration
        self.dist = term_distribution(table, types, weighting)
        self.labels = table.labels
        self.type_names, self.rollup = type_rollup([types.parent(lab) for lab in table.labels])
        self.not_entity = {self.type_names.index(t) for t in types.not_entity if t in self.type_names}
        self.not_entity_labels = np.flatnonzero(self.rollup[:, sorted(self.not_entity)].sum(1) > 0)
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

    def term_votes(self, terms: Sequence[str]) -> np.ndarray:
        """terms × labels: each term's own label distribution (as written, else lower-cased; a dotted
        abbreviation without its dots; zeros for a term outside the vocabulary or unlabelled)."""
        out = np.zeros((len(terms), len(self.labels)), dtype=np.float32)
        for row, term in enumerate(terms):
            if DOTTED.fullmatch(term):
                term = term.replace(".", "")
            i = self.index.get(term, self.index.get(term.lower()))
            if i is not None:
                out[row] = self.dist[i]
        return out

    def type_margin(self, votes: np.ndarray) -> np.ndarray:
        """Per row of label votes: the top type's lead over the next, as a share of all the votes (0 when none)."""
        types = np.sort(votes @ self.rollup, axis=1)
        total = types.sum(1)
        lead = types[:, -1] - (types[:, -2] if types.shape[1] > 1 else 0)
        return np.divide(lead, total, out=np.zeros_like(lead), where=total > 0)

    def is_common_word(self, word: str) -> bool:
        """A vocabulary term (lower-cased) whose own labels are not mostly a person's: "Bank", "University",
        "Republic" head names such as "Bank of England"; "O'Neill" (no term) and "Keith" (a person) do not."""
        i = self.index.get(word.lower())
        if i is None:
            return False
        types = self.dist[i] @ self.rollup
        return not types.any() or self.type_names[int(np.argmax(types))] != "PERSON"

    def describe(self, ids: np.ndarray, logits: np.ndarray) -> list[list[dict]]:
        """The usable descriptors of each input with their logits and strongest label."""
        return [[{"term": self.vocab[i], "logit": round(float(lg), 3),
                  "label": self.labels[int(np.argmax(self.dist[i]))] if self.dist[i].any() else None}
                 for i, lg in zip(row_ids, row_logits) if self.usable[i]]
                for row_ids, row_logits in zip(ids, logits)]

    def span_scores(self, votes: np.ndarray, ids: np.ndarray, logits: np.ndarray, min_score: float,
                    subtype_share: float = 0.5) -> SpanScores:
        """This scorer's label votes of spans (spans × labels) with the predictions behind them."""
        return SpanScores(self.labels, self.type_names, self.rollup, self.not_entity, votes, ids, logits,
                          min_score, self, subtype_share)


def blend(votes: np.ndarray, own: np.ndarray, weight: float | np.ndarray) -> np.ndarray:
    """``votes`` (spans × labels) moved ``weight`` (one, or one per row) of the way to ``own``'s rows, where a row
    of ``own`` has any votes (a word's own labels: the span's head, its descriptor)."""
    weight = np.asarray(weight, np.float32) * (own.sum(1, keepdims=True) > 0)
    return (1 - weight) * votes + weight * own


def pool_groups(votes: np.ndarray, keys: Sequence[object | None], weight: float) -> np.ndarray:
    """``votes`` with each row whose key others share moved ``weight`` of the way to their mean row (coordinated
    spans, ``uner.spans.coordinations``: what the members share adds up, what one name's words say thins out);
    rows keyed None stay."""
    groups: dict[object, list[int]] = {}
    for k, key in enumerate(keys):
        if key is not None:
            groups.setdefault(key, []).append(k)
    out = votes.copy()
    for rows in groups.values():
        if len(rows) > 1:
            out[rows] = (1 - weight) * votes[rows] + weight * votes[rows].mean(0)
    return out


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
    subtype_share: float = 0.5

    def __post_init__(self) -> None:
        self.type_weights = self.scorer.calibration.weights_for(self.type_names)
        self.type_min = self.scorer.calibration.min_scores_for(self.type_names)
        self.subtype_cut = self.scorer.calibration.subtype_shares_for(self.labels, self.subtype_share)

    def type_row(self, k: int) -> np.ndarray:
        """Span ``k``'s share of the votes per type, after the calibration's type weights (still summing to
        what the votes sum to)."""
        raw = self.label_scores[k] @ self.rollup
        weighted = raw * self.type_weights
        total = weighted.sum()
        return weighted * (raw.sum() / total) if total > 0 else raw

    def entity(self, k: int, text: str, span: Span, explain: bool = False,
               min_score: float | None = None, rejected: bool = False) -> Entity | None:
        """The entity for span ``k``, or None when its top type is a not-entity label, nothing voted, or the
        top type's share is at most ``min_score`` (default: this object's) or, for a span the tagger found, its
        type's calibrated minimum (a caller's span is typed as given: the per-type minimums decide which candidates
        are kept). With ``rejected`` such a span is returned too, with ``kept=False`` and its top type (a not-entity
        label included) and share."""
        type_row = self.type_row(k)
        best = int(np.argmax(type_row))
        cut = max(self.min_score if min_score is None else min_score, 0.0 if span.given else float(self.type_min[best]))
        kept = bool(type_row[best] > cut) and best not in self.not_entity
        if not (kept or rejected):
            return None
        dist = {self.type_names[j]: round(float(v), 4) for j, v in enumerate(type_row) if v > 0}
        descriptors = self.scorer.describe(self.ids[k], self.logits[k]) if explain else None
        return Entity(text[span.start : span.end], span.start, span.end, self.type_names[best],
                      self.subtype(k, best, span), round(float(type_row[best]), 4), descriptors, dist, kept,
                      span.named)

    def subtype(self, k: int, best: int, span: Span) -> str | None:
        """The finest label the evidence supports under type ``best``: ``TYPE_ADJECTIVE`` for an adjective span
        ("Australian", "South Korean") when the type has one; else the strongest subtype among those that hold at
        least their share of the type's votes (``subtype_share``, or the calibration's for that subtype); else
        None."""
        name = self.type_names[best]
        if span.head_tag in ADJECTIVE_TAGS and f"{name}_ADJECTIVE" in self.labels:
            return f"{name}_ADJECTIVE"
        members = [j for j in np.flatnonzero(self.rollup[:, best]) if self.labels[j] != name]
        if not members:
            return None
        scores = self.label_scores[k, members]
        total = float(self.label_scores[k] @ self.rollup[:, best])
        held = (scores > 0) & (scores >= self.subtype_cut[members] * total)
        return self.labels[members[int(np.argmax(np.where(held, scores, -1.0)))]] if held.any() else None
