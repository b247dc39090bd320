"""A backend by name: ``torch`` (transformers in PyTorch, ``hf.MaskedLM``), ``onnx`` (ONNX Runtime, int8 by default,
``ort.OnnxMaskedLM``) or ``auto``, the faster of the two on this CPU (``fastest_backend``); another runtime is one
entry here."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from transformers import AutoConfig, AutoModelForMaskedLM, AutoTokenizer

from ..io import MissingExtra
from .base import Backend
from .hf import MaskedLM
from .ort import OnnxMaskedLM, build_graph, require_onnxruntime
from .resolve import best_times, cached_measurement, model_shape, resolve_model

BACKENDS: dict[str, Callable[..., Backend]] = {"torch": MaskedLM.from_pretrained, "onnx": OnnxMaskedLM.from_pretrained}
BACKEND_CHOICES = (*BACKENDS, "auto")
BACKEND_CACHE = "backend.json"
ONNX_MARGIN = 1.1  # the int8 graph must be this much faster to be chosen: it also moves a few % of span types


def load_backend(name_or_path: str | os.PathLike | None = None, backend: str = "torch", **kwargs) -> Backend:
    """The model ``name_or_path`` (None: the embedded default) on ``backend`` (one of ``BACKEND_CHOICES``);
    ``kwargs`` go to its loader (torch: device, dtype, threads …; onnx: dtype int8 | float32, threads)."""
    return BACKENDS[resolve_backend(backend, name_or_path, kwargs.get("device"))](name_or_path, **kwargs)


def resolve_backend(backend: str, name_or_path: str | os.PathLike | None = None, device: str | None = None) -> str:
    """The backend of ``BACKENDS`` that ``backend`` names for the model: ``auto`` is ``fastest_backend`` on a CPU,
    torch on a GPU. A caller that starts several processes resolves it once, so that they all run alike."""
    if backend == "auto":
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        backend = fastest_backend(name_or_path)[0] if str(device) == "cpu" else "torch"
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} ({', '.join(BACKEND_CHOICES)})")
    return backend


def fastest_backend(name_or_path: str | os.PathLike | None = None) -> tuple[str, str]:
    """The backend ``auto`` loads for the model on this CPU, and why: torch where ONNX Runtime is not installed,
    else onnx where its int8 graph measured at least ``ONNX_MARGIN`` times the speed of torch in its ``auto``
    dtype on a copy of the model (once per CPU, library versions and model shape, in the user cache)."""
    try:
        ort = require_onnxruntime()
    except MissingExtra:
        return "torch", "ONNX Runtime is not installed"
    path = resolve_model(name_or_path)
    config = AutoConfig.from_pretrained(path)
    key = f"torch {torch.__version__} | onnxruntime {ort.__version__} | {model_shape(config)} x{config.num_hidden_layers}"
    speedup, where = cached_measurement(BACKEND_CACHE, key, lambda: _measure_onnx(path, config))
    chosen = "onnx" if speedup >= ONNX_MARGIN else "torch"
    return chosen, f"onnx int8 measured {speedup:.2f}x the speed of torch ({where})"


def _measure_onnx(path: str, config) -> float:
    """torch time (``auto`` dtype) / onnx int8 time of a copy of the model (its shape and depth, random weights, its
    tokenizer) on tagging-sized batches of three widths, through each backend's own batching and MLM head. (A
    one-layer copy misleads: its MLM head, float in the graph, is most of its time; with AMX it read onnx 1.42x
    torch, while the whole model runs 0.70x.)"""
    with tempfile.TemporaryDirectory() as tmp:
        AutoModelForMaskedLM.from_config(config).save_pretrained(tmp)
        AutoTokenizer.from_pretrained(path).save_pretrained(tmp)
        build_graph(Path(tmp), Path(tmp) / "graph.onnx", "int8")
        runners = {"torch": MaskedLM.from_pretrained(tmp, device="cpu", dtype="auto"),
                   "onnx": OnnxMaskedLM.from_pretrained(tmp, graph=Path(tmp) / "graph.onnx")}
        rng = np.random.default_rng(0)
        mask = runners["torch"].tokenizer.mask_token_id
        low = min(1000, config.vocab_size // 2)  # (past the special and reserved tokens)
        ids = [[*rng.integers(low, config.vocab_size, w - 1).tolist(), mask] for w in (12, 24, 48) for _ in range(60)]

        def run(mlm) -> Callable[[], None]:
            return lambda: list(mlm._mask_outputs(ids, 10))

        best = best_times({name: run(mlm) for name, mlm in runners.items()})
    return best["torch"] / best["onnx"]
