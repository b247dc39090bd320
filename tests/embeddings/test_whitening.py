"""Whitening (streamed statistics, fit, save/load) and the additive flow."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uner.vectors.whitening import AdditiveFlow, RunningStats, Whitening, streamed_stats


def test_incremental_statistics_equal_batch_statistics():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 6)) @ rng.standard_normal((6, 6)) + 5.0
    stats = RunningStats(6)
    for chunk in np.array_split(x, [1, 7, 300, 301, 999]):
        stats.update(chunk)
    assert stats.n == 1000
    np.testing.assert_allclose(stats.mean, x.mean(0), rtol=1e-10)
    np.testing.assert_allclose(stats.cov, np.cov(x, rowvar=False, bias=True), rtol=1e-8, atol=1e-10)


def test_whitened_fitting_set_has_zero_mean_identity_covariance(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2000, 8)) @ rng.standard_normal((8, 8)) + 3.0
    wt = Whitening.fit(RunningStats(8).update(x))
    y = wt.transform(x).astype(np.float64)
    np.testing.assert_allclose(y.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(np.cov(y, rowvar=False, bias=True), np.eye(8), atol=1e-4)
    wt.save(tmp_path / "w.npz")
    again = Whitening.load(tmp_path / "w.npz")
    np.testing.assert_array_equal(again.transform(x), wt.transform(x))
    assert Whitening.fit(RunningStats(8).update(x), k=3).transform(x).shape == (2000, 3)


def test_flow_likelihood_improves_and_inverts(tmp_path):
    rng = np.random.default_rng(2)
    base = rng.standard_normal((1500, 2))
    x = np.c_[base[:, 0], base[:, 0] ** 2 + 0.3 * base[:, 1], rng.standard_normal((1500, 4))].astype(np.float32)
    flow = AdditiveFlow(6, layers=4, hidden=64)
    history = flow.fit(x, epochs=15, batch_size=128, lr=3e-3)
    assert history[-1] > history[0] + 0.2
    z = torch.as_tensor(flow.transform(x))
    back = flow.inverse(z).detach().numpy()
    np.testing.assert_allclose(back, x, atol=1e-4)
    flow.save(tmp_path / "flow.pt")
    np.testing.assert_allclose(AdditiveFlow.load(tmp_path / "flow.pt").transform(x), z.numpy(), atol=1e-6)


def test_streamed_statistics_over_named_arrays_name_the_misfit():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((70, 4)), rng.standard_normal((5, 4))
    stats = streamed_stats([("a", a), ("b", b)], chunk=16)
    np.testing.assert_allclose(stats.cov, np.cov(np.r_[a, b], rowvar=False, bias=True), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match=r"^c\.npy: expected rows of dimension 4"):
        streamed_stats([("a", a), ("c.npy", rng.standard_normal((3, 5)))])
    with pytest.raises(ValueError, match="no vectors given"):
        streamed_stats([])
