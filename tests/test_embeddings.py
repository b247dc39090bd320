"""Sentence vectors: poolings on padded batches, sliding windows, whitening, the flow, similarity tools."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uner.embeddings import Pooling, embed, nearest_neighbour_labels, top_k_similar, windows
from uner.models import MaskedLM
from uner.whitening import AdditiveFlow, RunningStats, Whitening

TEXTS = ["paris is the capital of france .", "the drug treats headaches", "a", "",
         "the patient was treated with aspirin and the study results showed that the drug treats headaches ."]


@pytest.fixture(scope="module")
def bert(tiny):
    return MaskedLM.from_pretrained(tiny[0], device="cpu", max_batch_tokens=64)


def direct(mlm: MaskedLM, text: str, pooling: str, k: int = 2) -> np.ndarray:
    """Reference: one unpadded forward pass with output_hidden_states."""
    enc = mlm.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        out = mlm.model.base_model(**enc, output_hidden_states=True)
    hs = [h[0].numpy() for h in out.hidden_states]
    if pooling == "cls":
        return hs[-1][0]
    if pooling == "cls-head":
        with torch.no_grad():
            return mlm.model.cls.predictions.transform(out.hidden_states[-1])[0, 0].numpy()
    if pooling == "mean":
        return hs[-1].mean(0)
    if pooling == "last-k-mean":
        return np.mean(hs[-k:], axis=0).mean(0)
    return ((hs[1] + hs[-1]) / 2).mean(0)


@pytest.mark.parametrize("pooling", ["cls-head", "cls", "mean", "last-k-mean", "first-last-mean"])
def test_poolings_on_padded_batches_match_single_passes(bert, pooling):
    vecs = embed(bert, TEXTS, Pooling(pooling, k=2))
    assert vecs.shape == (len(TEXTS), 32) and vecs.dtype == np.float32
    for text, v in zip(TEXTS, vecs):
        np.testing.assert_allclose(v, direct(bert, text, pooling), rtol=1e-4, atol=1e-5)


def test_windows_cover_everything():
    assert windows(5, 10, 3) == [(0, 5)]
    spans = windows(23, 10, 4)
    assert spans[0] == (0, 10) and spans[-1] == (13, 23)
    assert set().union(*(range(a, b) for a, b in spans)) == set(range(23))
    with pytest.raises(ValueError):
        windows(5, 0, 1)


def test_long_document_equals_pooled_windows(bert):
    doc = " ".join(["paris is the capital of france and the drug treats headaches ."] * 30)
    ids = bert.tokenizer(doc, add_special_tokens=False)["input_ids"]
    assert len(ids) > 60 - 2  # longer than the tiny model's window
    body, stride = 20, 7
    got = embed(bert, [doc], "mean", window=body + 2, stride=stride)[0]
    # by hand: every window through the model, each position averaged over the windows that hold it
    spans = windows(len(ids), body, stride)
    per_pos = [[] for _ in ids]
    cls, sep = [], []
    for a, b in spans:
        states = bert.token_states([[2, *ids[a:b], 3]], "last")[0]
        cls.append(states[0])
        sep.append(states[-1])
        for j, p in enumerate(range(a, b)):
            per_pos[p].append(states[1 + j])
    assert all(per_pos), "a token was never embedded"
    expected = (np.mean(cls, 0) + np.mean(sep, 0) + sum(np.mean(v, 0) for v in per_pos)) / (len(ids) + 2)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    short = embed(bert, TEXTS[:1], "mean", window=body + 2, stride=stride)
    np.testing.assert_allclose(short, embed(bert, TEXTS[:1], "mean"), rtol=1e-5, atol=1e-6)


def test_unknown_pooling_is_rejected():
    with pytest.raises(ValueError, match="unknown pooling"):
        Pooling("max")


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


def test_similarity_search_and_nearest_neighbour_classes():
    corpus = np.array([[1, 0, 0], [0, 1, 0], [0.9, 0.1, 0], [0, 0, 1]], dtype=np.float32)
    idx, sims = top_k_similar(np.array([[1, 0.05, 0]], dtype=np.float32), corpus, k=2)
    assert idx[0].tolist() == [0, 2] and sims[0, 0] >= sims[0, 1]
    labels = ["city", "drug", "city", "disease"]
    assert nearest_neighbour_labels(np.array([[0.1, 0, 1], [1, 0.2, 0]]), corpus, labels, k=1) == ["disease", "city"]


def test_one_pass_for_many_poolings_equals_separate_passes(bert):
    from uner.embeddings import POOLINGS, embed_many

    many = embed_many(bert, TEXTS, [Pooling(p, k=2) for p in POOLINGS])
    for name in POOLINGS:
        np.testing.assert_allclose(many[name], embed(bert, TEXTS, Pooling(name, k=2)), rtol=1e-4, atol=1e-5)
