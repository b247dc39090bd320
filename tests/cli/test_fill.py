"""`uner fill` end to end on the shipped model."""

from __future__ import annotations

from tests.helpers import uner, predictions


def test_fill_capital_probe_on_shipped_model():
    res = uner("fill", "paris is the capital of [MASK] .", "tokyo is the capital of [MASK] .", "-k", "5")
    assert res.returncode == 0, res.stderr
    rows = predictions(res.stdout)
    assert len(rows) == 2 and all(len(r) == 5 for r in rows)
    assert "france" in rows[0]
    assert "japan" in rows[1]


def test_fill_reads_stdin_and_files(tmp_path):
    f = tmp_path / "probes.txt"
    f.write_text("the [MASK] of the river .\n\nshe [MASK] to the [MASK] .\n")
    res = uner("fill", "--file", str(f), "-k", "3")
    assert res.returncode == 0, res.stderr
    assert len(predictions(res.stdout)) == 3  # blank line skipped, two masks in the last text
    res = uner("fill", "-k", "2", stdin="the [MASK] is red .\n")
    assert res.returncode == 0 and len(predictions(res.stdout)) == 1


def test_fill_missing_model_is_a_one_line_error(tmp_path):
    res = uner("fill", "--model", str(tmp_path / "nowhere"), "a [MASK] .")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "not found" in lines[0] and str(tmp_path / "nowhere") in lines[0]


def test_fill_too_long_text_is_reported():
    res = uner("fill", "word " * 600 + "[MASK]")
    assert res.returncode == 2
    assert "more than the model window" in res.stderr
