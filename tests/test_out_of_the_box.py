"""Out of the box (issue 21, items 2-4): `uner neighbors` / `uner synonyms` build their graph on first use into
the user cache, terms are normalised as the model's tokenizer does, an out-of-vocabulary term does not stop
the others; an installed package and reviewed labels are never rewritten silently."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import UNER
from uner import paths


def run(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    """`uner ARGS` in ``cwd`` (outside the repository) with ``cache`` as the user cache folder."""
    return subprocess.run([*UNER.split(), *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "UNER_CACHE_DIR": str(cache)})


def test_neighbors_and_synonyms_work_without_uner_cluster(tiny, tmp_path):
    """Items 2 and 4: no graph anywhere → built once into the cache; "London" finds "london"; a term outside
    the vocabulary is reported, the others still answered with vocabulary words, exit 1."""
    model, cache = str(tiny[0]), tmp_path / "cache"
    first = run("neighbors", "London", "--model", model, cwd=tmp_path, cache=cache)
    assert first.returncode == 0, first.stderr
    assert "building the neighbour graph" in first.stderr and first.stdout.startswith("london: tail length")
    built = list(cache.glob("graphs/*/graph.npz"))
    assert len(built) == 1 and built[0].parent.name.startswith(Path(model).name + "-")
    res = run("synonyms", "Paris", "zzqq", "london", "--model", model, cwd=tmp_path, cache=cache)
    assert res.returncode == 1 and "building" not in res.stderr  # the cached graph is reused
    assert res.stderr == "uner: error: 'zzqq': the model's vocabulary cannot spell it ([UNK])\n"
    assert [line.split(":")[0] for line in res.stdout.splitlines()] == ["Paris", "london"]
    assert not any(c.startswith(("[", "##")) for line in res.stdout.splitlines() for c in line.split()[1:])  # words only
    res = run("neighbors", "Zzqq", "--model", model, cwd=tmp_path, cache=cache)
    assert res.returncode == 2 and res.stderr == "uner: error: 'Zzqq' is not in the vocabulary (nor is 'zzqq')\n"


REVIEWED = {"model": "m", "clusters": [{"id": 1, "pivot": "paris", "size": 2, "label": "LOCATION",
                                        "status": "confirmed", "note": "capitals", "members": ["paris", "london"]}]}


def test_cluster_never_rewrites_reviewed_labels_silently(tiny, tmp_path):
    """Item 3: re-clustering a folder with reviewed clusters stops (exit 2, nothing written) unless
    --carry-labels, which carries the decisions and keeps the old file."""
    folder = tmp_path / "labels"
    folder.mkdir()
    reviewed = folder / "clusters.yaml"
    reviewed.write_text(yaml.safe_dump(REVIEWED))
    before = reviewed.read_bytes()
    args = ("cluster", "--model", str(tiny[0]), "--out", str(folder))
    res = run(*args, cwd=tmp_path, cache=tmp_path / "cache")
    assert res.returncode == 2 and "holds 1 reviewed or seed-suggested clusters; pass --carry-labels" in res.stderr
    assert reviewed.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["clusters.yaml"]
    res = run(*args, "--carry-labels", cwd=tmp_path, cache=tmp_path / "cache")
    assert res.returncode == 0, res.stderr
    assert (folder / "clusters.yaml.bak").read_bytes() == before and (folder / "graph.npz").is_file()


def test_installed_package_labels_are_read_only(tmp_path, monkeypatch):
    """Item 3: in a wheel install (``uner/_models``, ``uner/_labels``) writes go to ./labels/<model>/ and
    an explicit write into the package is refused with one line saying what to do."""
    package = tmp_path / "site-packages" / "uner"
    (package / "_models" / "m").mkdir(parents=True)
    (package / "_models" / "m" / "config.json").write_text("{}")
    (package / "_labels" / "m").mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", package)
    monkeypatch.setattr(paths, "MODEL_DIRS", (package / "_models", tmp_path / "no-source-tree"))
    assert paths.labels_dir("m") == package / "_labels" / "m"
    assert paths.writable_labels_dir("m") == Path("labels") / "m"
    with pytest.raises(paths.ReadOnlyError, match=r"_labels/m is part of the installed uner package and stays as "
                                                  r"shipped; copy it \(cp -r .* labels/\) and give the copy's path"):
        paths.check_writable(package / "_labels" / "m")
    paths.check_writable(tmp_path / "labels" / "m")  # anywhere else is fine
