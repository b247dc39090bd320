"""uner: unsupervised named-entity recognition with masked language models.

The public API, one import away: ``load()`` gives the tagger ``uner tag`` uses (the fast student by default;
``load(engine="teacher")`` or ``Tagger.from_pretrained()`` the masked-LM teacher), ``MaskedLM`` reads a
masked LM, ``embed`` makes sentence vectors, ``LabelsFolder`` holds a model's labels. Each name is
imported on first use (PEP 562), so ``import uner`` and the command line's parsing and early errors
do not wait seconds for torch, transformers and spaCy.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the part of uner that defines it
_API = {"DEFAULT_MODEL": "paths", "Backend": "models", "Ensemble": "tagger", "Entity": "tagger",
        "LabelsFolder": "labels", "MaskPrediction": "models", "MaskedLM": "models", "ModelNotFoundError": "models",
        "Pooling": "vectors", "Tagger": "tagger", "TaggerConfig": "tagger", "Whitening": "vectors",
        "embed": "vectors", "load": "tagger.loading", "resolve_model": "models"}
__all__ = list(_API)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    globals()[name] = value  # (later lookups find it without this hook)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
