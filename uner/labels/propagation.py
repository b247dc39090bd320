"""Spreading human cluster labels and seed terms over the vocabulary's neighbourhoods: E = Nᵀ N L
(docs/design.md §3.2)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import torch

from ..vectors import normalise
from .review import cluster_labels
from .seeds import seed_vocab_matches
from .table import LabelTable
from .types import TypeHierarchy


def label_matrix(vocab: Sequence[str], types: TypeHierarchy, clusters: Sequence[dict],
                 seeds: dict[str, Counter], terms: dict[str, Counter] | None = None) -> np.ndarray:
    """L: vocabulary × labels counts from confirmed cluster labels and seed terms (before propagation).

    ``terms`` are per-term human labels (the labels folder's ``terms.tsv``): a listed term's row is
    replaced by its own labels, since a decision about one word beats the clusters it happens to be in.
    """
    labels = types.labels
    col = {lab: j for j, lab in enumerate(labels)}
    index = {t: i for i, t in enumerate(vocab)}
    mat = np.zeros((len(vocab), len(labels)), dtype=np.float32)
    for entry in clusters:
        if entry.get("status") != "confirmed":
            continue
        for lab in cluster_labels(entry):
            j = col[types.canonical(lab)]
            for m in entry["members"]:
                if m in index:
                    mat[index[m], j] += 1
    for i, counts in seed_vocab_matches(seeds, vocab).items():
        for lab, c in counts.items():
            mat[i, col[lab]] += c
    for i, counts in seed_vocab_matches(terms or {}, vocab).items():
        mat[i] = 0
        for lab, c in counts.items():
            mat[i, col[lab]] += c
    return mat


def propagate(label_mat: np.ndarray, neighbourhoods: np.ndarray) -> np.ndarray:
    """E = Nᵀ N L, with row i of ``neighbourhoods`` the vocabulary ids of neighbourhood i (-1 padded)."""
    rows, slots = np.nonzero(neighbourhoods >= 0)
    cols = neighbourhoods[rows, slots]
    n = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols]).astype(np.int64)),
                                torch.ones(len(rows), dtype=torch.float64),
                                (len(neighbourhoods), label_mat.shape[0]), check_invariants=True).coalesce()
    hood_hist = torch.sparse.mm(n, torch.from_numpy(label_mat.astype(np.float64)))
    return torch.sparse.mm(n.t().coalesce(), hood_hist).numpy().astype(np.float32)


def labelled_neighbourhoods(embeddings: np.ndarray, labelled: np.ndarray, special: np.ndarray, want: int = 20,
                            min_cos: float = 0.2, candidates: int = 200, block_rows: int = 2048) -> np.ndarray:
    """Each entry's neighbourhood: itself, then neighbours with cosine > ``min_cos`` in descending order
    until ``want`` labelled ones are included (unlabelled ones met on the way stay in)."""
    e = torch.from_numpy(normalise(embeddings).astype(np.float32))
    n = len(e)
    k = min(candidates, n)
    lab = torch.from_numpy(labelled & ~special)
    out = np.full((n, k + 1), -1, dtype=np.int32)
    for r0 in range(0, n, block_rows):
        sims = e[r0 : r0 + block_rows] @ e.T
        sims[:, torch.from_numpy(special)] = -2
        rows = torch.arange(r0, min(r0 + block_rows, n))
        sims[torch.arange(len(rows)), rows] = -2  # self goes first separately
        vals, idx = sims.topk(k, dim=1)
        ok = vals > min_cos
        hit = (lab[idx] & ok).int()
        keep = ok & (torch.cumsum(hit, dim=1) - hit < want)  # up to and including the want-th labelled one
        ids = torch.where(keep, idx, torch.full_like(idx, -1)).numpy()
        out[r0 : r0 + len(rows), 0] = rows.numpy()
        out[r0 : r0 + len(rows), 1:] = ids
    out[special] = -1
    return out


def compile_table(vocab: Sequence[str], embeddings: np.ndarray, types: TypeHierarchy, clusters: Sequence[dict],
                  seeds: dict[str, Counter], special: np.ndarray, want: int = 20,
                  min_cos: float = 0.2, terms: dict[str, Counter] | None = None) -> tuple[LabelTable, np.ndarray]:
    """The propagated label table and the unpropagated label matrix L."""
    mat = label_matrix(vocab, types, clusters, seeds, terms)
    hoods = labelled_neighbourhoods(embeddings, mat.sum(1) > 0, special, want, min_cos)
    return LabelTable.from_dense(types.labels, propagate(mat, hoods), mat), mat
