"""Where models and labels live, and the file names inside a labels folder.

The one owner of these facts: every module asks here instead of spelling a path.
Shipped models sit in ``models/`` of the source tree, ``uner/_models`` of a wheel install (the default model and
the general student) or ``models/`` of an installed model package (``uner-bio``: the biomedical model and student);
each has its labels in the sibling ``labels/`` (``uner/_labels``) folder. A model package is any distribution
that names its Python package in the ``uner_models`` entry point group, found by name as spaCy's model packages
are. An installed package is read-only: derived data goes to the user cache folder (``user_cache_dir``) and
writable labels to the working directory (``writable_labels_dir``).
"""

from __future__ import annotations

import functools
import hashlib
import os
from importlib import metadata
from pathlib import Path

from platformdirs import user_cache_dir as platform_cache

DEFAULT_MODEL = "uner-minilm-l6"
STUDENT_MODEL = "uner-student"  # the shipped student tagger (a spaCy pipeline folder, uner distill)
_PACKAGE_DIR = Path(__file__).resolve().parent
MODEL_DIRS = (_PACKAGE_DIR / "_models", _PACKAGE_DIR.parent / "models")
MODEL_PACKAGE_GROUP = "uner_models"  # model packages' entry points: distribution = Python package with models/, labels/
# models shipped in their own package (not in the uner wheel): model → the extra that installs it
PACKAGED_MODELS = {"uner-bio": "bio", "uner-student-bio": "bio", "uner-mpnet-base": "mpnet"}

# files of a labels folder (docs/design.md §4)
TYPES_FILE = "types.yaml"
CLUSTERS_FILE = "clusters.yaml"
TERMS_FILE = "terms.tsv"
SEEDS_FILE = "seeds.yaml"  # the folder's own seed terms (uner labels add-types), LABEL: [terms]
LABEL_TABLE_FILE = "label_table.npz"
CALIBRATION_FILE = "calibration.yaml"
TAGGER_FILE = "tagger.yaml"
GRAPH_FILE = "graph.npz"
NEIGHBOURHOODS_FILE = "neighbourhoods.npz"
SUMMARY_FILE = "summary.json"
DESCRIPTORS_FILE = "descriptors.jsonl"  # uner adapt: per corpus sentence, its candidate spans' predicted descriptors
TAGGED_FILE = "tagged.jsonl"  # uner adapt: the teacher's records of the same sentences (the page's --records)
STAGES_DIR = "stages"  # the post-typing stages' settings, <stage name>.yaml, and the tables they read
WORDS_DIR = "words"  # the word lists that are no stage's: name joins, noun-phrase labels, inner names, countries
SCORES_KEY = "uner_scores"  # a student doc's doc.spans group: its entities with their raw confidences


def model_roots() -> list[Path]:
    """The folders that hold shipped models, searched in this order: the wheel's ``uner/_models``, the source
    tree's ``models/``, then the ``models/`` folder of each installed model package."""
    return [*MODEL_DIRS, *package_model_dirs()]


def package_model_dirs() -> list[Path]:
    """The ``models/`` folders of the installed model packages: those of the Python packages named by the
    ``uner_models`` entry points on ``sys.path``."""
    found: list[Path] = []
    for entry in metadata.entry_points(group=MODEL_PACKAGE_GROUP):
        folder = Path(entry.load().__file__).resolve().parent / "models"
        if folder not in found:
            found.append(folder)
    return found


def _labels_root(models: Path) -> Path:
    """The labels folder beside a folder of models (``_models`` → ``_labels``, ``models`` → ``labels``)."""
    return models.with_name(models.name.replace("models", "labels"))


def embedded_models() -> dict[str, Path]:
    """Shipped masked LMs: name → folder (the first of ``model_roots`` that has it)."""
    found: dict[str, Path] = {}
    for root in model_roots():
        if root.is_dir():
            for d in sorted(root.iterdir()):
                if (d / "config.json").is_file():
                    found.setdefault(d.name, d)
    return found


def student_dir(name: str = STUDENT_MODEL) -> Path:
    """A shipped student pipeline's folder (the first of ``model_roots`` that has it; else the source tree's
    path, which does not exist)."""
    for root in model_roots():
        if (root / name / "meta.json").is_file():
            return root / name
    return MODEL_DIRS[1] / name


def missing_package_hint(name: str) -> str | None:
    """For a model that ships in its own package which is not installed: one line saying how to install it
    (None for any other name)."""
    if name not in PACKAGED_MODELS or any((root / name).is_dir() for root in model_roots()):
        return None
    extra = PACKAGED_MODELS[name]
    return (f"model {name!r} is in the uner-{extra} package, which is not installed: pip install 'uner[{extra}]' "
            f"(or, from a uner checkout, pip install packages/uner-{extra})")


def labels_dir(model_name: str | None = None) -> Path:
    """A model's labels folder: a shipped model's own (the ``labels/<model>/`` beside the ``models/`` folder
    that has it: source tree, ``uner/_labels`` or a model package); for any other model ``./labels/<model>/``."""
    name = Path(model_name or DEFAULT_MODEL).name
    for root in model_roots():
        if (root / name).is_dir():
            return _labels_root(root) / name
    return Path("labels") / name


def shipped_labels_dirs() -> list[Path]:
    """The labels folders of the shipped models, the default model's first."""
    names = sorted(embedded_models(), key=lambda n: n != DEFAULT_MODEL)
    return [labels_dir(n) for n in names]


class ReadOnlyError(PermissionError):
    """A command was about to write into the installed uner package."""


def is_installed_copy(path: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside installed models or labels (``uner/_models``, ``uner/_labels`` of a wheel
    install, or a model package's ``models/``, ``labels/``), which no command may change."""
    resolved = Path(path).resolve()
    installed = [MODEL_DIRS[0], *package_model_dirs()]
    return any(resolved.is_relative_to(d) for root in installed for d in (root, _labels_root(root)))


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
    once per process (``file_sha256``)."""
    digest = hashlib.sha256()
    for f in sorted(Path(model_dir).iterdir()):
        if f.suffix in WEIGHT_SUFFIXES and f.is_file():
            digest.update(f"{f.name}:{file_sha256(f)};".encode())
    return digest.hexdigest()[:16]


def file_sha256(path: str | os.PathLike) -> str:
    """The hex sha256 of a file's bytes, computed once per process for its path, size and modification time."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    return _sha256(str(resolved), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """The sha256 of the file at ``path`` (``size`` and ``mtime_ns`` key the cache: a rewritten file is read again)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
