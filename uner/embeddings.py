"""Sentence and document vectors from the masked LM (DESIGN.md §3.5).

Poolings:
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

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .models import MaskedLM, head_transform

POOLINGS = ("cls-head", "cls", "mean", "last-k-mean", "first-last-mean")


@dataclass(frozen=True)
class Pooling:
    """Which vector to take from the model; validated up front."""

    name: str = "mean"
    k: int = 4  # layers for last-k-mean

    def __post_init__(self) -> None:
        if self.name not in POOLINGS:
            raise ValueError(f"unknown pooling {self.name!r}; choose one of {', '.join(POOLINGS)}")
        if self.k < 1:
            raise ValueError("k must be at least 1")

    @property
    def layers(self) -> str:
        """What ``MaskedLM.token_states`` must return for this pooling alone."""
        return {"cls-head": "head", "cls": "last", "mean": "last"}.get(self.name, "all")

    @property
    def is_cls(self) -> bool:
        return self.name in ("cls-head", "cls")

    def token_vectors(self, states: np.ndarray, mlm: MaskedLM) -> np.ndarray:
        """Per-token vectors (T × d) of one window, from states of kind ``self.layers`` or ``"all"``."""
        if states.ndim == 2:  # already the right layer ("last" or "head")
            return states
        if self.name == "last-k-mean":
            return states[-self.k :].mean(axis=0)
        if self.name == "first-last-mean":
            return (states[1] + states[-1]) / 2
        if self.name == "cls-head":
            return _head(mlm, states[-1][:1])
        return states[-1]


def _head(mlm: MaskedLM, rows: np.ndarray) -> np.ndarray:
    with torch.inference_mode():
        x = torch.from_numpy(np.ascontiguousarray(rows)).to(mlm.device, next(mlm.model.parameters()).dtype)
        return head_transform(mlm.model, x).float().cpu().numpy()


def windows(n_tokens: int, window: int, stride: int) -> list[tuple[int, int]]:
    """(start, end) content spans covering ``range(n_tokens)``: ``stride`` apart, the last flush with the end."""
    if window < 1 or stride < 1:
        raise ValueError("window and stride must be positive")
    if n_tokens <= window:
        return [(0, n_tokens)]
    starts = list(range(0, n_tokens - window, stride)) + [n_tokens - window]
    return [(a, a + window) for a in starts]


def embed(mlm: MaskedLM, texts: Iterable[str], pooling: Pooling | str = "mean", *, window: int | None = None,
          stride: int | None = None, chunk: int = 512) -> np.ndarray:
    """One vector per text (n × d float32) for one pooling."""
    pool = Pooling(pooling) if isinstance(pooling, str) else pooling
    return embed_many(mlm, texts, [pool], window=window, stride=stride, chunk=chunk)[pool.name]


def embed_many(mlm: MaskedLM, texts: Iterable[str], poolings: Sequence[Pooling | str], *,
               window: int | None = None, stride: int | None = None, chunk: int = 512) -> dict[str, np.ndarray]:
    """Vectors for several poolings from a single pass of the model: pooling name → n × d."""
    pools = [Pooling(p) if isinstance(p, str) else p for p in poolings]
    parts: dict[str, list[np.ndarray]] = {p.name: [] for p in pools}
    for block in iter_embed(mlm, texts, pools, window=window, stride=stride, chunk=chunk):
        for name, arr in block.items():
            parts[name].append(arr)
    dim = mlm.model.get_input_embeddings().weight.shape[1]
    return {name: np.concatenate(v) if v else np.zeros((0, dim), np.float32) for name, v in parts.items()}


def iter_embed(mlm: MaskedLM, texts: Iterable[str], poolings: Sequence[Pooling], *, window: int | None = None,
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


def _embed_chunk(mlm: MaskedLM, texts: Sequence[str], pools: Sequence[Pooling], layers: str, body: int,
                 step: int) -> dict[str, np.ndarray]:
    tok = mlm.tokenizer
    content = tok(list(texts), add_special_tokens=False, truncation=False, verbose=False)["input_ids"]
    spans = [windows(len(ids), body, step) for ids in content]
    flat = [[tok.cls_token_id, *content[d][a:b], tok.sep_token_id] for d, sp in enumerate(spans) for a, b in sp]
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
