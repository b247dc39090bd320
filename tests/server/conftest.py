"""Fixtures for `uner annotate`: copies of the shipped labels folder, a live server in a thread, and
real headless chromium driven by Selenium through Debian's chromedriver.

The browser tests skip (with the reason) only outside CI when chromium or chromedriver is missing;
with CI set they fail instead, so CI cannot pass without running them."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.helpers import uner
from uner.labels import dump_clusters
from uner.paths import labels_dir

SHIPPED = labels_dir()
SAMPLE = Path(__file__).resolve().parents[2] / "examples/sample.txt"
SHARED_CORPUS = Path(__file__).resolve().parents[2].parent / "shared/data/corpus/reuters21578.txt.gz"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PAGE_LOAD_TIMEOUT = 60  # seconds; the page loads in under one on a 2-core machine


def read_doc(folder: Path) -> dict:
    """clusters.yaml of a folder, parsed (libyaml when available: the shipped file is 1.6 MB)."""
    return yaml.load((folder / "clusters.yaml").read_text(encoding="utf-8"), Loader=LOADER)


def by_id(doc: dict) -> dict[int, dict]:
    return {e["id"]: e for e in doc["clusters"]}


def copy_shipped(dest: Path) -> Path:
    """A copy of the shipped labels folder (tests never touch labels/uner-minilm-l6/ itself)."""
    shutil.copytree(SHIPPED, dest, ignore=shutil.ignore_patterns("graph.npz", "neighbourhoods.npz"))
    return dest


@pytest.fixture(scope="session")
def small_source(tmp_path_factory) -> Path:
    """The shipped folder with clusters.yaml cut to 80 clusters (the 50 largest, 29 conflicts, the
    one with a plain suggestion), so that each API test loads and saves it in a blink."""
    folder = copy_shipped(tmp_path_factory.mktemp("small") / "labels")
    doc = read_doc(folder)
    clusters = doc["clusters"]
    conflicts = [e for e in clusters if str(e.get("note", "")).startswith("conflict:")][:29]
    plain = [e for e in clusters if e.get("status") == "suggested" and e not in conflicts][:1]
    keep = {e["id"] for e in sorted(clusters, key=lambda e: -e["size"])[:50] + conflicts + plain}
    doc["clusters"] = [e for e in clusters if e["id"] in keep]
    dump_clusters(folder / "clusters.yaml", doc)
    return folder


@pytest.fixture()
def small_folder(small_source, tmp_path) -> Path:
    """A fresh copy of the small folder for one test."""
    return Path(shutil.copytree(small_source, tmp_path / "labels"))


def write_graph(folder: Path, terms: set[str], k: int = 12) -> None:
    """A real graph.npz for ``folder``: the model's word-embedding cosines, each listed term's ``k``
    nearest vocabulary terms as its tail (other terms have none). `uner cluster` makes the full graph
    with adaptive tails in about a minute; this covers the clusters the tests look at in a second."""
    from uner.models import MaskedLM
    from uner.vectors import normalise
    from uner.vocab.graph import NeighbourGraph

    mlm = MaskedLM.from_pretrained(read_doc(folder)["model"])
    vocab, emb = list(mlm.vocab), normalise(mlm.word_embeddings())
    rows = sorted(i for i, t in enumerate(vocab) if t in terms)
    cos = emb[rows] @ emb.T
    cos[np.arange(len(rows)), rows] = -2  # not its own neighbour
    top = np.argsort(-cos, axis=1)[:, :k]
    counts = np.zeros(len(vocab), dtype=np.int64)
    counts[rows] = k
    weights = np.take_along_axis(cos, top, axis=1)
    thresholds = np.zeros(len(vocab), dtype=np.float32)
    thresholds[rows] = weights[:, -1]
    NeighbourGraph(vocab, np.concatenate([[0], np.cumsum(counts)]), top.ravel().astype(np.int32),
                   weights.ravel().astype(np.float32), thresholds).save(folder)


@pytest.fixture(scope="session")
def full_folder(tmp_path_factory) -> Path:
    """A copy of the whole shipped folder (2,769 clusters) with a graph over the clusters still to do."""
    folder = copy_shipped(tmp_path_factory.mktemp("full") / "labels")
    todo = [e for e in read_doc(folder)["clusters"] if e.get("status") == "suggested"]
    write_graph(folder, {m for e in todo for m in e["members"][:5]} | {e["pivot"] for e in todo})
    return folder


@pytest.fixture(scope="session")
def full_server(full_folder) -> Iterator[tuple[str, Path]]:
    """`uner annotate` on the full copy, with the seed lists and a corpus sample when ../shared has them."""
    from uner.server import create_app, open_workbench, running

    seeds = SHARED_CORPUS.parents[1] / "seeds"
    wb = open_workbench(full_folder, seeds=[seeds] if seeds.is_dir() else None,
                        corpus=SHARED_CORPUS if SHARED_CORPUS.is_file() else None, corpus_limit=1500)
    with running(create_app(wb)) as base:
        yield base, full_folder


def touches(entity: dict, entry: dict) -> bool:
    """Whether a member of the cluster is a word of the entity's text (any case): the link, written out."""
    return bool(set(re.findall(r"\w+", entity["text"].lower())) & {m.lower() for m in entry["members"]})


@pytest.fixture(scope="session")
def student_records(tmp_path_factory) -> Path:
    """What the shipped student writes for examples/sample.txt (`uner tag --engine student -o`): real scores."""
    out = tmp_path_factory.mktemp("records") / "sample.jsonl"
    res = uner("tag", str(SAMPLE), "--engine", "student", "-o", str(out))
    assert res.returncode == 0 and out.is_file(), res.stderr
    return out


@pytest.fixture(scope="session")
def records_server(student_records, tmp_path_factory) -> Iterator[tuple[str, Path, Path]]:
    """`uner annotate --records` with the student's records of examples/sample.txt, on the shipped folder cut to
    the clusters holding a word of the sample and the 50 largest (a second server beside ``full_server``)."""
    from uner.server import create_app, open_workbench, running

    folder = copy_shipped(tmp_path_factory.mktemp("records") / "labels")
    doc = read_doc(folder)
    words = set(re.findall(r"\w+", SAMPLE.read_text(encoding="utf-8").lower()))
    largest = {e["id"] for e in sorted(doc["clusters"], key=lambda e: -e["size"])[:50]}
    doc["clusters"] = [e for e in doc["clusters"] if e["id"] in largest or words & set(e["members"])]
    dump_clusters(folder / "clusters.yaml", doc)
    with running(create_app(open_workbench(folder, records=[str(student_records)]))) as base:
        yield base, folder, student_records


def chromium_driver(home: Path, width: int = 1280, height: int = 800):
    """Headless chromium (Debian's package) through its chromedriver and Selenium, with ``home`` as its home
    folder (it writes crash-report settings and dconf's cache there, not in the user's); RuntimeError saying
    what is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        raise RuntimeError("chromium or chromedriver is not installed")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise RuntimeError("selenium is not installed (pip install -e '.[dev]')") from None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    # nothing but the local page: no extensions (Debian's launcher adds some), no proxy lookup, no background
    # networking, so that a machine without internet cannot stall a navigation
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                "--disable-extensions", "--no-proxy-server", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps"):
        options.add_argument(arg)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    driver = webdriver.Chrome(service=Service(driver_path, env=env), options=options)
    driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT)
    return driver


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """The page's browser. Outside CI a missing browser skips (with the reason); with CI set it fails."""
    try:
        driver = chromium_driver(tmp_path_factory.mktemp("browser-home"))
    except RuntimeError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc}; CI must run the browser tests (.ci/run installs chromium chromium-driver)")
        pytest.skip(f"{exc} (apt-get install chromium chromium-driver to run the browser tests)")
    yield driver
    driver.quit()
