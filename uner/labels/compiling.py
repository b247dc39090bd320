"""Compiling a labels folder into ``label_table.npz``: the one owner of the operation behind
``uner labels compile`` (``compile_labels``) and the annotation page's compile button (``compile_folder``
with the model's embeddings loaded once, ``model_embeddings``) (docs/design.md §3.2)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..models import MaskedLM, special_mask
from ..paths import check_writable
from .folder import LabelsFolder, Review
from .propagation import compile_table
from .seeds import load_seeds


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
                   seeds: dict[str, Counter] | None = None, neighbours: int = 20,
                   terms: dict[str, Counter] | None = None) -> CompileReport:
    """Propagate the review's confirmed clusters, ``seeds`` and the folder's ``terms.tsv`` (``terms``: as
    already loaded) over the neighbourhoods of ``embeddings`` (the model's input word embeddings; ``special``
    marks tokens to skip) and save ``label_table.npz`` atomically. LabelError when ``terms.tsv`` has problems."""
    seeds = seeds or {}
    terms = labels.load_terms(review.types) if terms is None else terms
    table, direct = compile_table(review.vocab, embeddings, review.types, review.clusters, seeds, special,
                                  want=neighbours, terms=terms)
    path = labels.save_table(table)
    return CompileReport(review.confirmed, len(seeds), len(terms), int((direct.sum(1) > 0).sum()),
                         len(np.unique(table.rows)), path)


def model_embeddings(model: str | None, vocab: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """What a compile needs of ``model``: its input word embeddings and the mask of its special tokens over
    ``vocab``. ModelNotFoundError when it cannot be found."""
    mlm = MaskedLM.from_pretrained(model)
    return mlm.word_embeddings(), special_mask(vocab, mlm.special_tokens)


def compile_labels(folder: str | os.PathLike | None = None, model: str | None = None,
                   seeds: Sequence[str | os.PathLike] = (), neighbours: int = 20) -> CompileReport:
    """``uner labels compile``: propagate the confirmed clusters of the labels folder ``folder`` (default: the
    default model's), the seed lists or folders ``seeds`` and its ``terms.tsv`` over ``neighbours`` labelled
    neighbours per neighbourhood into ``label_table.npz``. Every file is checked before the model (default: the
    one ``clusters.yaml`` names) is loaded. Raises FileNotFoundError, ReadOnlyError (a folder of the installed
    package), LabelError (every file problem) or ModelNotFoundError."""
    labels = LabelsFolder.existing(folder)
    check_writable(labels.path)
    review = labels.load_review(model)
    terms = labels.load_terms(review.types)
    seed_terms = load_seeds(labels.seed_sources(seeds), review.types)
    embeddings, special = model_embeddings(review.model, review.vocab)
    return compile_folder(labels, review, embeddings, special, seed_terms, neighbours, terms)
