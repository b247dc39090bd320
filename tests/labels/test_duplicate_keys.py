"""Duplicate keys in clusters.yaml (issue 21, item 12): YAML keeps the last silently, so a reviewed
decision could flip; `uner labels validate` reports each repeat as FILE:LINE and exits 2."""

from __future__ import annotations

from tests.helpers import uner


def test_duplicate_label_in_a_cluster_is_reported_with_both_lines(label_dir):
    path = label_dir / "clusters.yaml"
    text = path.read_text()
    assert "  label: LOCATION\n  status: confirmed\n" in text
    path.write_text(text.replace("  label: LOCATION\n  status: confirmed\n",
                                 "  label: OTHER\n  status: confirmed\n  label: LOCATION\n", 1))
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [f"{path}:8: duplicate key 'label' (first at line 6)"]


def test_duplicate_keys_anywhere_are_reported(label_dir):
    path = label_dir / "clusters.yaml"
    text = path.read_text()
    path.write_text(text.replace("    DRUG: 2\n", "    DRUG: 2\n    DRUG: 5\n", 1) + "clusters: []\n")
    res = uner("labels", "validate", str(label_dir))
    assert res.returncode == 2
    assert res.stderr.splitlines() == [f"{path}:19: duplicate key 'DRUG' (first at line 18)",
                                       f"{path}:23: duplicate key 'clusters' (first at line 2)"]
