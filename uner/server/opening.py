"""Opening a labels folder for the annotation page: the folder checked, and every source of context the page
shows beside a cluster (neighbour graph, seeds, corpus examples, tagged records, the corpus's descriptors)."""

from __future__ import annotations

import os
from pathlib import Path

from ..labels import LabelsFolder, load_seeds
from ..paths import DESCRIPTORS_FILE, check_writable
from ..vocab import neighbour_graph
from .context import Context, Corpus
from .demand import Demand
from .doubt import Doubt
from .workbench import Workbench


def open_workbench(path: str | os.PathLike | None = None, model: str | None = None, seeds: list[Path] | None = None,
                   corpus: Path | None = None, corpus_limit: int = 20_000, records: list[str] | None = None) -> Workbench:
    """Load a labels folder for review (validated as ``uner labels validate`` does), the model's neighbour
    graph when there is one (the folder's ``graph.npz``, else the user cache's; never built here), seed
    lists for evidence, a corpus for examples and tagged records (JSONL files) for the doubt of each cluster,
    and the folder's ``descriptors.jsonl`` (``uner adapt``) for what the corpus needs first.
    Raises LabelError, FileNotFoundError, InputError for a bad record, or ReadOnlyError for the installed
    package's own folder."""
    labels = LabelsFolder.existing(path)
    check_writable(labels.path)
    review = labels.load_review(model)
    seed_terms = load_seeds(labels.seed_sources(seeds or []), review.types)
    graph = neighbour_graph(review.model, labels.path)
    text = Corpus.read(corpus, review.vocab or [], corpus_limit) if corpus is not None else None
    doubt = Doubt.read(records, review.clusters) if records else None
    wanted = labels.path / DESCRIPTORS_FILE
    demand = Demand.read(wanted, review.clusters) if wanted.is_file() else None
    return Workbench(labels, review, Context(review.vocab or [], graph, text, seed_terms), doubt, demand)
