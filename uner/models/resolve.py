"""Where a model comes from and how it is loaded: names → folders, dtype choice, the vocabulary alone.

``resolve_model`` turns a folder, an embedded model name or a hub id into a local
folder (offline first). ``dtype="auto"`` runs bfloat16 on CPUs with native bfloat16
instructions (AVX512-BF16, AMX) and float16 on GPUs.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from transformers import AutoTokenizer

from ..paths import DEFAULT_MODEL, embedded_models


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX); elsewhere bf16 is emulated and slow."""
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def resolve_dtype(dtype: str | torch.dtype | None, device: str | torch.device) -> torch.dtype:
    """None: float32 on CPU, float16 on GPU. ``"auto"``: the fastest dtype that keeps predictions
    essentially the same — bfloat16 on CPUs with native bf16, float16 on GPUs, float32 otherwise."""
    on_cpu = torch.device(device).type == "cpu"
    if dtype is None:
        return torch.float32 if on_cpu else torch.float16
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype == "auto":
        if not on_cpu:
            return torch.float16
        return torch.bfloat16 if cpu_has_bf16() else torch.float32
    names = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    found = names.get(dtype, getattr(torch, str(dtype), None))
    if not isinstance(found, torch.dtype) or not found.is_floating_point:
        raise ValueError(f"dtype must be auto, float32, bfloat16 or float16, not {dtype!r}")
    return found


class ModelNotFoundError(RuntimeError):
    """Raised when a model name or path cannot be resolved; the message says where uner looked."""


def resolve_model(name_or_path: str | os.PathLike | None = None) -> str:
    """Turn a folder, an embedded model name or a hub id into something ``from_pretrained`` loads.

    Order: an existing folder; an embedded model; the local Hugging Face cache;
    the hub (only when ``HF_HUB_OFFLINE`` is not set). Raises ModelNotFoundError
    with one line naming every place that was tried.
    """
    name = str(name_or_path) if name_or_path is not None else DEFAULT_MODEL
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(f"{path}: folder has no config.json; expected a Hugging Face model folder")
        return str(path)
    shipped = embedded_models()
    if name in shipped:
        return str(shipped[name])
    tried = [f"folder {path} (missing)", f"embedded models {sorted(shipped) or '(none)'}"]
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(name, local_files_only=True)
    except Exception:
        tried.append("Hugging Face cache (not there)")
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("1", "true", "True", "YES", "yes"):
        try:
            return snapshot_download(name, allow_patterns=["*.json", "*.txt", "*.safetensors", "*.model"])
        except Exception as exc:
            tried.append(f"hub ({type(exc).__name__})")
    else:
        tried.append("hub (skipped: HF_HUB_OFFLINE is set)")
    raise ModelNotFoundError(
        f"model {name!r} not found; looked in: {'; '.join(tried)}. "
        "Pass a local folder with config.json, an embedded model name, or a hub id with internet access."
    )


def load_vocabulary(name_or_path: str | os.PathLike | None = None) -> tuple[list[str], list[str]]:
    """A model's vocabulary (token per id) and special tokens, from its tokenizer alone (no weights loaded)."""
    tok = AutoTokenizer.from_pretrained(resolve_model(name_or_path))
    return tok.convert_ids_to_tokens(list(range(len(tok)))), list(tok.all_special_tokens)
