"""A backend by name: ``torch`` (transformers in PyTorch, ``hf.MaskedLM``) or ``onnx`` (ONNX Runtime, int8 by default,
``ort.OnnxMaskedLM``); another runtime is one entry here."""

from __future__ import annotations

import os
from collections.abc import Callable

from .base import Backend
from .hf import MaskedLM
from .ort import OnnxMaskedLM

BACKENDS: dict[str, Callable[..., Backend]] = {"torch": MaskedLM.from_pretrained, "onnx": OnnxMaskedLM.from_pretrained}


def load_backend(name_or_path: str | os.PathLike | None = None, backend: str = "torch", **kwargs) -> Backend:
    """The model ``name_or_path`` (None: the embedded default) on ``backend``; ``kwargs`` go to its loader
    (torch: device, dtype, threads …; onnx: dtype int8 | float32, threads)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} ({', '.join(BACKENDS)})")
    return BACKENDS[backend](name_or_path, **kwargs)
