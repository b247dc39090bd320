"""calibration.yaml beside the labels: reading, checking, saving, and the folder finding it."""

from __future__ import annotations

import numpy as np
import pytest

from uner.labels import Calibration, LabelError, LabelsFolder


def test_calibration_round_trips_and_defaults_unlisted_types_to_neutral(tmp_path):
    path = tmp_path / "calibration.yaml"
    Calibration({"ORGANIZATION": 1.4}, {"PERSON": 0.5}, "fitted on dev").save(path)
    back = Calibration.load(path, ["ORGANIZATION", "PERSON", "LOCATION"])
    assert back == Calibration({"ORGANIZATION": 1.4}, {"PERSON": 0.5}, "fitted on dev")
    np.testing.assert_allclose(back.weights_for(["LOCATION", "ORGANIZATION"]), [1.0, 1.4])
    np.testing.assert_allclose(back.min_scores_for(["PERSON", "LOCATION"]), [0.5, 0.0])


def test_subtype_shares_round_trip_and_default_to_the_taggers_share(tmp_path):
    path = tmp_path / "calibration.yaml"
    Calibration(note="fitted on dev", subtype_shares={"WRITER": 0.01}).save(path)
    back = Calibration.load(path, ["PERSON"], ["PERSON", "WRITER", "POET"])
    assert back == Calibration(note="fitted on dev", subtype_shares={"WRITER": 0.01})
    np.testing.assert_allclose(back.subtype_shares_for(["POET", "WRITER"], 0.1), [0.1, 0.01])


@pytest.mark.parametrize("text, message", [
    ("type_weights:\n  ORGANISATION: 1.5\n", "unknown type 'ORGANISATION'"),
    ("type_weights:\n  PERSON: -1\n", "PERSON must be a number"),
    ("min_scores:\n  PERSON: 2\n", "PERSON must be a number in [0, 1]"),
    ("type_weights: [1, 2]\n", "type_weights must map type names to numbers"),
    ("type_weights: {PERSON: 1.0\n", "malformed YAML"),
    ("subtype_shares:\n  WRITTER: 0.05\n", "subtype_shares: unknown label 'WRITTER'"),
    ("subtype_shares:\n  WRITER: 0\n", "WRITER must be a number in [0.001, 1]"),
])
def test_bad_calibration_names_the_file_and_the_problem(tmp_path, text, message):
    path = tmp_path / "calibration.yaml"
    path.write_text(text)
    with pytest.raises(LabelError) as err:
        Calibration.load(path, ["PERSON", "ORGANIZATION"], ["PERSON", "WRITER", "ORGANIZATION"])
    assert any(str(path) in p and message in p for p in err.value.problems), err.value.problems


def test_folder_without_calibration_is_neutral(tmp_path):
    assert LabelsFolder(tmp_path).load_calibration() == Calibration()
