"""LabelsFolder: finding a folder, loading and checking its files together, saving what is compiled."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from tests.labels.data import GOOD
from uner.labels import LabelError, LabelsFolder, LabelTable
from uner.models import load_vocabulary
from uner.paths import DEFAULT_MODEL, labels_dir


def test_for_model_and_existing(tmp_path):
    assert LabelsFolder.for_model().path == labels_dir(DEFAULT_MODEL)
    assert LabelsFolder.for_model("some/where/my-model").path == labels_dir("my-model")
    assert LabelsFolder.existing(tmp_path).path == tmp_path
    with pytest.raises(FileNotFoundError, match=f"^{tmp_path / 'nope'}: no such labels folder$"):
        LabelsFolder.existing(tmp_path / "nope")
    (tmp_path / "file").write_text("")
    with pytest.raises(FileNotFoundError, match="no such labels folder"):
        LabelsFolder.existing(tmp_path / "file")


def test_load_review_checks_against_the_model_clusters_yaml_names(label_dir, tiny_bert_dir):
    review = LabelsFolder(label_dir).load_review()
    assert [c["id"] for c in review.clusters] == [1, 2] and review.confirmed == 1
    assert review.model == str(tiny_bert_dir)
    assert review.vocab == load_vocabulary(tiny_bert_dir)[0]
    assert review.types.canonical("LOCATION") == "LOCATION"


def test_load_review_model_argument_overrides_the_file(label_dir, tiny_bert_dir):
    path = label_dir / "clusters.yaml"
    path.write_text(GOOD.format(model="no-such-model-anywhere"))
    with pytest.raises(LabelError, match=f"{path}:1: model 'no-such-model-anywhere' not found"):
        LabelsFolder(label_dir).load_review()
    review = LabelsFolder(label_dir).load_review(str(tiny_bert_dir))
    assert review.model == str(tiny_bert_dir) and review.vocab is not None


def test_problems_of_several_files_are_collected(label_dir):
    types, clusters = label_dir / "types.yaml", label_dir / "clusters.yaml"
    types.write_text(types.read_text().replace("  LEGAL_RELATED_PERSON_TERMS: LEGAL", "  LEGAL_RELATED_PERSON_TERMS: LAWYERS"))
    clusters.unlink()
    with pytest.raises(LabelError) as err:
        LabelsFolder(label_dir).load_review()
    assert len(err.value.problems) == 2
    assert err.value.problems[0].startswith(f"{types}:") and "unknown label LAWYERS" in err.value.problems[0]
    assert err.value.problems[1] == f"{clusters}:1: missing; run `uner cluster` first"


def test_model_and_cluster_problems_are_reported_together(label_dir):
    path = label_dir / "clusters.yaml"
    path.write_text(GOOD.format(model="no-such-model-anywhere").replace("label: LOCATION", "label: LOCASHUN"))
    with pytest.raises(LabelError) as err:
        LabelsFolder(label_dir).load_review()
    first, second = err.value.problems
    assert first.startswith(f"{path}:1: model 'no-such-model-anywhere' not found")
    assert second == f"{path}:6: unknown label 'LOCASHUN' (not in types.yaml)"


@pytest.mark.parametrize("text", ["- just\n- a list\n", "clusters: [oops\n"], ids=["not a mapping", "malformed"])
def test_unreadable_clusters_yaml_is_a_problem_not_a_crash(label_dir, text):
    path = label_dir / "clusters.yaml"
    path.write_text(text)
    with pytest.raises(LabelError) as err:
        LabelsFolder(label_dir).load_review()
    assert len(err.value.problems) == 1 and err.value.problems[0].startswith(f"{path}:")


def test_terms_tsv(label_dir):
    folder = LabelsFolder(label_dir)
    types = folder.load_types()
    assert folder.load_terms(types) == {}
    folder.terms_path.write_text("# comment\npresident\tPERSON\nfirm\tORGANIZATION/ORGANISATION\n")
    with pytest.raises(LabelError, match=f"{folder.terms_path}:3: unknown label 'ORGANISATION'"):
        folder.load_terms(types)
    folder.terms_path.write_text("president\tPERSON\nJudge\tLEGAL_RELATED_PERSON_TERMS\n")
    assert folder.load_terms(types) == {"president": {"PERSON": 1}, "Judge": {"LEGAL": 1}}


def test_missing_table_says_how_to_make_it(tmp_path):
    folder = LabelsFolder(tmp_path)
    assert not folder.has_table()
    with pytest.raises(FileNotFoundError) as err:
        folder.load_table()
    assert str(err.value) == f"{tmp_path / 'label_table.npz'}: no compiled labels; run `uner labels compile`"


def test_save_and_load_table(tmp_path):
    folder = LabelsFolder(tmp_path / "new")
    spread = np.array([[0, 2], [1, 0], [0, 0]], np.float32)
    direct = np.array([[0, 1], [0, 0], [0, 0]], np.float32)
    assert folder.save_table(LabelTable.from_dense(["PERSON", "OTHER"], spread, direct)) == folder.table_path
    assert folder.has_table()
    table = folder.load_table()
    assert table.labels == ["PERSON", "OTHER"] and table.vocab_size == 3
    np.testing.assert_array_equal(table.dense(), spread)
    np.testing.assert_array_equal(table.direct_dense(), direct)


def test_save_clusters_keeps_review_order_and_leaves_no_temp_file(label_dir):
    folder = LabelsFolder(label_dir)
    review = folder.load_review()
    review.clusters[1]["status"] = "confirmed"
    assert folder.save_clusters(review.doc) == folder.clusters_path
    assert sorted(p.name for p in label_dir.iterdir()) == ["clusters.yaml", "types.yaml"]
    again = folder.load_review()
    assert again.doc == review.doc and again.confirmed == 2
    first = yaml.safe_load(folder.clusters_path.read_text())["clusters"][0]
    assert list(first) == ["id", "pivot", "size", "label", "status", "note", "members"]
