"""`uner labels …` end to end: validation problems as FILE:LINE with exit 2, nothing written on failure, show."""

from __future__ import annotations

import pytest

from tests.helpers import uner
from uner.labels import compile_labels


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



def test_compile_is_the_library_call(label_dir):
    """`uner labels compile` only calls ``compile_labels``: the same report line and the same table bytes."""
    res = uner("labels", "compile", str(label_dir), "--neighbours", "5")
    assert res.returncode == 0, res.stderr
    table = label_dir / "label_table.npz"
    written = table.read_bytes()
    report = compile_labels(label_dir, neighbours=5)
    assert res.stdout.strip() == str(report) and report.path == table and table.read_bytes() == written
    assert str(report).startswith("1 confirmed clusters, 0 seed terms, 0 terms.tsv entries: ")


def test_compile_checks_terms_tsv_before_writing(label_dir):
    (label_dir / "terms.tsv").write_text("president\tPRESIDENTS\n")
    res = uner("labels", "compile", str(label_dir))
    assert res.returncode == 2 and f"{label_dir / 'terms.tsv'}:1: unknown label 'PRESIDENTS'" in res.stderr
    assert not (label_dir / "label_table.npz").exists()


@pytest.mark.parametrize("old, new, line, message", [
    ("  LEGAL_RELATED_PERSON_TERMS: LEGAL", "  LEGAL_RELATED_PERSON_TERMS: LAWYERS", None, "points to unknown label LAWYERS"),
    ("      VIRUS: Viruses.", "      VIRUS: Viruses.\n      SPECIES: again.", None, "label SPECIES already defined"),
])
def test_broken_types_yaml_is_reported(label_dir, old, new, line, message):
    path = label_dir / "types.yaml"
    path.write_text(path.read_text().replace(old, new, 1))
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2 and f"{path}:" in res.stderr and message in res.stderr, res.stderr


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
