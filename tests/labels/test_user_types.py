"""`uner labels add-types`: a person's own types merged into a labels folder, their seeds beside them; every problem
of the file as FILE:LINE with nothing written."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import uner
from uner.labels import load_types

MINE = """\
ALGORITHM: [backpropagation, k-means, support vector machine]
programming_language:
  parent: OBJECT
  description: Languages for writing programs.
  seeds: [python, java]
LEARNER:
  parent: ALGORITHM
seeds:
  PERSON: [turing]
"""


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_types_and_seeds_are_merged_and_a_rerun_changes_nothing(label_dir, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE)
    res = uner("labels", "add-types", str(mine), str(label_dir))
    assert res.returncode == 0, res.stderr
    assert "PROGRAMMING_LANGUAGE under OBJECT: 2 seed terms" in res.stdout
    types = load_types(label_dir / "types.yaml")
    assert types.types["ALGORITHM"] == ["LEARNER"] and "PROGRAMMING_LANGUAGE" in types.types["OBJECT"]
    assert types.types["PERSON"] == ["PERSON_ADJECTIVE"] and "OTHER" in types.not_entity  # the shipped ones kept
    assert types.descriptions["PROGRAMMING_LANGUAGE"] == "Languages for writing programs."
    assert yaml.safe_load((label_dir / "seeds.yaml").read_text()) == {
        "ALGORITHM": ["backpropagation", "k-means", "support vector machine"],
        "PROGRAMMING_LANGUAGE": ["python", "java"], "PERSON": ["turing"]}
    assert uner("labels", "validate", str(label_dir)).returncode == 0
    before = _files(label_dir)
    assert uner("labels", "add-types", str(mine), str(label_dir)).returncode == 0
    assert _files(label_dir) == before


def test_replace_keeps_only_the_persons_types(label_dir, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("ALGORITHM: [k-means]\nDATASET: [imagenet]\n")
    assert uner("labels", "add-types", str(mine), str(label_dir), "--replace").returncode == 0
    types = load_types(label_dir / "types.yaml")
    assert list(types.types) == ["ALGORITHM", "DATASET"] and "OTHER" in types.not_entity


BAD = [
    ("a misspelt parent", "PROGRAMMING_LANGUAGE:\n  parent: OBJET\n  seeds: [python]\n", 1, "unknown parent 'OBJET'"),
    ("a type named twice", "ALGORITHM: [k-means]\nDATASET: [imagenet]\nalgorithm: [backpropagation]\n", 3,
     "type ALGORITHM already named at line 1"),
    ("seeds under an unknown type", "ALGORITHM: [k-means]\nseeds:\n  ALGORITHMS: [backpropagation]\n", 3,
     "seeds for unknown type 'ALGORITHMS'"),
    ("a shipped subtype as a new type", "TIME: [tomorrow]\n", 1, "TIME is already a subtype of MEASURE"),
    ("an unknown key", "ALGORITHM:\n  parnet: OBJECT\n", 1, "unknown key 'parnet'"),
    ("seeds that are not a list", "ALGORITHM:\n  seeds: k-means\n", 1, "expected a list of seed terms"),
    ("malformed YAML", "ALGORITHM: [k-means\n", 2, "malformed YAML"),
]


@pytest.mark.parametrize("what, text, line, message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_types_file_is_reported_with_file_and_line_and_nothing_is_written(label_dir, tmp_path, what, text,
                                                                              line, message):
    mine = tmp_path / "mine.yaml"
    mine.write_text(text)
    before = _files(label_dir)
    res = uner("labels", "add-types", str(mine), str(label_dir))
    assert res.returncode == 2
    assert f"{mine}:{line}: " in res.stderr and message in res.stderr, res.stderr
    assert _files(label_dir) == before


def test_bootstrap_and_compile_read_the_folders_own_seeds(label_dir, tmp_path):
    """The seeds stay in the folder: bootstrap suggests the new type for the cluster holding a seed term."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("PAINKILLER:\n  parent: DRUG\n  seeds: [aspirin]\n")
    assert uner("labels", "add-types", str(mine), str(label_dir)).returncode == 0
    res = uner("labels", "bootstrap", str(label_dir))
    assert res.returncode == 0, res.stderr
    clusters = yaml.safe_load((label_dir / "clusters.yaml").read_text())["clusters"]
    assert clusters[1]["suggested"] == {"PAINKILLER": 1}
