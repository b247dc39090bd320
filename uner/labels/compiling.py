"""Compiling a labels folder into ``label_table.npz`` as one call, for ``uner labels compile`` and the
annotation page's compile button (DESIGN.md §3.2)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .folder import LabelsFolder, Review
from .propagation import compile_table


@dataclass
class CompileReport:
    """What a compile used and produced."""

    confirmed: int
    seed_terms: int
    terms: int
    labelled: int
    propagated: int
    path: Path

    def __str__(self) -> str:
        return (f"{self.confirmed} confirmed clusters, {self.seed_terms} seed terms, {self.terms} terms.tsv entries: "
                f"{self.labelled} labelled vocabulary terms -> {self.propagated} after propagation -> {self.path}")


def compile_folder(labels: LabelsFolder, review: Review, embeddings: np.ndarray, special: np.ndarray,
                   seeds: dict[str, Counter] | None = None, neighbours: int = 20) -> CompileReport:
    """Propagate the review's confirmed clusters, ``seeds`` and the folder's ``terms.tsv`` over the
    neighbourhoods of ``embeddings`` (the model's input word embeddings; ``special`` marks tokens to
    skip) and save ``label_table.npz`` atomically. LabelError when ``terms.tsv`` has problems."""
    seeds = seeds or {}
    terms = labels.load_terms(review.types)
    table, direct = compile_table(review.vocab, embeddings, review.types, review.clusters, seeds, special,
                                  want=neighbours, terms=terms)
    path = labels.save_table(table)
    return CompileReport(review.confirmed, len(seeds), len(terms), int((direct.sum(1) > 0).sum()),
                         len(np.unique(table.rows)), path)
