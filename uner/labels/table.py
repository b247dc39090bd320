"""The compiled label table the tagger reads (``label_table.npz``) and how a term's counts become the
label distribution it votes with (docs/design.md §3.3)."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..io import write_npz
from .types import TypeHierarchy


@dataclass
class LabelTable:
    """Sparse vocabulary × label counts (COO), with the label names in column order.

    ``rows/cols/values`` hold the propagated counts E; ``direct_*`` the unpropagated matrix L
    (human cluster labels and seed terms) it was spread from, kept so scoring can weigh a
    term's own labels above what its neighbourhoods say.
    """

    labels: list[str]
    vocab_size: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    direct_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    direct_cols: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    direct_values: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    @classmethod
    def from_dense(cls, labels: list[str], spread: np.ndarray, direct: np.ndarray | None = None) -> LabelTable:
        """The sparse table of dense propagated counts E and (optionally) the direct counts L."""
        rows, cols = np.nonzero(spread)
        d_rows, d_cols = np.nonzero(direct) if direct is not None else (np.zeros(0, int), np.zeros(0, int))
        return cls(labels, len(spread), rows.astype(np.int32), cols.astype(np.int16),
                   spread[rows, cols].astype(np.float32), d_rows.astype(np.int32), d_cols.astype(np.int16),
                   (direct[d_rows, d_cols] if direct is not None else np.zeros(0)).astype(np.float32))

    def _dense(self, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, term_id: int | None) -> np.ndarray:
        if term_id is not None:
            hit = rows == term_id
            rows, cols, values = np.zeros(int(hit.sum()), int), cols[hit], values[hit]
        out = np.zeros((self.vocab_size if term_id is None else 1, len(self.labels)), dtype=np.float32)
        np.add.at(out, (rows, cols), values)
        return out if term_id is None else out[0]

    def dense_row(self, term_id: int) -> np.ndarray:
        """One term's propagated label counts."""
        return self._dense(self.rows, self.cols, self.values, term_id)

    def dense(self) -> np.ndarray:
        """Propagated counts E, vocabulary × labels."""
        return self._dense(self.rows, self.cols, self.values, None)

    def direct_dense(self) -> np.ndarray:
        """Unpropagated counts L (human labels + seeds), vocabulary × labels."""
        return self._dense(self.direct_rows, self.direct_cols, self.direct_values, None)

    def labelled_terms(self) -> np.ndarray:
        """The vocabulary ids that carry a label, propagated or direct (sorted, each once)."""
        return np.union1d(self.rows, self.direct_rows)

    def carried(self, old_vocab: Sequence[str], new_vocab: Sequence[str]) -> tuple[LabelTable, int]:
        """This table indexed by another model's vocabulary, term by term (a term's row follows its string), and
        how many labelled terms the other vocabulary lacks (their rows are dropped). For a model whose vocabulary
        holds the same terms (all-mpnet-base-v2 and MiniLM: the same WordPieces, other ids), nothing is lost."""
        index = {term: i for i, term in enumerate(new_vocab)}
        where = np.array([index.get(term, -1) for term in old_vocab], dtype=np.int64)

        def move(rows: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
            new = where[rows]
            keep = new >= 0
            return [new[keep].astype(np.int32), *(r[keep] for r in rest)]

        lost = int((where[self.labelled_terms()] < 0).sum())
        return LabelTable(self.labels, len(new_vocab), *move(self.rows, self.cols, self.values),
                          *move(self.direct_rows, self.direct_cols, self.direct_values)), lost

    def save(self, path: str | os.PathLike) -> None:
        """Write ``label_table.npz`` (deterministic bytes, atomic)."""
        write_npz(Path(path), {"labels": np.asarray(self.labels, dtype=str), "vocab_size": np.array(self.vocab_size),
                               "rows": self.rows, "cols": self.cols, "values": self.values,
                               "direct_rows": self.direct_rows, "direct_cols": self.direct_cols,
                               "direct_values": self.direct_values})

    @classmethod
    def load(cls, path: str | os.PathLike) -> LabelTable:
        """Read a table written by ``save`` (tables without the direct counts load with none); ValueError naming
        the file when it is not one (OSError when it cannot be read)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                direct = [z[k] for k in ("direct_rows", "direct_cols", "direct_values") if k in z]
                return cls(z["labels"].tolist(), int(z["vocab_size"]), z["rows"], z["cols"], z["values"], *direct)
        except (ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            why = str(exc).split(". ")[0].strip() or type(exc).__name__
            raise ValueError(f"{path}: not a label table ({why}); rebuild it with uner labels compile") from None


@dataclass(frozen=True)
class Weighting:
    """How a term's label counts become the label distribution it votes with (docs/design.md §3.3).

    ``normalise`` divides each label's counts by its type's total strength to that power (0: raw
    counts; 1: fully normalised), so types with long seed lists or many labelled clusters (PERSON,
    OTHER) do not win every term by sheer mass; ``sharpness`` is the power the counts are raised
    to before normalising each row (large → one-hot, like the reference's softmax over raw counts);
    ``direct`` mixes in the term's own human/seed labels with that weight; ``not_entity`` scales the
    not-entity labels (OTHER) against the entity types, trading precision for recall.
    """

    normalise: float = 0.5
    sharpness: float = 2.0
    direct: float = 0.5
    not_entity: float = 0.1  # extra factor on the not-entity labels (OTHER…): below 1 tags more spans

    def __post_init__(self) -> None:
        if not 0 <= self.normalise <= 1 or self.sharpness <= 0 or not 0 <= self.direct <= 1 or self.not_entity <= 0:
            raise ValueError("normalise and direct must be in [0, 1], sharpness and not_entity > 0")


def type_rollup(parents: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Type names (first-seen order) and the labels × types 0/1 matrix that sums label scores into types,
    from each label's type (``parents[j]`` for label column j)."""
    names = list(dict.fromkeys(parents))
    rollup = np.zeros((len(parents), len(names)), dtype=np.float32)
    rollup[np.arange(len(parents)), [names.index(t) for t in parents]] = 1.0
    return names, rollup


def _rows_normalised(x: np.ndarray) -> np.ndarray:
    total = x.sum(1, keepdims=True)
    return np.divide(x, total, out=np.zeros_like(x), where=total > 0)


def term_distribution(table: LabelTable, types: TypeHierarchy, weighting: Weighting = Weighting()) -> np.ndarray:
    """Vocabulary × labels: each term's label distribution (rows sum to 1, or 0 for unlabelled terms)."""
    counts = table.dense().astype(np.float64)
    if weighting.normalise:
        _, rollup = type_rollup([types.parent(lab) for lab in table.labels])
        type_strength = rollup @ (counts.sum(0) @ rollup)  # each label column gets its type's total
        counts *= np.maximum(type_strength, 1.0) ** -weighting.normalise
    if weighting.not_entity != 1:
        counts[:, [j for j, lab in enumerate(table.labels) if types.parent(lab) in types.not_entity]] *= weighting.not_entity
    counts /= counts.max(1, keepdims=True).clip(min=1e-30)
    dist = _rows_normalised(counts ** weighting.sharpness)
    if weighting.direct and len(table.direct_rows):
        own = _rows_normalised(table.direct_dense().astype(np.float64))
        has = own.sum(1) > 0
        dist[has] = (1 - weighting.direct) * dist[has] + weighting.direct * own[has]
    return dist.astype(np.float32)


def term_types(table: LabelTable, types: TypeHierarchy, weighting: Weighting = Weighting()) -> list[str | None]:
    """Each vocabulary term's strongest type as the tagger sees it (None for an unlabelled term)."""
    names, rollup = type_rollup([types.parent(lab) for lab in table.labels])
    typed = term_distribution(table, types, weighting) @ rollup
    best = typed.argmax(1)
    return [names[b] if typed[i, b] > 0 else None for i, b in enumerate(best)]


def label_stats(types: TypeHierarchy, table: LabelTable, weighting: Weighting = Weighting()) -> list[dict]:
    """Per label: terms labelled directly (seeds + human labels), terms the propagation reaches, terms whose
    strongest label it is (with ``weighting``, as the tagger sees them), total strength, magnification."""
    dense, direct = table.dense(), table.direct_dense()
    dist = term_distribution(table, types, weighting)
    top = np.where(dist.max(1) > 0, dist.argmax(1), -1)
    rows = []
    for j, lab in enumerate(table.labels):
        before = int((direct[:, j] > 0).sum())
        reached = int((dense[:, j] > 0).sum())
        if before or reached:
            won = int((top == j).sum())
            rows.append({"label": lab, "type": types.parent(lab), "seeded": before, "reached": reached, "top": won,
                         "strength": float(dense[:, j].sum()), "magnification": won / before if before else float("nan")})
    return rows
