"""The user cache: the suite never writes the real one (tests/conftest.py's ``user_cache``), and a neighbour graph
is cached by the model's content, so every copy of a model shares one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import folder_listing
from uner.paths import graph_cache_dir, user_cache_dir
from uner.vocab import neighbour_graph


def test_the_suite_caches_in_a_temporary_folder_and_subprocesses_too(user_cache, tiny, tmp_path):
    """What put a graph under ``~/.cache/uner/graphs/`` during ``pytest tests/server``: a graph built on first use.
    It lands in the session's temporary cache, which a subprocess (a ``uner`` command) sees too."""
    before = folder_listing(user_cache)
    session_cache = Path(os.environ["UNER_CACHE_DIR"])
    assert user_cache_dir() == session_cache != user_cache
    (tmp_path / "labels").mkdir()  # (no graph.npz: the lookup goes to the cache)
    neighbour_graph(str(tiny[0]), tmp_path / "labels", build=True)
    assert (graph_cache_dir(tiny[0]) / "graph.npz").is_file()
    shown = subprocess.run([sys.executable, "-c", "from uner.paths import user_cache_dir; print(user_cache_dir())"],
                           capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == str(session_cache)
    assert folder_listing(user_cache) == before


def test_the_graph_cache_is_keyed_by_the_weights_not_by_file_times(tmp_path):
    """A clone and a wheel install of one model (same bytes, other times) share a graph; other weights get another."""
    def model(root: str, weights: bytes, mtime: int) -> Path:
        folder = tmp_path / root / "uner-minilm-l6"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{}")
        (folder / "model.safetensors").write_bytes(weights)
        for f in folder.iterdir():
            os.utime(f, ns=(mtime, mtime))
        return folder

    clone = model("clone", b"weights" * 1000, 1_000_000_000_000_000_000)
    wheel = model("site-packages", b"weights" * 1000, 1_700_000_000_000_000_000)
    assert graph_cache_dir(clone) == graph_cache_dir(wheel)
    assert graph_cache_dir(clone).parent == user_cache_dir() / "graphs"
    retrained = model("retrained", b"weights" * 999 + b"WEIGHTS", 1_000_000_000_000_000_000)
    assert graph_cache_dir(retrained) != graph_cache_dir(clone)
    shutil.copy(retrained / "model.safetensors", clone / "model.safetensors")  # the same path, rewritten
    assert graph_cache_dir(clone) == graph_cache_dir(retrained)
