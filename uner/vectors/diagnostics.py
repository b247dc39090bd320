"""Diagnostics of a model's vector space (docs/design.md §3.5).

(a) word-embedding L2 norm and mean k-NN distance by word-frequency rank bucket
(the BERT-flow paper's observation: frequent words sit near the origin, rare ones
far out and sparse); (b) anisotropy — the mean cosine of random pairs of sentence
vectors — before and after whitening; (c) the MLM decoder bias as a per-term
importance score and its rank correlation with corpus frequency. ``diagnose`` runs all
three, ``report_lines`` prints them and ``write_plots`` draws them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..io import read_paragraphs
from ..models import Backend, special_mask
from .embeddings import embed_many
from .whitening import RunningStats, Whitening

RANK_EDGES = (0, 100, 500, 5000, 10000, None)
ANISOTROPY_POOLINGS = ("cls-head", "cls", "mean", "first-last-mean")


def token_frequencies(mlm: Backend, paths: Iterable[str], max_paragraphs: int = 20000, chunk: int = 2000) -> np.ndarray:
    """How often each vocabulary id occurs in the first ``max_paragraphs`` paragraphs of the files."""
    counts = np.zeros(len(mlm.vocab), dtype=np.int64)
    buf: list[str] = []
    seen = 0

    def flush() -> None:
        for ids in mlm.tokenize_ids(buf):
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


def bias_report(mlm: Backend, counts: np.ndarray, n: int = 30, exclude: np.ndarray | None = None) -> dict:
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


@dataclass
class Diagnosis:
    """Everything ``diagnose`` measured, for the report and the plots."""

    counts: np.ndarray  # corpus frequency per vocabulary id
    special: np.ndarray  # True for special and reserved tokens (left out of every figure)
    buckets: list[dict]  # (a) per frequency-rank bucket
    paragraphs: int  # how many paragraph vectors (b) used
    anisotropy: dict[str, tuple[float, float]]  # (b) pooling → (raw, whitened)
    bias: dict  # (c) ``bias_report``
    decoder_bias: np.ndarray  # (V,)


def diagnose(mlm: Backend, paths: Sequence[str | Path], max_paragraphs: int = 20000,
             sentences: int = 2000) -> Diagnosis:
    """(a) word embeddings by frequency rank, (b) anisotropy of the first ``sentences`` paragraph vectors
    before/after whitening, (c) decoder bias vs frequency, over corpus files."""
    counts = token_frequencies(mlm, [str(p) for p in paths], max_paragraphs)
    special = special_mask(mlm.vocab, mlm.special_tokens)
    buckets = frequency_buckets(mlm.word_embeddings(), counts, special)
    texts = list(itertools.islice((t for p in paths for t in read_paragraphs(p) if t), sentences))
    vectors = embed_many(mlm, texts, list(ANISOTROPY_POOLINGS))
    spread = {name: (anisotropy(v), whitened_anisotropy(v)) for name, v in vectors.items()}
    return Diagnosis(counts, special, buckets, len(texts), spread, bias_report(mlm, counts, exclude=special),
                     mlm.decoder_bias())


def report_lines(d: Diagnosis) -> list[str]:
    """The diagnosis as printed by ``uner diagnose``."""
    lines = [f"(a) word embeddings by frequency rank ({int(d.counts.sum())} tokens counted)",
             f"  {'ranks':>12} {'terms':>6} {'mean count':>10} {'L2 norm':>8} {'3-NN L2':>8}"]
    lines += [f"  {b['ranks']:>12} {b['terms']:>6} {b['mean_count']:>10.1f} {b['l2_norm']:>8.3f} {b['knn_l2']:>8.3f}"
              for b in d.buckets]
    lines.append(f"(b) anisotropy: mean cosine of random pairs of {d.paragraphs} paragraph vectors")
    lines += [f"  {name:>16}: raw {raw:.3f}   whitened {white:.3f}" for name, (raw, white) in d.anisotropy.items()]
    lines += [f"(c) decoder bias vs log corpus frequency over {d.bias['terms_seen']} seen terms: "
              f"Spearman {d.bias['spearman_bias_log_freq']:.3f}",
              "  top 30: " + " ".join(f"{t}({b:.2f})" for t, b in d.bias["top"]),
              "  bottom 30: " + " ".join(f"{t}({b:.2f})" for t, b in d.bias["bottom"])]
    return lines


def write_plots(folder: str | Path, d: Diagnosis) -> None:
    """bias_vs_frequency.png and norm_by_rank.png in ``folder``; ImportError when matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    seen = (d.counts > 0) & ~d.special
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.scatter(np.log(d.counts[seen]), d.decoder_bias[seen], s=1, alpha=0.3)
    ax.set_xlabel("log corpus frequency")
    ax.set_ylabel("MLM decoder bias")
    fig.tight_layout()
    fig.savefig(folder / "bias_vs_frequency.png", dpi=120)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.bar([b["ranks"] for b in d.buckets], [b["l2_norm"] for b in d.buckets])
    ax.set_ylabel("mean L2 norm")
    ax.set_xlabel("frequency rank bucket")
    fig.tight_layout()
    fig.savefig(folder / "norm_by_rank.png", dpi=120)
