"""Poolings on padded batches, the pooling registry, sliding windows over long documents."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uner.models import MaskedLM
from uner.vectors.embeddings import POOLING_KINDS, POOLINGS, Pooling, PoolingKind, embed, embed_many, windows

TEXTS = ["paris is the capital of france .", "the drug treats headaches", "a", "",
         "the patient was treated with aspirin and the study results showed that the drug treats headaches ."]

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


def test_unknown_pooling_is_rejected_with_the_choices():
    with pytest.raises(ValueError, match="unknown pooling 'max'; choose one of cls-head, cls, mean, last-k-mean, "
                                         "first-last-mean"):
        Pooling("max")
    with pytest.raises(ValueError, match="k must be at least 1"):
        Pooling("last-k-mean", k=0)


def test_the_registry_names_every_pooling_and_takes_new_ones(bert, monkeypatch):
    assert POOLINGS == tuple(POOLING_KINDS) == ("cls-head", "cls", "mean", "last-k-mean", "first-last-mean")
    monkeypatch.setitem(POOLING_KINDS, "first-mean", PoolingKind("all", False, lambda states, mlm, k: states[1]))
    got = embed(bert, TEXTS, "first-mean")
    np.testing.assert_allclose(got, [bert.hidden_states([t], "all")[0][1].mean(0) for t in TEXTS], rtol=1e-4, atol=1e-5)
    assert set(embed_many(bert, TEXTS, ["first-mean", "mean"])) == {"first-mean", "mean"}


def test_one_pass_for_many_poolings_equals_separate_passes(bert):
    many = embed_many(bert, TEXTS, [Pooling(p, k=2) for p in POOLINGS])
    for name in POOLINGS:
        np.testing.assert_allclose(many[name], embed(bert, TEXTS, Pooling(name, k=2)), rtol=1e-4, atol=1e-5)
