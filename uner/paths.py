"""Where models and labels live, and the file names inside a labels folder.

The one owner of these facts: every module asks here instead of spelling a path.
Embedded models sit in ``models/`` of the source tree or ``uner/_models`` of a wheel
install; each has its labels in the sibling ``labels/`` (``uner/_labels``) folder. An installed
package is read-only: derived data goes to the user cache folder (``user_cache_dir``) and writable
labels to the working directory (``writable_labels_dir``).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from platformdirs import user_cache_dir as platform_cache

DEFAULT_MODEL = "uner-minilm-l6"
STUDENT_MODEL = "uner-student"  # the shipped student tagger (a spaCy pipeline folder, uner distill)
_PACKAGE_DIR = Path(__file__).resolve().parent
MODEL_DIRS = (_PACKAGE_DIR / "_models", _PACKAGE_DIR.parent / "models")

# files of a labels folder (docs/design.md §4)
TYPES_FILE = "types.yaml"
CLUSTERS_FILE = "clusters.yaml"
TERMS_FILE = "terms.tsv"
LABEL_TABLE_FILE = "label_table.npz"
CALIBRATION_FILE = "calibration.yaml"
TAGGER_FILE = "tagger.yaml"
GRAPH_FILE = "graph.npz"
NEIGHBOURHOODS_FILE = "neighbourhoods.npz"
SUMMARY_FILE = "summary.json"
STAGES_DIR = "stages"  # the post-typing stages' word lists, <stage or list name>.yaml
SCORES_KEY = "uner_scores"  # a student doc's doc.spans group: its entities with their raw confidences


def embedded_models() -> dict[str, Path]:
    """Models shipped with uner: name → folder (wheel installs first, then the source tree)."""
    found: dict[str, Path] = {}
    for root in MODEL_DIRS:
        if root.is_dir():
            for d in sorted(root.iterdir()):
                if (d / "config.json").is_file():
                    found.setdefault(d.name, d)
    return found


def student_dir(name: str = STUDENT_MODEL) -> Path:
    """The shipped student pipeline's folder (wheel install first, then the source tree)."""
    for root in MODEL_DIRS:
        if (root / name / "meta.json").is_file():
            return root / name
    return MODEL_DIRS[1] / name


def labels_dir(model_name: str | None = None) -> Path:
    """A model's labels folder: an embedded model's shipped one (source tree ``labels/<model>/``, or
    ``uner/_labels/<model>/`` in a wheel install); for any other model ``./labels/<model>/``."""
    name = Path(model_name or DEFAULT_MODEL).name
    if (MODEL_DIRS[1] / name).is_dir():
        return MODEL_DIRS[1].parent / "labels" / name
    if (MODEL_DIRS[0] / name).is_dir():
        return MODEL_DIRS[0].parent / "_labels" / name
    return Path("labels") / name


def shipped_labels_dirs() -> list[Path]:
    """The labels folders of the embedded models, the default model's first."""
    names = sorted(embedded_models(), key=lambda n: n != DEFAULT_MODEL)
    return [labels_dir(n) for n in names]


class ReadOnlyError(PermissionError):
    """A command was about to write into the installed uner package."""


def is_installed_copy(path: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside the installed package's shipped models or labels (``uner/_models``,
    ``uner/_labels`` of a wheel install), which no command may change."""
    resolved = Path(path).resolve()
    return any(resolved.is_relative_to(_PACKAGE_DIR / d) for d in ("_models", "_labels"))


def writable_labels_dir(model_name: str | None = None) -> Path:
    """Where a command writes a model's labels by default: ``labels_dir``, except that for a model shipped in
    an installed package it is ``./labels/<model>/`` in the working directory (the package stays as shipped)."""
    folder = labels_dir(model_name)
    return Path("labels") / folder.name if is_installed_copy(folder) else folder


def check_writable(folder: str | os.PathLike) -> None:
    """ReadOnlyError (one line, saying what to do) when ``folder`` is part of the installed package."""
    if is_installed_copy(folder):
        raise ReadOnlyError(f"{folder} is part of the installed uner package and stays as shipped; copy it "
                            f"(cp -r {folder} labels/) and give the copy's path")


def user_cache_dir() -> Path:
    """uner's per-user cache folder for derived data (neighbour graphs, dtype measurements):
    ``$UNER_CACHE_DIR``, else the platform's (``$XDG_CACHE_HOME/uner``, ``~/.cache/uner`` on Linux)."""
    if os.environ.get("UNER_CACHE_DIR"):
        return Path(os.environ["UNER_CACHE_DIR"])
    return Path(platform_cache("uner", appauthor=False))


WEIGHT_SUFFIXES = (".safetensors", ".bin")  # a model folder's weights files, as transformers loads them


def graph_cache_dir(model_dir: str | os.PathLike) -> Path:
    """Where the neighbour graph of the model in folder ``model_dir`` (a resolved model) is cached when its labels
    folder has none: ``graphs/<model>-<key>`` of the user cache, keyed by the model's content (``weights_key``),
    so that a clone and a wheel install of one model share one graph and a changed model gets a new one."""
    path = Path(model_dir)
    return user_cache_dir() / "graphs" / f"{path.name}-{weights_key(path)}"


def weights_key(model_dir: str | os.PathLike) -> str:
    """A short hash of the names and bytes of a model folder's weights files: the same for every copy of the
    model, whatever its files' times. Each file's sha256 (about 0.05 s for the default model's 45 MB) is computed
    once per process for its path, size and modification time."""
    digest = hashlib.sha256()
    for f in sorted(Path(model_dir).iterdir()):
        if f.suffix in WEIGHT_SUFFIXES and f.is_file():
            stat = f.stat()
            digest.update(f"{f.name}:{_sha256(str(f.resolve()), stat.st_size, stat.st_mtime_ns)};".encode())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """The sha256 of the file at ``path`` (``size`` and ``mtime_ns`` key the cache: a rewritten file is read again)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
