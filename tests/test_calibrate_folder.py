"""benchmarks/calibrate_folder.py: which subtypes it fits, and the halves it checks them on."""

from __future__ import annotations

from benchmarks.calibrate_folder import fitted_subtypes, split_gold
from uner.analysis.evaluate import Mapping, read_gold
from uner.labels import LabelsFolder


def test_the_subtypes_fitted_are_those_the_mapping_gives_a_label_of_their_own():
    folder = LabelsFolder("labels/crossner-literature")
    mapping = Mapping.load("labels/crossner-literature/mappings/crossner-literature.yaml")
    fitted = fitted_subtypes(folder, mapping, folder.load_types().labels)
    assert {"WRITER", "COUNTRY"} <= set(fitted)  # writer beside person, country beside location
    # a type itself, an adjective subtype, and a subtype mapped as its type (GOV -> organisation) are not fitted
    assert not {"PERSON", "LOCATION_ADJECTIVE", "GOV"} & set(fitted)


def test_the_halves_of_a_dev_split_hold_every_sentence_once(tmp_path):
    gold = tmp_path / "dev.txt"
    sents = [[("Walter", "B-writer"), ("Scott", "I-writer")], [("in", "O"), ("Edinburgh", "B-location")],
             [("Ivanhoe", "B-book"), (".", "O")]]
    gold.write_text("\n".join("".join(f"{w}\t{t}\n" for w, t in s) for s in sents) + "\n", encoding="utf-8")
    parts = tmp_path / "parts"
    parts.mkdir()
    files = split_gold(gold, parts)
    read = {name: [(s.tokens, s.tags) for s in read_gold(path)] for name, path in files.items()}
    assert read["all"] == [([w for w, _ in s], [t for _, t in s]) for s in sents]
    assert read["first"] + read["second"] == read["all"] and len(read["first"]) == 1
