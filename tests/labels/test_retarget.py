"""A labels folder carried to another model term by term (``uner labels retarget``), and the shipped carry."""

from __future__ import annotations

import numpy as np
import pytest

from uner.labels import LabelTable
from uner.labels.retarget import retarget
from uner.models import load_vocabulary
from uner.paths import labels_dir

OLD = ["[PAD]", "paris", "obama", "the", "zzz"]
NEW = ["<s>", "<pad>", "[PAD]", "the", "obama", "paris", "<mask>"]  # same terms reordered; "zzz" missing


def _folder(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    counts = np.zeros((len(OLD), 2), np.float32)
    counts[1, 0], counts[2, 1], counts[4, 1] = 3, 5, 1  # paris LOCATION, obama PERSON, zzz PERSON
    direct = np.zeros_like(counts)
    direct[2, 1] = 1
    LabelTable.from_dense(["LOCATION", "PERSON"], counts, direct).save(src / "label_table.npz")
    (src / "tagger.yaml").write_text("# settings\ndomain: general\nmodel: old-model\n")
    (src / "terms.tsv").write_text("obama\tPERSON\n")
    return src


def test_each_row_follows_its_term_and_the_folder_names_the_new_model(tmp_path):
    src = _folder(tmp_path)
    done = retarget(src, tmp_path / "out", OLD, NEW, "new-model")
    table = LabelTable.load(tmp_path / "out" / "label_table.npz")
    dense, direct = table.dense(), table.direct_dense()
    assert table.vocab_size == len(NEW) and (done.terms, done.lost) == (2, 1)
    assert dense[NEW.index("paris")].tolist() == [3, 0] and dense[NEW.index("obama")].tolist() == [0, 5]
    assert direct[NEW.index("obama")].tolist() == [0, 1] and dense.sum() == 8
    assert (tmp_path / "out" / "tagger.yaml").read_text() == "# settings\ndomain: general\nmodel: new-model\n"
    assert (tmp_path / "out" / "terms.tsv").read_text() == "obama\tPERSON\n"


def test_an_existing_folder_or_the_wrong_source_model_writes_nothing(tmp_path):
    src = _folder(tmp_path)
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError, match="taken: already exists"):
        retarget(src, tmp_path / "taken", OLD, NEW, "m")
    assert list((tmp_path / "taken").iterdir()) == []
    with pytest.raises(ValueError, match="indexed by 5 terms, but the model it is carried from has 4"):
        retarget(src, tmp_path / "out", OLD[:4], NEW, "m")
    assert not (tmp_path / "out").exists()


def test_the_shipped_base_size_teacher_votes_with_the_default_models_labels_term_for_term():
    """labels/uner-mpnet-base is labels/uner-minilm-l6 carried: the same row for every term under its new id."""
    old_vocab, new_vocab = load_vocabulary("uner-minilm-l6")[0], load_vocabulary("uner-mpnet-base")[0]
    old = LabelTable.load(labels_dir("uner-minilm-l6") / "label_table.npz").dense()
    new = LabelTable.load(labels_dir("uner-mpnet-base") / "label_table.npz").dense()
    index = {t: i for i, t in enumerate(new_vocab)}
    assert new.shape == (len(new_vocab), old.shape[1]) and new.sum() == pytest.approx(old.sum())
    for term in ("president", "paris", "company", "protein", "the"):
        assert np.array_equal(new[index[term]], old[old_vocab.index(term)]), term


def test_the_base_size_teacher_tags_with_its_carried_labels():
    """End to end with the shipped uner-mpnet-base and labels/uner-mpnet-base, found by the model's name."""
    from uner import Tagger

    tagger = Tagger.from_pretrained("uner-mpnet-base", device="cpu")
    found = {(e.text, e.type) for e in next(tagger.tag(["Angela Merkel met the board of Siemens in Munich ."]))}
    assert {("Angela Merkel", "PERSON"), ("Siemens", "ORGANIZATION"), ("Munich", "LOCATION")} <= found, found
