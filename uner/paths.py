"""Where models and labels live, and the file names inside a labels folder.

The one owner of these facts: every module asks here instead of spelling a path.
Embedded models sit in ``models/`` of the source tree or ``uner/_models`` of a wheel
install; each has its labels in the sibling ``labels/`` (``uner/_labels``) folder.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_MODEL = "uner-minilm-l6"
_PACKAGE_DIR = Path(__file__).resolve().parent
MODEL_DIRS = (_PACKAGE_DIR / "_models", _PACKAGE_DIR.parent / "models")

# files of a labels folder (DESIGN.md §4)
TYPES_FILE = "types.yaml"
CLUSTERS_FILE = "clusters.yaml"
TERMS_FILE = "terms.tsv"
LABEL_TABLE_FILE = "label_table.npz"
GRAPH_FILE = "graph.npz"
NEIGHBOURHOODS_FILE = "neighbourhoods.npz"
SUMMARY_FILE = "summary.json"


def embedded_models() -> dict[str, Path]:
    """Models shipped with uner: name → folder (wheel installs first, then the source tree)."""
    found: dict[str, Path] = {}
    for root in MODEL_DIRS:
        if root.is_dir():
            for d in sorted(root.iterdir()):
                if (d / "config.json").is_file():
                    found.setdefault(d.name, d)
    return found


def labels_dir(model_name: str | None = None) -> Path:
    """A model's labels folder: an embedded model's shipped one (source tree ``labels/<model>/``, or
    ``uner/_labels/<model>/`` in a wheel install); for any other model ``./labels/<model>/``."""
    name = Path(model_name or DEFAULT_MODEL).name
    if (MODEL_DIRS[1] / name).is_dir():
        return MODEL_DIRS[1].parent / "labels" / name
    if (MODEL_DIRS[0] / name).is_dir():
        return MODEL_DIRS[0].parent / "_labels" / name
    return Path("labels") / name
