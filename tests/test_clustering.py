"""Vocabulary clustering: the tail cut-off rule, asymmetry, planted clusters, and the reference oracle."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_clustering import reference_clusters, reference_tails
from uner.vocab.clustering import (
    N_BINS,
    ClusterParams,
    build_graph,
    clusterable,
    pivot_clusters,
    tail_cutoffs,
)
from uner.vocab.graph import NeighbourGraph


def hist_from_top(counts_from_one: list[int]) -> np.ndarray:
    """A histogram row whose bins 1.00, 0.99, 0.98, … hold the given counts (the rest 0)."""
    h = np.zeros(N_BINS, dtype=np.int64)
    for j, c in enumerate(counts_from_one):
        h[100 - j + 100] = c
    return h[None, :]


@pytest.mark.parametrize(
    "counts, expected, why",
    [
        ([1, 0, 3, 25, 40], 97, "first bin with >= 20 terms; the bin before it held < 10"),
        ([1, 0, 12, 30], 98, "bin with >= 20 terms, but the previous bin held >= 10: use the previous one"),
        ([1, 11, 12, 5, 50], 99, "two consecutive bins with >= 10: the first of the pair"),
        ([1, 9, 19, 9, 9, 25], 95, "bins of 9 and 19 never trigger; stop at the bin of 25"),
        ([21, 5], 100, "the first bin already holds >= 20 terms: empty tail"),
    ],
)
def test_tail_cutoff_rules(counts, expected, why):
    thr, found = tail_cutoffs(hist_from_top(counts))
    assert found[0], why
    assert thr[0] == expected, why


def test_walk_that_never_stops_takes_everything():
    thr, found = tail_cutoffs(hist_from_top([1, 5, 5, 5]))
    assert not found[0] and thr[0] == -101


def test_incomplete_bins_are_not_trusted():
    # only bins above 0.98 are known: the pair at 0.98/0.97 must not be used
    thr, found = tail_cutoffs(hist_from_top([1, 3, 12, 12]), complete_above=np.array([98]))
    assert not found[0]
    thr, found = tail_cutoffs(hist_from_top([1, 3, 12, 12]), complete_above=np.array([96]))
    assert found[0] and thr[0] == 98


def test_asymmetric_tails_on_constructed_vectors():
    """a's nearest neighbour is b, but b sits in a dense group, so a is outside b's tail."""
    d = 128
    e = np.zeros((1 + 1 + 5 + 20, d))
    u = np.eye(d)[0]
    e[0] = 0.9 * u + np.sqrt(1 - 0.81) * np.eye(d)[100]  # a
    e[1] = u  # b
    for i in range(5):  # close mates of b: cos 0.99
        e[2 + i] = 0.99 * u + np.sqrt(1 - 0.99**2) * np.eye(d)[1 + i]
    for i in range(20):  # a wider ring: cos 0.97
        e[7 + i] = 0.97 * u + np.sqrt(1 - 0.97**2) * np.eye(d)[10 + i]
    rng = np.random.default_rng(0)
    filler = rng.standard_normal((300, d))
    filler[:, :30] = 0
    filler[:, 100] = 0
    e = np.vstack([e, filler])
    vocab = ["aaa", "bbb"] + [f"mate{i}" for i in range(25)] + [f"noise{i}" for i in range(300)]
    g = build_graph(e, vocab, progress=False).graph
    out_a = [t for t, _ in g.out_neighbours("aaa")]
    assert out_a[0] == "bbb" and set(out_a) == {"bbb"} | {f"mate{i}" for i in range(5)}
    assert "aaa" not in [t for t, _ in g.out_neighbours("bbb")]
    assert [t for t, _ in g.in_neighbours("bbb")][:1] and "aaa" in [t for t, _ in g.in_neighbours("bbb")]
    assert "bbb" not in [t for t, _ in g.mutual_neighbours("aaa")]
    assert g.tail_length("bbb") == 5  # the 0.99 mates; the ring of 20 at 0.97 stops the walk


def planted(n_clusters=8, size=15, private_dims=30, spread=0.5, seed=0):
    """Groups on orthogonal axes, each with its own noise subspace: mates at cosine ≈ 0.8
    (spread over several bins), members of other groups at exactly 0 (one dense bin)."""
    rng = np.random.default_rng(seed)
    d = n_clusters * (1 + private_dims)
    rows, vocab, truth = [], [], {}
    for c in range(n_clusters):
        lo = n_clusters + c * private_dims
        for m in range(size):
            v = np.zeros(d)
            v[c] = 1.0
            v[lo : lo + private_dims] = spread * rng.standard_normal(private_dims) / np.sqrt(private_dims)
            rows.append(v)
            vocab.append(f"c{c}m{m}")
            truth[vocab[-1]] = c
    return np.array(rows), vocab, truth


def test_planted_clusters_are_recovered():
    e, vocab, truth = planted()
    params = ClusterParams(min_chars=1)
    g = build_graph(e, vocab, params, progress=False).graph
    clusters = pivot_clusters(g, e, params)
    groups = {c: {t for t, k in truth.items() if k == c} for c in range(8)}
    assert sorted(map(sorted, (set(c.members) for c in clusters))) == sorted(map(sorted, groups.values()))
    for c in clusters:
        assert c.members[0] == c.pivot and 0.7 < c.mean_cos < 0.9


def test_graph_round_trip_and_networkx(tmp_path):
    e, vocab, _ = planted(n_clusters=3, size=12)
    g = build_graph(e, vocab, ClusterParams(min_chars=1), progress=False).graph
    g.save(tmp_path)
    h = NeighbourGraph.load(tmp_path)
    assert h.vocab == g.vocab and np.array_equal(h.indices, g.indices) and np.array_equal(h.indptr, g.indptr)
    nxg = h.to_networkx()
    assert nxg.number_of_edges() == g.n_edges
    term = vocab[0]
    assert sorted(nxg.successors(term)) == sorted(t for t, _ in g.out_neighbours(term))
    assert sorted(nxg.predecessors(term)) == sorted(t for t, _ in g.in_neighbours(term))


def test_fast_equals_reference_on_shipped_model_subset():
    """Identical tails, thresholds and clusters to the per-term loop, on 2,000 real vocabulary terms."""
    from uner.models import MaskedLM
    from uner.vocab.clustering import subset_ids

    mlm = MaskedLM.from_pretrained(device="cpu")
    ids = subset_ids(mlm.vocab, specials=mlm.tokenizer.all_special_tokens)
    ids = ids[np.linspace(0, len(ids) - 1, 2000).astype(int)]  # spread over the whole vocabulary
    e = mlm.word_embeddings()[ids]
    vocab = [mlm.vocab[i] for i in ids]
    params = ClusterParams(block_rows=300, candidates=64)  # small blocks: exercise the fallback path too
    vg = build_graph(e, vocab, params, progress=False)
    ref = reference_tails(e, params.max_bin, params.tail_min)
    for i, (thr, tail) in enumerate(ref):
        assert round(vg.graph.thresholds[i] * 100) == thr, vocab[i]
        got = vg.graph.out_neighbours(i)
        assert [vocab[j] for j, _ in tail] == [t for t, _ in got], vocab[i]
        np.testing.assert_allclose([c for _, c in tail], [c for _, c in got], rtol=1e-6)
    ok = clusterable(vocab, params)
    fast = [(c.pivot, c.members) for c in pivot_clusters(vg.graph, e, params)]
    assert fast == reference_clusters(e, vocab, ref, ok.tolist())
    assert len(fast) > 50


def test_one_graph_lookup_for_cli_and_server(tiny, tmp_path, monkeypatch):
    """``neighbour_graph``: a labels folder's graph.npz first, else the user cache's (paths.graph_cache_dir),
    built there only when asked (the CLI) and None otherwise (the annotation page)."""
    from uner.paths import graph_cache_dir
    from uner.vocab.clustering import neighbour_graph

    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path / "cache"))
    model, labels = str(tiny[0]), tmp_path / "labels"
    labels.mkdir()
    cache = graph_cache_dir(tiny[0])
    assert cache.parent == tmp_path / "cache" / "graphs" and cache.name.startswith("model-")
    assert neighbour_graph(model, labels) is None and not cache.exists()
    told = []
    built = neighbour_graph(model, labels, build=True, announce=told.append)
    assert told == [cache] and (cache / "graph.npz").is_file()
    assert built.vocab == (tiny[0] / "vocab.txt").read_text().split()
    assert neighbour_graph(model, labels, build=True, announce=told.append).vocab == built.vocab and len(told) == 1
    own = NeighbourGraph(["a", "b"], np.array([0, 1, 1]), np.array([1], np.int32), np.array([0.5], np.float32),
                         np.zeros(2, np.float32))
    own.save(labels)
    assert neighbour_graph(model, labels).vocab == ["a", "b"]
