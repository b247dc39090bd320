"""Similarity search and nearest-neighbour classification over sentence vectors."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from uner.io import InputError
from uner.vectors.embeddings import NearestNeighbourClassifier, embed, nearest_neighbour_labels, read_examples, top_k_similar


def test_similarity_search_and_nearest_neighbour_classes():
    corpus = np.array([[1, 0, 0], [0, 1, 0], [0.9, 0.1, 0], [0, 0, 1]], dtype=np.float32)
    idx, sims = top_k_similar(np.array([[1, 0.05, 0]], dtype=np.float32), corpus, k=2)
    assert idx[0].tolist() == [0, 2] and sims[0, 0] >= sims[0, 1]
    labels = ["city", "drug", "city", "disease"]
    assert nearest_neighbour_labels(np.array([[0.1, 0, 1], [1, 0.2, 0]]), corpus, labels, k=1) == ["disease", "city"]


def test_examples_need_a_string_label(tmp_path):
    good = tmp_path / "ex.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in [{"text": "paris", "label": "city"},
                                                           {"text": "aspirin", "label": "drug"}]))
    assert read_examples(str(good)) == (["paris", "aspirin"], ["city", "drug"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in [{"text": "paris", "label": "city"},
                                                          {"text": "x", "label": 3}]))
    with pytest.raises(InputError, match=re.escape(f"{bad}:2: missing string field 'label'")):
        read_examples(str(bad))


@pytest.mark.parametrize("whiten", [False, True])
def test_classifier_labels_examples_as_themselves_and_holds_out_a_share(bert, whiten):
    texts = ["paris is the capital of france .", "london is the capital of england .", "tokyo is in japan .",
             "aspirin treats headaches .", "the drug treats the disease .", "the patient was treated with aspirin ."]
    labels = ["city"] * 3 + ["drug"] * 3
    clf = NearestNeighbourClassifier.fit(bert, texts, labels, "mean", k=1, whiten=whiten)
    assert clf.vectors.shape[0] == len(texts) and (clf.transform is not None) == whiten
    assert clf.predict(texts) == labels  # each example's nearest example is itself
    assert clf.holdout_accuracy(0.0) is None and clf.holdout_accuracy(1.0) is None
    accuracy, held = clf.holdout_accuracy(0.5)
    test = np.random.default_rng(0).random(len(texts)) < 0.5
    assert held == int(test.sum())
    rest = [lab for lab, t in zip(labels, test) if not t]
    truth = [lab for lab, t in zip(labels, test) if t]
    predicted = nearest_neighbour_labels(clf.vectors[test], clf.vectors[~test], rest)
    assert accuracy == np.mean([p == t for p, t in zip(predicted, truth)])
    if not whiten:
        np.testing.assert_array_equal(clf.vectors, embed(bert, texts, "mean"))
