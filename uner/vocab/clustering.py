"""Vocabulary clustering: cosine-tail histograms → directed neighbour graph → clusters to label.

docs/design.md §3.1. For every term the cosines to the whole vocabulary are binned at
0.01; walking the bins down from 1.0, the first bin with ``max_bin`` terms (or two
consecutive bins with ``tail_min`` each) sets an adaptive cut-off, and the terms
strictly above it form the term's tail. Work is blockwise: a float32 matrix
product selects each row's top candidates, which are then re-scored exactly in
float64 so that bins (and thus tails) do not depend on BLAS summation order.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import yaml
from tqdm.auto import tqdm

from ..io import atomic_write_text, write_npz
from ..labels import carry_labels, dump_clusters
from ..labels.review import is_reviewed
from ..models import Backend, MaskedLM, resolve_model, special_mask
from ..paths import (CLUSTERS_FILE, GRAPH_FILE, NEIGHBOURHOODS_FILE, SUMMARY_FILE, check_writable, graph_cache_dir,
                     labels_dir, writable_labels_dir)
from ..vectors import normalise
from .graph import NeighbourGraph

N_BINS = 201  # cosine -1.00 … 1.00 in 0.01 steps; column c holds bin (c - 100) / 100


@dataclass(frozen=True)
class ClusterParams:
    """Parameters of the tail cut-off, the pivot clustering and the neighbourhoods."""

    max_bin: int = 20
    tail_min: int = 10
    min_chars: int = 3  # terms shorter than this are not clustered unless preserved
    min_cluster: int = 2
    neighbourhood: int = 20
    neighbourhood_min_cos: float = 0.2
    candidates: int = 128  # top candidates re-scored exactly per row; rows needing more fall back
    block_rows: int = 1024

    def __post_init__(self) -> None:
        if self.max_bin < self.tail_min or self.tail_min < 1:
            raise ValueError("need max_bin >= tail_min >= 1")


def cosine_bins(cos: np.ndarray) -> np.ndarray:
    """Bin index (-100 … 100) of each cosine, rounded to 0.01."""
    return np.clip(np.rint(cos * 100.0), -100, 100).astype(np.int64)


def tail_cutoffs(hist: np.ndarray, max_bin: int = 20, tail_min: int = 10,
                 complete_above: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Threshold bin per row of ``hist`` (rows × 201 counts) and whether it was found.

    Walking from bin 100 down: stop at the first bin with ≥ ``max_bin`` terms (threshold =
    that bin, or the previous one if it held ≥ ``tail_min``), or where two consecutive bins
    each hold ≥ ``tail_min`` (threshold = the first of the pair). The tail is every bin strictly
    above the threshold. ``complete_above[r]`` limits the walk to bins whose counts are known;
    rows where no stop is found there get ``found = False``. Without it, a walk that never
    stops puts the whole vocabulary in the tail (threshold -101).
    """
    desc = hist[:, ::-1]  # column j ↔ bin 100 - j
    big = desc >= max_bin
    pair = np.zeros_like(big)
    pair[:, 1:] = (desc[:, 1:] >= tail_min) & (desc[:, :-1] >= tail_min)
    stop = big | pair
    if complete_above is not None:
        known = (100 - np.arange(N_BINS))[None, :] > complete_above[:, None]
        stop &= known
    found = stop.any(axis=1)
    j = stop.argmax(axis=1)
    thr_col = np.where(pair[np.arange(len(j)), j], j - 1, j)
    thresholds = np.where(found, 100 - thr_col, -101)
    return thresholds, found


@dataclass
class VocabularyGraph:
    """Everything the block pass computes: the graph, neighbourhoods and the summary histogram."""

    graph: NeighbourGraph
    neighbourhood_ids: np.ndarray  # V × k, -1 padded
    neighbourhood_cos: np.ndarray
    mean_histogram: np.ndarray  # average count per bin over the rows
    fallback_rows: int


def build_graph(embeddings: np.ndarray, vocab: Sequence[str], params: ClusterParams = ClusterParams(),
                specials: Iterable[str] = (), progress: bool = True) -> VocabularyGraph:
    """Tails, thresholds and neighbourhoods of every term against the whole given vocabulary."""
    e64 = normalise(embeddings)
    e32 = torch.from_numpy(e64.astype(np.float32))
    n = len(vocab)
    special = special_mask(vocab, specials)
    k = min(params.candidates, n)
    indptr = [0]
    all_idx: list[np.ndarray] = []
    all_w: list[np.ndarray] = []
    thresholds = np.zeros(n, dtype=np.float32)
    nb_ids = np.full((n, params.neighbourhood), -1, dtype=np.int32)
    nb_cos = np.zeros((n, params.neighbourhood), dtype=np.float32)
    total_hist = np.zeros(N_BINS, dtype=np.int64)
    fallback = 0
    blocks = range(0, n, params.block_rows)
    for r0 in tqdm(blocks, desc="cosine tails", unit="block", disable=not progress):
        r1 = min(r0 + params.block_rows, n)
        rows = np.arange(r0, r1)
        sims = e32[r0:r1] @ e32.T
        total_hist += torch.histc(sims, bins=N_BINS, min=-1.005, max=1.005).long().numpy()  # summary only
        cand = torch.topk(sims, k, dim=1).indices.numpy()
        del sims
        cos = np.matmul(e64[cand], e64[rows][:, :, None])[..., 0]  # exact float64 re-score of the candidates
        order = _sort_rows(cos, cand)
        cand = np.take_along_axis(cand, order, axis=1)
        cos = np.take_along_axis(cos, order, axis=1)
        bins = cosine_bins(cos)
        hist = np.zeros((len(rows), N_BINS), dtype=np.int64)
        np.add.at(hist, (np.repeat(np.arange(len(rows)), k), (bins + 100).ravel()), 1)
        complete = bins[:, -1] if k < n else np.full(len(rows), -101)
        thr, found = tail_cutoffs(hist, params.max_bin, params.tail_min, complete)
        full_tails = {}
        miss = np.flatnonzero(~found)
        if len(miss):  # the stop lies below the candidates: bin these whole rows exactly, in one product
            fallback += len(miss)
            full = e64[rows[miss]] @ e64.T
            full_bins = cosine_bins(full)
            offsets = (full_bins + 100 + N_BINS * np.arange(len(miss))[:, None]).ravel()
            full_hist = np.bincount(offsets, minlength=len(miss) * N_BINS).reshape(len(miss), N_BINS)
            thr[miss] = tail_cutoffs(full_hist, params.max_bin, params.tail_min)[0]
            for j, r in enumerate(miss):
                ids = np.flatnonzero(full_bins[j] > thr[r])
                ids = ids[_sort_rows(full[j, ids], ids)]
                full_tails[r] = (ids, full[j, ids])
            del full, full_bins
        for r in range(len(rows)):
            if found[r]:
                keep = bins[r] > thr[r]
                ids, sim = cand[r][keep], cos[r][keep]
            else:
                ids, sim = full_tails[r]
            keep_self = ids != rows[r]
            all_idx.append(ids[keep_self])
            all_w.append(sim[keep_self])
            indptr.append(indptr[-1] + int(keep_self.sum()))
        thresholds[r0:r1] = thr / 100
        # neighbourhoods: self first, then the most similar non-special terms above the cosine floor
        valid = (~special[cand]) & (cos > params.neighbourhood_min_cos) & (cand != rows[:, None])
        rank = np.cumsum(valid, axis=1)
        ri, ci = np.nonzero(valid & (rank < params.neighbourhood))
        nb_ids[rows[ri], rank[ri, ci]] = cand[ri, ci]
        nb_cos[rows[ri], rank[ri, ci]] = cos[ri, ci]
        nb_ids[rows, 0], nb_cos[rows, 0] = rows, 1.0
    nb_ids[special], nb_cos[special] = -1, 0.0
    graph = NeighbourGraph(
        list(vocab), np.asarray(indptr, dtype=np.int64),
        np.concatenate(all_idx).astype(np.int32) if all_idx else np.zeros(0, np.int32),
        np.concatenate(all_w).astype(np.float32) if all_w else np.zeros(0, np.float32), thresholds,
    )
    return VocabularyGraph(graph, nb_ids, nb_cos, total_hist / max(n, 1), fallback)


def _sort_rows(cos: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per-row order: cosine descending, ties by id ascending."""
    return np.lexsort((ids, -cos), axis=-1)


# ---------------------------------------------------------------- pivot clusters


@dataclass
class Cluster:
    """A seed's filtered tail: members ordered by cosine to the pivot (pivot first)."""

    id: int
    pivot: str
    members: list[str]
    mean_cos: float
    std_cos: float

    def to_yaml_dict(self) -> dict:
        return {"id": self.id, "pivot": self.pivot, "size": len(self.members),
                "mean_cos": round(self.mean_cos, 4), "std_cos": round(self.std_cos, 4), "members": self.members}


def clusterable(vocab: Sequence[str], params: ClusterParams, specials: Iterable[str] = (),
                preserve: Iterable[str] = ()) -> np.ndarray:
    """Terms eligible as seeds and members: no subwords, no special tokens, no short terms unless preserved."""
    keep = set(preserve)
    special = special_mask(vocab, specials)
    return np.array([
        not special[i] and not t.startswith("##") and (len(t) >= params.min_chars or t in keep)
        for i, t in enumerate(vocab)
    ], dtype=bool)


PIVOT_TIE = 1e-12  # mean cosines closer than this are equal when choosing a pivot


def pivot_clusters(graph: NeighbourGraph, embeddings: np.ndarray, params: ClusterParams = ClusterParams(),
                   specials: Iterable[str] = (), preserve: Iterable[str] = ()) -> list[Cluster]:
    """The "adaptive" clustering: seeds in vocabulary order, each cluster = seed + its filtered tail.

    A seed is skipped when it is ineligible or already picked; every member of a kept cluster is
    marked picked (members may still appear in several clusters). The pivot is the member with
    the highest mean cosine to the others.
    """
    e64 = normalise(embeddings)
    ok = clusterable(graph.vocab, params, specials, preserve)
    picked = np.zeros(len(graph), dtype=bool)
    clusters: list[Cluster] = []
    for seed in range(len(graph)):
        if not ok[seed] or picked[seed]:
            continue
        lo, hi = graph.indptr[seed], graph.indptr[seed + 1]
        tail = graph.indices[lo:hi]
        members = np.concatenate([[seed], tail[ok[tail]]]).astype(np.int64)
        if len(members) < params.min_cluster:
            continue
        picked[members] = True
        sims = e64[members] @ e64[members].T
        mean_to_others = (sims.sum(1) - np.diag(sims)) / (len(members) - 1)
        # ties (every 2-member cluster) go to the earliest member, the seed: BLAS may round cos(a, b)
        # and cos(b, a) a few ulps apart, so a tie is anything within PIVOT_TIE
        pivot = int(np.flatnonzero(mean_to_others >= mean_to_others.max() - PIVOT_TIE)[0])
        to_pivot = sims[pivot]
        order = _sort_rows(to_pivot[None, :], members[None, :])[0]
        others = np.delete(to_pivot, pivot)
        clusters.append(Cluster(len(clusters) + 1, graph.vocab[members[pivot]],
                                [graph.vocab[m] for m in members[order]], float(others.mean()), float(others.std())))
    return clusters


# ---------------------------------------------------------------- outputs


def summarise(vg: VocabularyGraph, clusters: Sequence[Cluster]) -> dict:
    """Counts a reviewer wants before labelling: clusters, sizes, tail lengths, the cosine histogram."""
    sizes = np.array([len(c.members) for c in clusters], dtype=np.int64)
    edges = [2, 3, 4, 5, 6, 11, 21, 51, 101, 10**9]
    size_hist = {f"{a}-{b - 1}" if b - a > 1 else str(a): int(((sizes >= a) & (sizes < b)).sum())
                 for a, b in zip(edges[:-1], edges[1:])}
    tails = vg.graph.tail_lengths()
    hist = {f"{(c - 100) / 100:.2f}": round(float(v), 3) for c, v in enumerate(vg.mean_histogram) if v > 0}
    return {
        "vocabulary": len(vg.graph), "edges": vg.graph.n_edges, "clusters": len(clusters),
        "clustered_terms": int(len({m for c in clusters for m in c.members})),
        "cluster_size_histogram": size_hist,
        "mean_tail_length": round(float(tails.mean()), 3), "median_tail_length": float(np.median(tails)),
        "empty_tails": int((tails == 0).sum()), "rows_rescored_in_full": vg.fallback_rows,
        "mean_cosine_histogram": hist,
    }


def write_outputs(out: Path, vg: VocabularyGraph, entries: Sequence[dict], params: ClusterParams,
                  model_name: str, summary: dict) -> None:
    """graph.npz, neighbourhoods.npz, clusters.yaml and summary.json in ``out`` (each written atomically)."""
    out.mkdir(parents=True, exist_ok=True)
    vg.graph.save(out)
    write_npz(out / NEIGHBOURHOODS_FILE, {"ids": vg.neighbourhood_ids, "cos": vg.neighbourhood_cos})
    dump_clusters(out / CLUSTERS_FILE, {"model": model_name, "params": asdict(params), "clusters": list(entries)})
    atomic_write_text(out / SUMMARY_FILE, json.dumps({"model": model_name, **summary}, indent=1) + "\n")


def subset_ids(vocab: Sequence[str], limit: int | None = None, terms: Iterable[str] | None = None,
               specials: Iterable[str] = ()) -> np.ndarray:
    """Vocabulary ids for a quick run: the given terms, or the first ``limit`` non-special entries."""
    if terms is not None:
        index = {t: i for i, t in enumerate(vocab)}
        return np.array(sorted({index[t] for t in terms if t in index}), dtype=np.int64)
    ids = np.flatnonzero(~special_mask(vocab, specials))
    return ids[:limit] if limit else ids


def read_term_list(path: str | Path) -> list[str]:
    """One term per line (first whitespace-separated field); '#' comments and blank lines skipped."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line.split()[0])
    return out


class ReviewedLabelsError(RuntimeError):
    """Re-clustering would rewrite a ``clusters.yaml`` that holds human decisions or seed suggestions."""


def cluster_vocabulary(model: str | None = None, out: str | Path | None = None, *,
                       params: ClusterParams = ClusterParams(), limit: int | None = None,
                       subset: Iterable[str] | None = None, preserve: Iterable[str] = (),
                       progress: bool = True, carry: bool = False) -> tuple[VocabularyGraph, list[Cluster], dict, Path]:
    """The whole offline job for one model: graph, neighbourhoods, clusters and summary on disk.

    ``out`` defaults to ``paths.writable_labels_dir`` (never the installed package). A folder whose
    ``clusters.yaml`` was reviewed is re-clustered only with ``carry``: the decisions move to the new
    clusters by member overlap and the old file is kept as ``clusters.yaml.bak``; otherwise
    ReviewedLabelsError, before any work.
    """
    mlm = _load_backend(model)
    folder = Path(out) if out is not None else writable_labels_dir(mlm.name)
    check_writable(folder)
    previous = folder / CLUSTERS_FILE
    old = _previous_clusters(previous)
    reviewed = sum(is_reviewed(e) or bool(e.get("suggested")) for e in old)
    if reviewed and not carry:
        raise ReviewedLabelsError(
            f"{previous} holds {reviewed} reviewed or seed-suggested clusters; pass --carry-labels to re-cluster "
            "and carry the decisions to the new clusters (the old file is kept as clusters.yaml.bak), or --out DIR")
    embeddings, vocab = mlm.word_embeddings(), mlm.vocab
    specials = mlm.special_tokens
    if limit or subset is not None:
        ids = subset_ids(vocab, limit, subset, specials)
        embeddings, vocab = embeddings[ids], [vocab[i] for i in ids]
    vg = build_graph(embeddings, vocab, params, specials, progress)
    clusters = pivot_clusters(vg.graph, embeddings, params, specials, preserve)
    entries = [c.to_yaml_dict() for c in clusters]
    summary = summarise(vg, clusters)
    if reviewed:  # re-clustering: keep the human work by member overlap
        summary["carried"] = carry_labels(old, entries)
        shutil.copyfile(previous, previous.with_name(CLUSTERS_FILE + ".bak"))
    write_outputs(folder, vg, entries, params, mlm.name, summary)
    return vg, clusters, summary, folder


def _previous_clusters(path: Path) -> list[dict]:
    """The cluster entries of an existing ``clusters.yaml`` (none without one); ReviewedLabelsError when it
    cannot be read, since it may hold reviewed work."""
    if not path.is_file():
        return []
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ReviewedLabelsError(f"{path}: malformed YAML ({getattr(exc, 'problem', exc)}); fix it or use --out DIR")
    entries = doc.get("clusters") if isinstance(doc, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def build_cached_graph(model: str | None = None, progress: bool = True) -> Path:
    """Build a model's neighbour graph (default parameters, as ``uner cluster``) into its ``paths.graph_cache_dir``
    and return that folder: what ``uner neighbors`` and ``uner synonyms`` use out of the box."""
    mlm = _load_backend(model)
    vg = build_graph(mlm.word_embeddings(), mlm.vocab, ClusterParams(), mlm.special_tokens, progress)
    folder = graph_cache_dir(resolve_model(model))
    vg.graph.save(folder)
    return folder


def neighbour_graph(model: str | None = None, labels: str | Path | None = None, *, build: bool = False,
                    announce: Callable[[Path], None] | None = None) -> NeighbourGraph | None:
    """A model's neighbour graph: the ``graph.npz`` of the labels folder ``labels`` (default: the model's,
    ``paths.labels_dir``), else the one in the user cache (``paths.graph_cache_dir``). Where neither is, with
    ``build`` it is built into the cache (about a minute; ``announce(folder)`` is called first), else None.
    The one lookup behind ``uner neighbors``/``synonyms`` and the annotation page; ModelNotFoundError when the
    cache is asked for a model that cannot be resolved."""
    folder = Path(labels) if labels is not None else labels_dir(model)
    if (folder / GRAPH_FILE).is_file():
        return NeighbourGraph.load(folder)
    cache = graph_cache_dir(resolve_model(model))
    if not (cache / GRAPH_FILE).is_file():
        if not build:
            return None
        if announce is not None:
            announce(cache)
        build_cached_graph(model)
    return NeighbourGraph.load(cache)


def _load_backend(model: str | None) -> Backend:
    """The model whose word embeddings are clustered, on the CPU (only its embedding matrix is read)."""
    return MaskedLM.from_pretrained(model, device="cpu")
