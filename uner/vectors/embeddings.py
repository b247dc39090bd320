"""Sentence and document vectors from the masked LM (docs/design.md §3.5).

Poolings (registered by name in ``POOLING_KINDS``):
- ``cls-head``: the [CLS] state after the MLM head's transform layer;
- ``cls``: the [CLS] state of the top layer;
- ``mean``: the mean of the last layer's token states ([CLS] and [SEP] included);
- ``last-k-mean``: the same over the mean of the last ``k`` layers;
- ``first-last-mean``: the same over the mean of the first transformer layer and the last.

A document longer than the model window is cut into windows (``window`` tokens,
``stride`` apart, the last one flush with the end) that each get [CLS]/[SEP]. Every
position's vector is averaged over the windows that contain it (the [CLS]/[SEP]
positions over all windows), then pooled as for a short text, so one window gives
exactly the short-text result and no token is ever dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..io import InputError, RayOptions, Record, local_path, map_records, read_records
from ..models import Backend, MaskedLM, resolve_model
from .whitening import RunningStats, Whitening

LayerPool = Callable[[np.ndarray, Backend, int], np.ndarray]


@dataclass(frozen=True)
class PoolingKind:
    """How one pooling reads a window: the states it needs alone, [CLS] or all positions, and how it
    turns all layers' states ((layers+1) × T × d, used when several poolings share a pass) into T × d."""

    layers: str  # what ``Backend.token_states`` must return for this pooling alone
    is_cls: bool
    from_layers: LayerPool  # (all states, model, k) → per-token vectors


def _last(states: np.ndarray, mlm: Backend, k: int) -> np.ndarray:
    return states[-1]


def _cls_head(states: np.ndarray, mlm: Backend, k: int) -> np.ndarray:
    return mlm.head_transform_states(states[-1][:1])


def _last_k_mean(states: np.ndarray, mlm: Backend, k: int) -> np.ndarray:
    return states[-k:].mean(axis=0)


def _first_last_mean(states: np.ndarray, mlm: Backend, k: int) -> np.ndarray:
    return (states[1] + states[-1]) / 2


POOLING_KINDS: dict[str, PoolingKind] = {
    "cls-head": PoolingKind("head", True, _cls_head),
    "cls": PoolingKind("last", True, _last),
    "mean": PoolingKind("last", False, _last),
    "last-k-mean": PoolingKind("all", False, _last_k_mean),
    "first-last-mean": PoolingKind("all", False, _first_last_mean),
}
POOLINGS = tuple(POOLING_KINDS)


@dataclass(frozen=True)
class Pooling:
    """Which vector to take from the model (a name in ``POOLING_KINDS``); validated up front."""

    name: str = "mean"
    k: int = 4  # layers for last-k-mean

    def __post_init__(self) -> None:
        if self.name not in POOLING_KINDS:
            raise ValueError(f"unknown pooling {self.name!r}; choose one of {', '.join(POOLING_KINDS)}")
        if self.k < 1:
            raise ValueError("k must be at least 1")

    @property
    def layers(self) -> str:
        """What ``Backend.token_states`` must return for this pooling alone."""
        return POOLING_KINDS[self.name].layers

    @property
    def is_cls(self) -> bool:
        return POOLING_KINDS[self.name].is_cls

    def token_vectors(self, states: np.ndarray, mlm: Backend) -> np.ndarray:
        """Per-token vectors (T × d) of one window, from states of kind ``self.layers`` or ``"all"``."""
        if states.ndim == 2:  # already the right layer ("last" or "head")
            return states
        return POOLING_KINDS[self.name].from_layers(states, mlm, self.k)


def windows(n_tokens: int, window: int, stride: int) -> list[tuple[int, int]]:
    """(start, end) content spans covering ``range(n_tokens)``: ``stride`` apart, the last flush with the end."""
    if window < 1 or stride < 1:
        raise ValueError("window and stride must be positive")
    if n_tokens <= window:
        return [(0, n_tokens)]
    starts = list(range(0, n_tokens - window, stride)) + [n_tokens - window]
    return [(a, a + window) for a in starts]


def embed(mlm: Backend, texts: Iterable[str], pooling: Pooling | str = "mean", *, window: int | None = None,
          stride: int | None = None, chunk: int = 512) -> np.ndarray:
    """One vector per text (n × d float32) for one pooling."""
    pool = Pooling(pooling) if isinstance(pooling, str) else pooling
    return embed_many(mlm, texts, [pool], window=window, stride=stride, chunk=chunk)[pool.name]


def embed_many(mlm: Backend, texts: Iterable[str], poolings: Sequence[Pooling | str], *,
               window: int | None = None, stride: int | None = None, chunk: int = 512) -> dict[str, np.ndarray]:
    """Vectors for several poolings from a single pass of the model: pooling name → n × d."""
    pools = [Pooling(p) if isinstance(p, str) else p for p in poolings]
    parts: dict[str, list[np.ndarray]] = {p.name: [] for p in pools}
    for block in iter_embed(mlm, texts, pools, window=window, stride=stride, chunk=chunk):
        for name, arr in block.items():
            parts[name].append(arr)
    if not all(parts.values()):  # no texts: empty rows of the word-embedding width
        return {name: np.zeros((0, mlm.word_embeddings().shape[1]), np.float32) for name in parts}
    return {name: np.concatenate(v) for name, v in parts.items()}


def iter_embed(mlm: Backend, texts: Iterable[str], poolings: Sequence[Pooling], *, window: int | None = None,
               stride: int | None = None, chunk: int = 512) -> Iterator[dict[str, np.ndarray]]:
    """Yield {pooling: vectors} for successive chunks of ``texts`` (bounded memory on big inputs)."""
    body = (window or mlm.max_length) - 2
    if body < 1 or body > mlm.max_length - 2:
        raise ValueError(f"window must be between 3 and the model window {mlm.max_length}")
    step = stride or max(1, body // 2)
    layers = poolings[0].layers if len(poolings) == 1 else "all"
    buf: list[str] = []
    for text in texts:
        buf.append(text)
        if len(buf) >= chunk:
            yield _embed_chunk(mlm, buf, poolings, layers, body, step)
            buf = []
    if buf:
        yield _embed_chunk(mlm, buf, poolings, layers, body, step)


def _embed_chunk(mlm: Backend, texts: Sequence[str], pools: Sequence[Pooling], layers: str, body: int,
                 step: int) -> dict[str, np.ndarray]:
    content = mlm.tokenize_ids(texts)
    spans = [windows(len(ids), body, step) for ids in content]
    flat = [mlm.add_specials(content[d][a:b]) for d, sp in enumerate(spans) for a, b in sp]
    states = mlm.token_states(flat, layers)
    out: dict[str, list[np.ndarray]] = {p.name: [] for p in pools}
    first = 0
    for d, sp in enumerate(spans):
        doc_states = states[first : first + len(sp)]
        first += len(sp)
        for pool in pools:
            vecs = [pool.token_vectors(st, mlm) for st in doc_states]
            out[pool.name].append(_pool_document(vecs, sp, len(content[d]), pool.is_cls))
    return {name: np.asarray(v, dtype=np.float32) for name, v in out.items()}


def _pool_document(vecs: list[np.ndarray], spans: list[tuple[int, int]], n: int, is_cls: bool) -> np.ndarray:
    """Average each position over the windows holding it, then take [CLS] or the mean of all positions."""
    cls = np.mean([v[0] for v in vecs], axis=0)
    if is_cls:
        return cls
    total = np.zeros((n, vecs[0].shape[-1]), dtype=np.float64)
    count = np.zeros(n, dtype=np.float64)
    for (a, b), v in zip(spans, vecs):
        total[a:b] += v[1:-1]
        count[a:b] += 1
    sep = np.mean([v[-1] for v in vecs], axis=0)
    body_sum = (total / count[:, None]).sum(axis=0) if n else 0.0
    return (cls + sep + body_sum) / (n + 2)


class _Embedder:
    """One Ray actor's model for ``embed_records``: loaded once; each call embeds one batch of texts."""

    def __init__(self, model: str | None, pooling, window: int | None, stride: int | None, threads: int) -> None:
        self.mlm = MaskedLM.from_pretrained(model, threads=threads)
        self.pooling, self.window, self.stride = pooling, window, stride

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(t) for t in batch["text"]]
        vectors = embed(self.mlm, texts, self.pooling, window=self.window, stride=self.stride, chunk=len(texts))
        return {"vector": vectors}


def embed_records(records: Iterable[Record], model: str | None, pooling, *, window: int | None = None,
                  stride: int | None = None, options: RayOptions = RayOptions()) -> np.ndarray:
    """``embed`` of the records' texts over Ray actors (``uner.io.distributed``): one row per record, in order."""
    model = local_path(resolve_model(model))
    args = (model, pooling, window, stride, options.threads)
    parts = [batch["vector"] for batch in map_records(records, _Embedder, args, options)]
    if not parts:  # no texts: the serial function gives the empty matrix of the right width
        return embed(_Embedder(*args).mlm, [], pooling)
    return np.concatenate(parts).astype(np.float32, copy=False)


def normalise(embeddings: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, in float64 (zero rows stay zero)."""
    e = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    return e / np.where(norms == 0, 1.0, norms)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b``."""
    an = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    bn = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return an @ bn.T


def top_k_similar(queries: np.ndarray, corpus: np.ndarray, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Indices and cosines of the k most similar corpus rows for each query, best first."""
    sims = cosine_matrix(queries, corpus)
    k = min(k, sims.shape[1])
    idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    order = np.take_along_axis(-sims, idx, axis=1).argsort(axis=1, kind="stable")
    idx = np.take_along_axis(idx, order, axis=1)
    return idx, np.take_along_axis(sims, idx, axis=1)


def nearest_neighbour_labels(queries: np.ndarray, examples: np.ndarray, labels: Sequence[str], k: int = 1) -> list[str]:
    """Label of each query by cosine k-nearest-neighbour vote over labelled examples (ties: most similar)."""
    idx, sims = top_k_similar(queries, examples, k)
    out = []
    for row_idx, row_sims in zip(idx, sims):
        votes: dict[str, float] = {}
        for i, s in zip(row_idx, row_sims):
            votes[labels[i]] = votes.get(labels[i], 0.0) + float(s)
        out.append(max(votes, key=votes.get))
    return out


def read_examples(path: str) -> tuple[list[str], list[str]]:
    """Texts and labels of labelled examples (JSONL with ``text`` and ``label``); InputError names a bad line."""
    records = list(read_records(path, "jsonl"))
    for r in records:
        if not isinstance(r.fields.get("label"), str):
            raise InputError(f"{path}:{r.line}: missing string field 'label'")
    return [r.text for r in records], [r.fields["label"] for r in records]


@dataclass
class NearestNeighbourClassifier:
    """Labels texts by cosine k-nearest-neighbour vote over embedded labelled examples, optionally in the
    whitened space of the examples' own statistics."""

    mlm: Backend
    vectors: np.ndarray  # the examples' vectors (whitened when ``transform`` is set)
    labels: list[str]
    pooling: Pooling | str = "mean"
    k: int = 1
    transform: Whitening | None = None

    @classmethod
    def fit(cls, mlm: Backend, texts: Sequence[str], labels: Sequence[str], pooling: Pooling | str = "mean",
            k: int = 1, whiten: bool = False) -> NearestNeighbourClassifier:
        """Embed the examples (and fit the whitening on them when ``whiten``)."""
        vecs = embed(mlm, texts, pooling)
        transform = Whitening.fit(RunningStats(vecs.shape[1]).update(vecs)) if whiten else None
        return cls(mlm, transform.transform(vecs) if transform else vecs, list(labels), pooling, k, transform)

    def holdout_accuracy(self, share: float, seed: int = 0) -> tuple[float, int] | None:
        """Accuracy on a random ``share`` of the examples, each labelled from the others, and how many were
        held out; None when the hold-out or the rest would be empty."""
        test = np.random.default_rng(seed).random(len(self.labels)) < share
        if not (test.any() and (~test).any()):
            return None
        rest = [lab for lab, t in zip(self.labels, test) if not t]
        truth = [lab for lab, t in zip(self.labels, test) if t]
        predicted = nearest_neighbour_labels(self.vectors[test], self.vectors[~test], rest, self.k)
        return float(np.mean([p == t for p, t in zip(predicted, truth)])), int(test.sum())

    def predict(self, texts: Sequence[str]) -> list[str]:
        """The label of each text."""
        vecs = embed(self.mlm, texts, self.pooling)
        if self.transform:
            vecs = self.transform.transform(vecs)
        return nearest_neighbour_labels(vecs, self.vectors, self.labels, self.k)
