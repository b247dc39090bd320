"""Sentence and document vectors from the masked LM and what is done with them (docs/design.md §3.5).

Modules, lowest first: ``whitening`` (running statistics, whitening, the additive flow), ``embeddings``
(poolings, sliding windows, the Ray job, cosine similarity, nearest-neighbour classes), ``diagnostics``
(the embedding space of a model: norms and neighbours by frequency, anisotropy, decoder bias; ``uner diagnose``).
"""

from .diagnostics import Diagnosis, anisotropy, diagnose, report_lines, whitened_anisotropy, write_plots
from .embeddings import (POOLING_KINDS, POOLINGS, NearestNeighbourClassifier, Pooling, PoolingKind, cosine_matrix, embed,
                         embed_many, embed_records, iter_embed, nearest_neighbour_labels, normalise, read_examples,
                         top_k_similar, windows)
from .whitening import AdditiveCoupling, AdditiveFlow, RunningStats, Whitening, streamed_stats

__all__ = [
    "POOLINGS", "POOLING_KINDS", "AdditiveCoupling", "AdditiveFlow", "Diagnosis", "NearestNeighbourClassifier",
    "Pooling", "PoolingKind", "RunningStats", "Whitening", "anisotropy", "cosine_matrix", "diagnose", "embed",
    "embed_many", "embed_records", "iter_embed", "nearest_neighbour_labels", "normalise", "read_examples",
    "report_lines", "streamed_stats", "top_k_similar", "whitened_anisotropy", "windows", "write_plots",
]
