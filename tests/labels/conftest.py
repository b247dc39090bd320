"""A small labels folder over the tiny test model: the shipped types.yaml and a two-cluster clusters.yaml."""

from __future__ import annotations

import shutil

import pytest

from tests.labels.data import GOOD, TYPES


@pytest.fixture(scope="module")
def tiny_bert_dir(tiny):
    return tiny[0]


@pytest.fixture()
def label_dir(tmp_path, tiny_bert_dir):
    folder = tmp_path / "labels"
    folder.mkdir()
    shutil.copy(TYPES, folder / "types.yaml")
    (folder / "clusters.yaml").write_text(GOOD.format(model=tiny_bert_dir))
    return folder
