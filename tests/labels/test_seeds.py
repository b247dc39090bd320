"""Seed lists: every supported format, alias resolution, case matching against the vocabulary."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.labels.data import TYPES
from uner.labels import load_types, read_seeds, seed_vocab_matches


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
