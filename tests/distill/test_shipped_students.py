"""The shipped students (models/uner-student, models/uner-student-bio) through `uner tag --engine student`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import uner

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample.txt"


def tagged(*args: str) -> list[dict[tuple[str, str], str]]:
    res = uner("tag", str(SAMPLE), "--engine", "student", *args)
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(records) == len(SAMPLE.read_text().splitlines())
    return [{e["text"]: e["type"] for e in r["entities"]} for r in records]


def test_general_student_tags_names():
    found = tagged()
    assert found[4].get("Angela Merkel") == "PERSON"
    assert found[4].get("Berlin") == "LOCATION" and found[0].get("Paris") == "LOCATION"
    assert "president" not in found[4]  # a role noun is not a name


def test_biomedical_student_by_name():
    found = tagged("--model", "uner-student-bio")
    assert found[3].get("breast cancer") == "DISEASE" and found[1].get("headaches") == "DISEASE"
    assert found[3].get("BRCA1 gene") == "GENE"
