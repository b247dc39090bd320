"""Diagnostics of a model's vector space (DESIGN.md §3.5).

(a) word-embedding L2 norm and mean k-NN distance by word-frequency rank bucket
(the BERT-flow paper's observation: frequent words sit near the origin, rare ones
far out and sparse); (b) anisotropy — the mean cosine of random pairs of sentence
vectors — before and after whitening; (c) the MLM decoder bias as a per-term
importance score and its rank correlation with corpus frequency.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import torch

from .corpus import read_paragraphs
from .models import MaskedLM
from .whitening import RunningStats, Whitening

RANK_EDGES = (0, 100, 500, 5000, 10000, None)


def token_frequencies(mlm: MaskedLM, paths: Iterable[str], max_paragraphs: int = 20000, chunk: int = 2000) -> np.ndarray:
    """How often each vocabulary id occurs in the first ``max_paragraphs`` paragraphs of the files."""
    counts = np.zeros(len(mlm.vocab), dtype=np.int64)
    buf: list[str] = []
    seen = 0

    def flush() -> None:
        for ids in mlm.tokenizer(buf, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]:
            np.add.at(counts, ids, 1)
        buf.clear()

    for path in paths:
        for text in read_paragraphs(path):
            if not text:
                continue
            buf.append(text)
            seen += 1
            if len(buf) >= chunk:
                flush()
            if seen >= max_paragraphs:
                break
        if seen >= max_paragraphs:
            break
    if buf:
        flush()
    return counts


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks (1 = smallest) with ties given their average rank."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(1, len(x) + 1)
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return (sums / counts)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation."""
    return float(np.corrcoef(rankdata(np.asarray(a)), rankdata(np.asarray(b)))[0, 1])


def frequency_buckets(embeddings: np.ndarray, counts: np.ndarray, exclude: np.ndarray | None = None,
                      k: int = 3, edges: Sequence[int | None] = RANK_EDGES) -> list[dict]:
    """Per rank bucket (terms sorted by corpus frequency): mean L2 norm and mean L2 distance to the k nearest terms."""
    keep = np.ones(len(counts), bool) if exclude is None else ~exclude
    ids = np.flatnonzero(keep)
    ids = ids[np.argsort(-counts[ids], kind="stable")]
    e = torch.from_numpy(np.asarray(embeddings, dtype=np.float32))
    pool = e[ids]
    sq = (pool**2).sum(1)
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        members = ids[lo:hi]
        if len(members) == 0:
            continue
        knn = []
        for start in range(0, len(members), 1024):
            q = e[members[start : start + 1024]]
            d2 = (q**2).sum(1, keepdim=True) + sq[None, :] - 2 * q @ pool.T
            d = d2.clamp_min(0).sqrt()
            knn.append(d.topk(k + 1, largest=False).values[:, 1:].mean(1))  # skip the term itself
        rows.append({"ranks": f"{lo}-{hi if hi is not None else len(ids)}", "terms": len(members),
                     "mean_count": float(counts[members].mean()),
                     "l2_norm": float(e[members].norm(dim=1).mean()), "knn_l2": float(torch.cat(knn).mean())})
    return rows


def anisotropy(vectors: np.ndarray, pairs: int = 20000, seed: int = 0) -> float:
    """Mean cosine similarity of random pairs of distinct rows."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(vectors), pairs)
    b = (a + rng.integers(1, len(vectors), pairs)) % len(vectors)
    x = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return float((x[a] * x[b]).sum(1).mean())


def whitened_anisotropy(vectors: np.ndarray, k: int | None = None) -> float:
    """Anisotropy after whitening fitted on the same vectors."""
    w = Whitening.fit(RunningStats(vectors.shape[1]).update(vectors), k=k)
    return anisotropy(w.transform(vectors))


def bias_report(mlm: MaskedLM, counts: np.ndarray, n: int = 30, exclude: np.ndarray | None = None) -> dict:
    """Top/bottom terms by decoder bias and the bias ~ log-frequency Spearman correlation (terms seen ≥ once)."""
    bias = mlm.decoder_bias()
    keep = np.ones(len(bias), bool) if exclude is None else ~exclude
    order = np.argsort(-bias, kind="stable")
    order = order[keep[order]]
    seen = keep & (counts > 0)
    return {
        "top": [(mlm.vocab[i], float(bias[i])) for i in order[:n]],
        "bottom": [(mlm.vocab[i], float(bias[i])) for i in order[::-1][:n]],
        "spearman_bias_log_freq": spearman(bias[seen], np.log(counts[seen])),
        "terms_seen": int(seen.sum()),
    }
