"""The masked-LM layer: a backend protocol and its implementations (docs/design.md §7).

Everything else in uner asks a ``Backend`` for MLM predictions, hidden states and
embedding matrices. ``MaskedLM`` is the transformers backend (``hf``); ``resolve``
finds and loads models. A new runtime is one new module here implementing ``Backend``.
"""

from ..paths import DEFAULT_MODEL, embedded_models
from .base import Backend, MaskPrediction, special_mask
from .hf import (CPU_BATCH_TOKENS, GPU_BATCH_TOKENS, MODEL_FAILURES, MaskedLM, head_logits, head_transform, load_settings,
                 quiet_loading, release_memory)
from .loading import BACKEND_CHOICES, BACKENDS, fastest_backend, load_backend, resolve_backend
from .resolve import (ModelNotFoundError, auto_cpu_dtype, cpu_has_amx, cpu_has_bf16, load_vocabulary, resolve_dtype,
                      resolve_model, term_normaliser)
from .tokens import Batch, TokenizedLM

__all__ = [
    "BACKEND_CHOICES", "BACKENDS", "CPU_BATCH_TOKENS", "DEFAULT_MODEL", "GPU_BATCH_TOKENS", "MODEL_FAILURES", "Backend", "Batch", "MaskPrediction", "MaskedLM",
    "ModelNotFoundError", "auto_cpu_dtype", "cpu_has_amx", "cpu_has_bf16", "embedded_models", "fastest_backend", "head_logits",
    "head_transform", "load_backend", "load_settings", "load_vocabulary", "quiet_loading", "release_memory", "resolve_backend", "resolve_dtype", "resolve_model",
    "TokenizedLM", "special_mask", "term_normaliser",
]
