"""Labels: validation with FILE:LINE messages, seeds, bootstrap, propagation, carrying labels over re-clustering."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.test_cli import uner
from uner.labels import (
    bootstrap,
    carry_labels,
    load_types,
    propagate,
    read_seeds,
    seed_vocab_matches,
)

TYPES = Path(__file__).resolve().parents[1] / "labels" / "uner-minilm-l6" / "types.yaml"
GOOD = """\
model: {model}
clusters:
- id: 1
  pivot: paris
  size: 3
  label: LOCATION
  status: confirmed
  note: capitals
  members:
  - paris
  - london
  - tokyo
- id: 2
  pivot: aspirin
  label: [DRUG, CHEMICAL_SUBSTANCE]
  status: suggested
  suggested:
    DRUG: 2
  members:
  - aspirin
  - drug
"""


@pytest.fixture()
def label_dir(tmp_path, tiny_bert_dir):
    folder = tmp_path / "labels"
    folder.mkdir()
    shutil.copy(TYPES, folder / "types.yaml")
    (folder / "clusters.yaml").write_text(GOOD.format(model=tiny_bert_dir))
    return folder


@pytest.fixture(scope="module")
def tiny_bert_dir(tiny):
    return tiny[0]


def test_good_folder_validates(label_dir):
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 0, res.stderr
    assert "2 clusters, 1 confirmed" in res.stdout


BROKEN = [
    # (description, replace this, with that, line of the problem, message)
    ("malformed YAML", "  - tokyo\n", "  - [tokyo\n", 13, "malformed YAML"),
    ("unknown label", "label: LOCATION", "label: LOCASHUN", 6, "unknown label 'LOCASHUN'"),
    ("duplicate id", "- id: 2", "- id: 1", 13, "duplicate id 1"),
    ("member not in vocabulary", "  - london\n", "  - londinium\n", 11, "'londinium' is not in the model's vocabulary"),
    ("pivot not a member", "pivot: aspirin", "pivot: heroin", 14, "pivot 'heroin' is not a member"),
    ("bad status", "status: suggested", "status: maybe", 16, "status must be one of"),
    ("confirmed without label", "label: LOCATION\n  status: confirmed", "label: null\n  status: confirmed", 3, "status confirmed needs a label"),
    ("unknown field", "note: capitals", "nots: capitals", 8, "unknown field 'nots'"),
    ("id not an integer", "- id: 2", "- id: two", 13, "id must be an integer"),
    ("members not a list", "  members:\n  - aspirin\n  - drug\n", "  members: aspirin\n", 19, "members must be a list"),
    ("unknown suggested label", "    DRUG: 2", "    DRUGZ: 2", 18, "unknown suggested label 'DRUGZ'"),
    ("suggested count not an integer", "    DRUG: 2", "    DRUG: many", 18, "suggested count must be an integer"),
    ("unknown label in a list", "[DRUG, CHEMICAL_SUBSTANCE]", "[DRUG, CHEMICALS]", 15, "unknown label 'CHEMICALS'"),
]


@pytest.mark.parametrize("what, old, new, line, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_clusters_yaml_is_reported_with_file_and_line(label_dir, what, old, new, line, message):
    path = label_dir / "clusters.yaml"
    text = path.read_text()
    assert old in text, what
    broken = text.replace(old, new, 1)
    path.write_text(broken)
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2, (what, res.stdout)
    assert f"{path}:{line}: " in res.stderr and message in res.stderr, (what, res.stderr)
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr  # one problem, one line


def test_terms_tsv_is_validated(label_dir):
    (label_dir / "terms.tsv").write_text("# per-term labels\npresident\tPERSON\ncompany\tORGANISATION\n")
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2 and f"{label_dir / 'terms.tsv'}:3: unknown label 'ORGANISATION'" in res.stderr


def test_nothing_is_written_when_validation_fails(label_dir):
    path = label_dir / "clusters.yaml"
    broken = path.read_text().replace("label: LOCATION", "label: LOCASHUN")
    path.write_text(broken)
    res = uner("labels", "bootstrap", str(label_dir))
    assert res.returncode == 2 and path.read_text() == broken


@pytest.mark.parametrize("old, new, line, message", [
    ("  LEGAL_RELATED_PERSON_TERMS: LEGAL", "  LEGAL_RELATED_PERSON_TERMS: LAWYERS", None, "points to unknown label LAWYERS"),
    ("      VIRUS: Viruses.", "      VIRUS: Viruses.\n      SPECIES: again.", None, "label SPECIES already defined"),
])
def test_broken_types_yaml_is_reported(label_dir, old, new, line, message):
    path = label_dir / "types.yaml"
    path.write_text(path.read_text().replace(old, new, 1))
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2 and f"{path}:" in res.stderr and message in res.stderr, res.stderr


def test_seed_formats_and_case(tmp_path):
    types = load_types(TYPES)
    ref = tmp_path / "DRUG"
    ref.write_text("aspirin DRUG\nParis LOCATION\ndsc CELL dtc CELL\n")
    boot = tmp_path / "bootstrap_entities.txt"
    boot.write_text("BIO/COLOR orange\nLOCATION tokyo\n")
    tsv = tmp_path / "mine.tsv"
    tsv.write_text("aspirin\tDRUG/CHEMICAL_SUBSTANCE\nJudge\tLEGAL_RELATED_PERSON_TERMS\n")
    seeds = {}
    for f in (ref, boot, tsv):
        for term, counts in read_seeds(f, types).items():
            seeds.setdefault(term, Counter()).update(counts)
    assert seeds["aspirin"] == Counter({"DRUG": 2, "CHEMICAL_SUBSTANCE": 1})
    assert seeds["orange"] == Counter({"BIO": 1, "COLOR": 1})
    assert seeds["dtc"] == Counter({"CELL": 1})
    assert seeds["Judge"] == Counter({"LEGAL": 1})  # alias resolved
    vocab = ["[PAD]", "paris", "Paris", "aspirin", "judge", "orange"]
    matches = seed_vocab_matches(seeds, vocab)
    assert 2 in matches and 1 not in matches  # exact case first
    assert matches[4] == Counter({"LEGAL": 1})  # then lower case
    bad = tmp_path / "bad.txt"
    bad.write_text("aspirin DRUG\nheroin NARCOTIC\n")
    with pytest.raises(ValueError, match=rf"{bad}:2: unknown label 'NARCOTIC'"):
        read_seeds(bad, types)


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


def test_propagation_is_nt_n_l():
    label_mat = np.array([[1, 0], [0, 0], [0, 2], [0, 0]], dtype=np.float32)
    hoods = np.array([[0, 1, -1], [1, 0, 2], [2, 3, -1], [3, 2, 1]])
    n = np.zeros((4, 4))
    for i, row in enumerate(hoods):
        n[i, row[row >= 0]] = 1
    np.testing.assert_allclose(propagate(label_mat, hoods), n.T @ n @ label_mat)


def entries(groups: list[list[str]]) -> list[dict]:
    return [{"id": i + 1, "pivot": g[0], "members": list(g)} for i, g in enumerate(groups)]


def test_recluster_keeps_confirmed_labels_and_reports_conflicts():
    from tests.test_clustering import planted
    from uner.clustering import ClusterParams, build_graph, pivot_clusters

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


def _table(counts: list[list[float]], direct: list[list[float]] | None = None, labels=("PERSON", "LOCATION", "GENE")):
    from uner.labels import LabelTable

    return LabelTable.from_dense(list(labels), np.array(counts, np.float32),
                                 np.array(direct, np.float32) if direct is not None else None)


def test_term_distribution_weighting():
    from uner.labels import Weighting, term_distribution

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
    from uner.labels import Weighting, label_stats

    types = load_types(TYPES)
    table = _table([[3, 1, 0], [0, 2, 0], [1, 0, 0]], direct=[[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    rows = {r["label"]: r for r in label_stats(types, table, Weighting(normalise=0, sharpness=8, direct=0))}
    assert set(rows) == {"PERSON", "LOCATION"}  # GENE neither seeded nor reached
    assert (rows["PERSON"]["seeded"], rows["PERSON"]["reached"], rows["PERSON"]["top"]) == (1, 2, 2)
    assert (rows["LOCATION"]["seeded"], rows["LOCATION"]["reached"], rows["LOCATION"]["top"]) == (0, 2, 1)
    assert rows["PERSON"]["strength"] == 4 and rows["PERSON"]["magnification"] == 2


def test_labels_show_top_type_on_shipped_labels():
    expected = {"paris": "LOCATION", "germany": "LOCATION", "john": "PERSON", "toyota": "ORGANIZATION",
                "march": "MEASURE", "headache": "DISEASE", "eaten": "OTHER"}
    out = uner("labels", "show", *expected)
    assert out.returncode == 0, out.stderr
    blocks = out.stdout.split("votes as:")[1:]
    won = [b.split()[0] for b in blocks]
    assert won == list(expected.values()), out.stdout
    bad = uner("labels", "show", "paris", "qqqzzzxx")
    assert bad.returncode != 0 and "qqqzzzxx" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
