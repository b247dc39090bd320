"""Whitening and a small normalising flow for sentence vectors (docs/design.md §3.5).

``RunningStats`` accumulates mean and covariance over any number of vectors in
float64 with bounded memory (Chan et al.'s pairwise update), so a transform can be
fitted on a whole corpus streamed in chunks. ``Whitening`` maps x → (x - μ) W with
W = U Λ^-1/2 from the SVD of Σ, optionally keeping the first k directions.
``AdditiveFlow`` is the BERT-flow alternative: additive coupling layers trained by
maximum likelihood under a standard normal prior.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..io import atomic_path


class RunningStats:
    """Streaming mean and covariance (population) of row vectors."""

    def __init__(self, dim: int) -> None:
        self.n = 0
        self.mean = np.zeros(dim, dtype=np.float64)
        self.m2 = np.zeros((dim, dim), dtype=np.float64)

    def update(self, x: np.ndarray) -> RunningStats:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.mean):
            raise ValueError(f"expected rows of dimension {len(self.mean)}, got shape {x.shape}")
        m = len(x)
        if m == 0:
            return self
        mean_b = x.mean(axis=0)
        centred = x - mean_b
        m2_b = centred.T @ centred
        delta = mean_b - self.mean
        total = self.n + m
        self.m2 += m2_b + np.outer(delta, delta) * (self.n * m / total)
        self.mean += delta * (m / total)
        self.n = total
        return self

    @property
    def cov(self) -> np.ndarray:
        if self.n == 0:
            raise ValueError("no vectors seen")
        return self.m2 / self.n


def streamed_stats(arrays: Iterable[tuple[str, np.ndarray]], chunk: int = 65536) -> RunningStats:
    """Mean and covariance over named arrays (e.g. memory-mapped files) fed ``chunk`` rows at a time;
    a ValueError names the array whose rows do not fit."""
    stats: RunningStats | None = None
    for name, arr in arrays:
        stats = stats or RunningStats(arr.shape[1])
        for start in range(0, len(arr), chunk):
            try:
                stats.update(arr[start : start + chunk])
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
    if stats is None:
        raise ValueError("no vectors given")
    return stats


@dataclass
class Whitening:
    """x ↦ (x − mean) @ w; saved as a small .npz."""

    mean: np.ndarray
    w: np.ndarray

    @classmethod
    def fit(cls, stats: RunningStats, k: int | None = None, eps: float = 1e-9) -> Whitening:
        u, s, _ = np.linalg.svd(stats.cov)
        k = k or len(s)
        if not 1 <= k <= len(s):
            raise ValueError(f"k must be between 1 and {len(s)}")
        return cls(stats.mean.copy(), u[:, :k] / np.sqrt(s[:k] + eps))

    def transform(self, x: np.ndarray) -> np.ndarray:
        """Whitened copies of the rows of ``x`` (float32)."""
        return ((np.asarray(x, dtype=np.float64) - self.mean) @ self.w).astype(np.float32)

    def save(self, path: str | os.PathLike) -> None:
        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, mean=self.mean, w=self.w)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Whitening:
        with np.load(path, allow_pickle=False) as z:
            return cls(z["mean"], z["w"])


class AdditiveCoupling(nn.Module):
    """y_b = x_b + m(x_a) on alternating halves; volume-preserving."""

    def __init__(self, dim: int, hidden: int, parity: int) -> None:
        super().__init__()
        self.parity = parity
        self.half = dim // 2
        a_dim = self.half if parity == 0 else dim - self.half
        self.net = nn.Sequential(nn.Linear(a_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, dim - a_dim))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def _split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        first, second = x[:, : self.half], x[:, self.half :]
        return (first, second) if self.parity == 0 else (second, first)

    def _join(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.cat([a, b], 1) if self.parity == 0 else torch.cat([b, a], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self._split(x)
        return self._join(a, b + self.net(a))

    def inverse(self, y: torch.Tensor) -> torch.Tensor:
        a, b = self._split(y)
        return self._join(a, b - self.net(a))


class AdditiveFlow(nn.Module):
    """NICE-style flow: standardisation, additive couplings and a learnt diagonal scale."""

    def __init__(self, dim: int, layers: int = 4, hidden: int = 256) -> None:
        super().__init__()
        self.register_buffer("shift", torch.zeros(dim))
        self.register_buffer("scale0", torch.ones(dim))
        self.couplings = nn.ModuleList(AdditiveCoupling(dim, hidden, i % 2) for i in range(layers))
        self.log_scale = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """z and log|det dz/dx| per row."""
        h = (x - self.shift) / self.scale0
        for c in self.couplings:
            h = c(h)
        z = h * torch.exp(self.log_scale)
        logdet = (self.log_scale - torch.log(self.scale0)).sum().expand(len(x))
        return z, logdet

    def inverse(self, z: torch.Tensor) -> torch.Tensor:
        h = z * torch.exp(-self.log_scale)
        for c in reversed(self.couplings):
            h = c.inverse(h)
        return h * self.scale0 + self.shift

    def log_likelihood(self, x: torch.Tensor) -> torch.Tensor:
        z, logdet = self(x)
        return -0.5 * (z**2).sum(1) - 0.5 * z.shape[1] * np.log(2 * np.pi) + logdet

    def fit(self, x: np.ndarray, epochs: int = 20, batch_size: int = 256, lr: float = 1e-3, seed: int = 0) -> list[float]:
        """Maximum-likelihood training; returns the mean log-likelihood per epoch."""
        data = torch.as_tensor(np.asarray(x, dtype=np.float32))
        self.shift.copy_(data.mean(0))
        self.scale0.copy_(data.std(0).clamp_min(1e-6))
        gen = torch.Generator().manual_seed(seed)
        opt = torch.optim.Adam(self.parameters(), lr=lr)
        history = []
        for _ in range(epochs):
            perm = torch.randperm(len(data), generator=gen)
            total = 0.0
            for i in range(0, len(data), batch_size):
                batch = data[perm[i : i + batch_size]]
                loss = -self.log_likelihood(batch).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += -loss.item() * len(batch)
            history.append(total / len(data))
        return history

    @torch.no_grad()
    def transform(self, x: np.ndarray) -> np.ndarray:
        return self(torch.as_tensor(np.asarray(x, dtype=np.float32)))[0].numpy()

    def save(self, path: str | os.PathLike) -> None:
        cfg = {"dim": len(self.log_scale), "layers": len(self.couplings),
               "hidden": self.couplings[0].net[0].out_features}
        with atomic_path(path) as tmp:
            torch.save({"config": cfg, "state": self.state_dict()}, tmp)

    @classmethod
    def load(cls, path: str | os.PathLike) -> AdditiveFlow:
        saved = torch.load(path, weights_only=True)
        flow = cls(**saved["config"])
        flow.load_state_dict(saved["state"])
        return flow.eval()
