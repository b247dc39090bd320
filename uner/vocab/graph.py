"""The directed neighbour graph of a vocabulary, as CSR arrays with a networkx view.

An edge a → b means b lies in a's cosine tail (docs/design.md §3.1). Tails differ in
length from term to term, so edges are not symmetric; "mutual" neighbours are
the pairs linked both ways.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from ..io import write_npz
from ..paths import GRAPH_FILE


@dataclass
class NeighbourGraph:
    """Out-edges of every term in CSR form: term i's tail is ``indices[indptr[i]:indptr[i+1]]``
    with cosines ``weights[...]`` in descending order; ``thresholds[i]`` is its tail cut-off."""

    vocab: list[str]
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    thresholds: np.ndarray
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _reverse: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._index = {t: i for i, t in enumerate(self.vocab)}

    def __len__(self) -> int:
        return len(self.vocab)

    @property
    def n_edges(self) -> int:
        return int(self.indptr[-1])

    def id(self, term: str | int) -> int:
        """Vocabulary id of a term (exact string), or the id itself; KeyError names unknown terms."""
        if isinstance(term, (int, np.integer)):
            return int(term)
        if term not in self._index:
            raise KeyError(f"{term!r} is not in the vocabulary")
        return self._index[term]

    def find(self, term: str, normalise: Callable[[str], str] | None = None) -> str:
        """The vocabulary term for ``term``: itself, else as the model's tokenizer normalises it (``normalise``:
        "London" → "london" for an uncased model); KeyError naming it when neither is in the vocabulary."""
        if term in self._index:
            return term
        normal = normalise(term) if normalise is not None else term
        if normal not in self._index:
            also = f" (nor is {normal!r})" if normal != term else ""
            raise KeyError(f"{term!r} is not in the vocabulary{also}")
        return normal

    def tail_lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def tail_length(self, term: str | int) -> int:
        i = self.id(term)
        return int(self.indptr[i + 1] - self.indptr[i])

    def out_neighbours(self, term: str | int) -> list[tuple[str, float]]:
        """The term's tail: (neighbour, cosine), most similar first."""
        i = self.id(term)
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return [(self.vocab[j], float(w)) for j, w in zip(self.indices[lo:hi], self.weights[lo:hi])]

    def _transpose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._reverse is None:
            src = np.repeat(np.arange(len(self.vocab), dtype=np.int32), np.diff(self.indptr))
            order = np.lexsort((-self.weights, self.indices))
            counts = np.bincount(self.indices, minlength=len(self.vocab))
            indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            self._reverse = (indptr, src[order], self.weights[order])
        return self._reverse

    def in_neighbours(self, term: str | int) -> list[tuple[str, float]]:
        """Terms whose tail contains this term: (term, cosine), most similar first."""
        i = self.id(term)
        indptr, src, w = self._transpose()
        lo, hi = indptr[i], indptr[i + 1]
        return [(self.vocab[j], float(c)) for j, c in zip(src[lo:hi], w[lo:hi])]

    def mutual_neighbours(self, term: str | int) -> list[tuple[str, float]]:
        """Neighbours linked both ways, most similar first."""
        incoming = {t for t, _ in self.in_neighbours(term)}
        return [(t, c) for t, c in self.out_neighbours(term) if t in incoming]

    def to_networkx(self) -> nx.DiGraph:
        """A networkx DiGraph with term names as nodes and ``weight`` = cosine on edges."""
        g = nx.DiGraph()
        g.add_nodes_from(self.vocab)
        src = np.repeat(np.arange(len(self.vocab)), np.diff(self.indptr))
        g.add_weighted_edges_from(
            (self.vocab[a], self.vocab[b], float(w)) for a, b, w in zip(src, self.indices, self.weights)
        )
        return g

    def save(self, folder: str | os.PathLike) -> Path:
        """Write ``graph.npz`` (uncompressed arrays, fixed zip timestamps: byte-identical re-runs), atomically."""
        path = Path(folder) / GRAPH_FILE
        arrays = {
            "vocab": np.asarray(self.vocab, dtype=str),
            "indptr": self.indptr.astype(np.int64),
            "indices": self.indices.astype(np.int32),
            "weights": self.weights.astype(np.float32),
            "thresholds": self.thresholds.astype(np.float32),
        }
        write_npz(path, arrays)
        return path

    @classmethod
    def load(cls, folder: str | os.PathLike) -> NeighbourGraph:
        """The graph in ``folder`` (or a graph file); FileNotFoundError saying how to make one when missing."""
        path = Path(folder)
        path = path / GRAPH_FILE if path.is_dir() or not path.suffix else path
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no graph; run `uner cluster --out {path.parent}` first")
        with np.load(path, allow_pickle=False) as z:
            return cls(z["vocab"].tolist(), z["indptr"], z["indices"], z["weights"], z["thresholds"])
