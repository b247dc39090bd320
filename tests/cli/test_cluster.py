"""`uner pretrain` option checks and `uner cluster`/`neighbors` end to end."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import uner


@pytest.mark.parametrize("args", [["pretrain", "x.txt", "-o", "out"]])
def test_pretrain_needs_a_budget(args, tmp_path):
    res = uner(*args)
    assert res.returncode == 2 and "--max-steps or --max-time" in res.stderr


def test_cluster_limit_run_is_reproducible_and_queryable(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        res = uner("cluster", "--limit", "1500", "--out", str(out))
        assert res.returncode == 0, res.stderr
    for name in ("graph.npz", "neighbourhoods.npz", "clusters.yaml", "summary.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    doc = yaml.safe_load((a / "clusters.yaml").read_text())
    first = doc["clusters"][0]
    assert first["members"][0] == first["pivot"] and first["size"] == len(first["members"]) >= 2
    res = uner("neighbors", first["pivot"], "--graph", str(a))
    assert res.returncode == 0, res.stderr
    out_line = next(line for line in res.stdout.splitlines() if line.startswith("out ("))
    assert any(m in out_line for m in first["members"][1:])
    res = uner("neighbors", "zzzz-not-a-term", "--graph", str(a))
    assert res.returncode == 2 and "not in the vocabulary" in res.stderr
