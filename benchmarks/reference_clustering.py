"""The clustering algorithm written the straightforward way: one term at a time, Python loops.

This is how the reference method computed tails (a cosine row, a dict histogram, a walk
down the bins), kept as an oracle for tests and as the baseline of bench_cluster.py.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from uner.vocab.clustering import PIVOT_TIE


def reference_tails(embeddings: np.ndarray, max_bin: int = 20, tail_min: int = 10):
    """Per term: (threshold bin, [(neighbour id, cosine), …] most similar first, self excluded)."""
    e = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    e = e / np.where(norms == 0, 1.0, norms)
    out = []
    for i in range(len(e)):
        cos = e @ e[i]
        bins = np.clip(np.rint(cos * 100.0), -100, 100).astype(int).tolist()
        counts = Counter(bins)
        threshold, previous = -101, None
        for b in range(100, -101, -1):
            c = counts.get(b, 0)
            if previous is not None and previous >= tail_min and c >= tail_min:
                threshold = b + 1
                break
            if c >= max_bin:
                threshold = b + 1 if previous is not None and previous >= tail_min else b
                break
            previous = c
        tail = [(j, float(cos[j])) for j in range(len(e)) if bins[j] > threshold and j != i]
        tail.sort(key=lambda jc: (-jc[1], jc[0]))
        out.append((threshold, tail))
    return out


def reference_clusters(embeddings: np.ndarray, vocab: list[str], tails, eligible: list[bool], min_cluster: int = 2):
    """Pivot clustering over the tails: [(pivot, members ordered by cosine to the pivot)]."""
    e = np.asarray(embeddings, dtype=np.float64)
    e = e / np.linalg.norm(e, axis=1, keepdims=True)
    picked = [False] * len(vocab)
    clusters = []
    for seed in range(len(vocab)):
        if not eligible[seed] or picked[seed]:
            continue
        members = [seed] + [j for j, _ in tails[seed][1] if eligible[j]]
        if len(members) < min_cluster:
            continue
        for m in members:
            picked[m] = True
        best, best_mean = None, -2.0
        for a in members:
            mean = sum(float(e[a] @ e[b]) for b in members if b != a) / (len(members) - 1)
            if mean > best_mean + PIVOT_TIE:  # ties go to the earliest member, the seed
                best, best_mean = a, mean
        ordered = sorted(members, key=lambda m: (-float(e[best] @ e[m]), m))
        clusters.append((vocab[best], [vocab[m] for m in ordered]))
    return clusters
