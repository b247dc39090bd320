"""Propagation E = Nᵀ N L and how the runtime table turns counts into the distribution a term votes with."""

from __future__ import annotations

import numpy as np
import pytest

from tests.labels.data import TYPES
from uner.labels import (
    LabelTable,
    Weighting,
    label_stats,
    load_types,
    propagate,
    term_distribution,
)


def test_propagation_is_nt_n_l():
    label_mat = np.array([[1, 0], [0, 0], [0, 2], [0, 0]], dtype=np.float32)
    hoods = np.array([[0, 1, -1], [1, 0, 2], [2, 3, -1], [3, 2, 1]])
    n = np.zeros((4, 4))
    for i, row in enumerate(hoods):
        n[i, row[row >= 0]] = 1
    np.testing.assert_allclose(propagate(label_mat, hoods), n.T @ n @ label_mat)


def _table(counts: list[list[float]], direct: list[list[float]] | None = None, labels=("PERSON", "LOCATION", "GENE")):
    return LabelTable.from_dense(list(labels), np.array(counts, np.float32),
                                 np.array(direct, np.float32) if direct is not None else None)


def test_term_distribution_weighting():
    types = load_types(TYPES)
    # PERSON is a huge label overall (term 2), GENE a small one; term 0 has a little of each
    counts = [[10, 0, 3], [0, 5, 0], [1000, 0, 0], [0, 0, 0]]
    raw = term_distribution(_table(counts), types, Weighting(normalise=0, sharpness=32, direct=0))
    np.testing.assert_allclose(raw.sum(1), [1, 1, 1, 0], atol=1e-6)  # unlabelled term stays empty
    assert raw[0].argmax() == 0 and raw[0, 0] > 0.99  # raw counts, sharp: the bigger count wins outright
    norm = term_distribution(_table(counts), types, Weighting(normalise=1, sharpness=1, direct=0))
    # divided by type strength (PERSON 1010, GENE 3): GENE's 3 of 3 outweighs PERSON's 10 of 1010
    assert norm[0].argmax() == 2
    np.testing.assert_allclose(norm[0, [0, 2]] / norm[0, [0, 2]].sum(), [10 / 1010, 1] / np.sum([10 / 1010, 1]),
                               rtol=1e-5)
    own = term_distribution(_table(counts, direct=[[0, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]), types,
                            Weighting(normalise=0, sharpness=32, direct=0.75))
    assert own[0, 1] == pytest.approx(0.75) and own[0].argmax() == 1  # a term's own human label weighs in


def test_label_stats_counts_direct_reached_and_won():
    types = load_types(TYPES)
    table = _table([[3, 1, 0], [0, 2, 0], [1, 0, 0]], direct=[[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    rows = {r["label"]: r for r in label_stats(types, table, Weighting(normalise=0, sharpness=8, direct=0))}
    assert set(rows) == {"PERSON", "LOCATION"}  # GENE neither seeded nor reached
    assert (rows["PERSON"]["seeded"], rows["PERSON"]["reached"], rows["PERSON"]["top"]) == (1, 2, 2)
    assert (rows["LOCATION"]["seeded"], rows["LOCATION"]["reached"], rows["LOCATION"]["top"]) == (0, 2, 1)
    assert rows["PERSON"]["strength"] == 4 and rows["PERSON"]["magnification"] == 2
