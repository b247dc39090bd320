"""clusters.yaml review: seed suggestions keep human fields; decisions survive re-clustering."""

from __future__ import annotations

from collections import Counter

import yaml

from tests.labels.data import GOOD, TYPES
from uner.labels import bootstrap, carry_labels, load_types


def test_bootstrap_keeps_human_fields():
    types = load_types(TYPES)
    doc = yaml.safe_load(GOOD.format(model="x"))
    seeds = {"london": Counter({"LOCATION": 1}), "Tokyo": Counter({"LOCATION": 1, "PERSON": 1}),
             "aspirin": Counter({"DRUG": 1})}
    assert bootstrap(doc, seeds, types) == 2
    first, second = doc["clusters"]
    assert first["suggested"] == {"LOCATION": 2, "PERSON": 1}
    assert (first["label"], first["status"], first["note"]) == ("LOCATION", "confirmed", "capitals")
    assert second["label"] == ["DRUG", "CHEMICAL_SUBSTANCE"] and second["suggested"] == {"DRUG": 1}


def entries(groups: list[list[str]]) -> list[dict]:
    return [{"id": i + 1, "pivot": g[0], "members": list(g)} for i, g in enumerate(groups)]


def test_recluster_keeps_confirmed_labels_and_reports_conflicts():
    from tests.test_clustering import planted
    from uner.vocab.clustering import ClusterParams, build_graph, pivot_clusters

    e, vocab, truth = planted(n_clusters=6, size=15)
    names = {0: "LOCATION", 1: "PERSON", 2: "DRUG", 3: "DISEASE", 4: "GENE", 5: "BIO"}
    first = pivot_clusters(build_graph(e, vocab, ClusterParams(min_chars=1), progress=False).graph, e,
                           ClusterParams(min_chars=1))
    old = [c.to_yaml_dict() for c in first]
    for o in old:
        o.update(label=names[truth[o["pivot"]]], status="confirmed", note="checked")
    # changed parameters: tails cut much earlier, so the groups split into smaller clusters
    params = ClusterParams(min_chars=1, max_bin=3, tail_min=2)
    second = pivot_clusters(build_graph(e, vocab, params, progress=False).graph, e, params)
    new = [c.to_yaml_dict() for c in second]
    assert len(new) > len(old)
    report = carry_labels(old, new)
    for n in new:  # every new cluster inherits the confirmed label of the group it came from
        assert n["status"] == "confirmed" and n["label"] == names[truth[n["pivot"]]]
    assert not any(r.startswith(("conflict", "lost")) for r in report)
    # two differently labelled old clusters whose members end up together: a conflict, left for review
    old2 = entries([["a", "b", "c"], ["d", "e", "f"]])
    old2[0].update(label="PERSON", status="confirmed")
    old2[1].update(label="LOCATION", status="confirmed")
    new2 = entries([["a", "b", "c", "d", "e", "f"], ["zz", "yy"]])
    report2 = carry_labels(old2, new2)
    assert any(r.startswith("conflict: new cluster 1") for r in report2)
    assert new2[0]["status"] == "suggested" and "conflict" in new2[0]["note"]
    # a labelled cluster whose members vanished is reported, not dropped silently
    report3 = carry_labels(entries([["qq", "rr"]]) and [{"id": 9, "pivot": "qq", "members": ["qq", "rr"],
                                                        "label": "GENE", "status": "confirmed"}], new2)
    assert any(r.startswith("lost: old cluster 9") for r in report3)


def test_recluster_of_unchanged_clusters_keeps_every_decision():
    # overlapping clusters: most members of cluster 2 were picked by cluster 1 first, so a member
    # vote alone would hand cluster 2 the PERSON decision and lose its human rejection
    old = entries([["a", "b", "c", "d"], ["b", "c", "d", "x"], ["p", "q"]])
    old[0].update(label="PERSON", status="confirmed")
    old[1].update(label=None, status="rejected", note="mixed")
    old[2].update(label="GENE", status="confirmed", note="conflict resolved")
    new = entries([["a", "b", "c", "d"], ["b", "c", "d", "x"], ["p", "q"]])
    report = carry_labels(old, new)
    assert [(n.get("label"), n["status"], n.get("note")) for n in new] == [
        (o.get("label"), o["status"], o.get("note")) for o in old]
    assert not any(r.startswith(("conflict", "lost")) for r in report)
