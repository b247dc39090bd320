"""The masked-LM layer: load any Hugging Face MLM and read its head cheaply.

Everything else in uner asks this module for MLM predictions, hidden states and
embedding matrices. Predictions are computed only at mask positions: the
encoder runs on the batch, the hidden states at the masks are gathered, and only
those rows go through the MLM head. Inputs are sorted by length and packed into
batches bounded by a token budget (small on CPU, where activations that stay in the
cache matter more than fewer, larger matrix products). ``dtype="auto"`` runs bfloat16
on CPUs with native bfloat16 instructions (AVX512-BF16, AMX) and float16 on GPUs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoModelForMaskedLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from .paths import DEFAULT_MODEL, embedded_models



CPU_BATCH_TOKENS = 1024  # per thread: ~1k tokens of 384-1536-wide activations stay in a core's cache
GPU_BATCH_TOKENS = 8192


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


def head_transform(model: PreTrainedModel, states: torch.Tensor) -> torch.Tensor:
    """Apply the MLM head's transform (dense → activation → LayerNorm) to hidden states.

    The decoder (``model.get_output_embeddings()``) maps the result to vocabulary logits.
    """
    kind = model.config.model_type
    if hasattr(model, "cls"):  # BERT family (incl. BertForPreTraining)
        return model.cls.predictions.transform(states)
    if kind == "distilbert":
        return model.vocab_layer_norm(model.activation(model.vocab_transform(states)))
    if hasattr(model, "lm_head"):  # RoBERTa family
        head = model.lm_head
        return head.layer_norm(F.gelu(head.dense(states)))
    if hasattr(model, "generator_predictions"):  # ELECTRA generator
        return model.generator_predictions(states)
    raise TypeError(f"unsupported masked-LM head for model type {kind!r}")


def head_logits(model: PreTrainedModel, states: torch.Tensor) -> torch.Tensor:
    """Vocabulary logits for the given hidden states (any leading shape)."""
    return model.get_output_embeddings()(head_transform(model, states))


@dataclass
class MaskPrediction:
    """Top-k predictions at one mask: vocabulary ids, their tokens and logits (descending)."""

    ids: np.ndarray
    tokens: list[str]
    logits: np.ndarray


@dataclass
class Batch:
    """A padded batch of encoded texts and the input indices it holds."""

    index: list[int]
    input_ids: torch.Tensor
    attention_mask: torch.Tensor


class MaskedLM:
    """A masked language model with its tokenizer, read in batches.

    >>> mlm = MaskedLM.from_pretrained()  # the embedded default model
    >>> [p.tokens[:3] for p in mlm.top_k(["paris is the capital of [MASK] ."])[0]]
    """

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        *,
        device: str | torch.device = "cpu",
        max_batch_tokens: int | None = None,
        name: str = "",
    ) -> None:
        self.model = model.eval().to(device)
        self.tokenizer = tokenizer
        self.device = torch.device(device)
        if max_batch_tokens is None:  # CPU: scale with the threads that share the batch
            max_batch_tokens = (min(CPU_BATCH_TOKENS * torch.get_num_threads(), GPU_BATCH_TOKENS)
                                if self.device.type == "cpu" else GPU_BATCH_TOKENS)
        self.max_batch_tokens = max_batch_tokens
        self.name = name
        self.max_length = min(
            getattr(model.config, "max_position_embeddings", 512) - _position_offset(model),
            tokenizer.model_max_length if tokenizer.model_max_length < 10**6 else 10**6,
        )
        self.vocab: list[str] = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike | None = None,
        *,
        device: str | None = None,
        dtype: str | torch.dtype | None = None,
        threads: int | None = None,
        max_batch_tokens: int | None = None,
        attn_implementation: str | None = None,
    ) -> MaskedLM:
        """Load a masked LM from a folder, an embedded model name or a hub id (offline first).

        ``dtype``: None (float32 on CPU, float16 on GPU), ``"auto"`` (see ``resolve_dtype``) or a dtype name.
        ``max_batch_tokens``: padded tokens per forward pass; None picks by device (CPU: 1024 per thread).
        ``attn_implementation``: None picks "eager" for bfloat16 on CPU (~10 % faster than SDPA's CPU
        flash attention on short inputs), the transformers default otherwise.
        """
        if threads:
            torch.set_num_threads(threads)
        path = resolve_model(name_or_path)
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = resolve_dtype(dtype, device)
        if attn_implementation is None and dtype == torch.bfloat16 and torch.device(device).type == "cpu":
            attn_implementation = "eager"
        tokenizer = AutoTokenizer.from_pretrained(path)
        extra = {"attn_implementation": attn_implementation} if attn_implementation else {}
        model = AutoModelForMaskedLM.from_pretrained(path, dtype=dtype, **extra)
        return cls(model, tokenizer, device=device, max_batch_tokens=max_batch_tokens,
                   name=Path(path).name if name_or_path is None else str(name_or_path))

    # ----- static model facts -------------------------------------------------
    @property
    def mask_token(self) -> str:
        return self.tokenizer.mask_token

    @property
    def special_tokens(self) -> list[str]:
        """The tokenizer's special tokens ([CLS], [SEP], [MASK], …)."""
        return list(self.tokenizer.all_special_tokens)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text with special tokens (no window check: for fitting inputs to the window)."""
        if not texts:
            return []
        return [len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=True, truncation=False,
                                                    verbose=False)["input_ids"]]

    def word_embeddings(self) -> np.ndarray:
        """The input word-embedding matrix (V × d) as float32."""
        return self.model.get_input_embeddings().weight.detach().float().cpu().numpy()

    def decoder_bias(self) -> np.ndarray:
        """The MLM decoder's per-term bias (V,), a prior importance score for each term."""
        bias = self.model.get_output_embeddings().bias
        if bias is None:
            return np.zeros(len(self.vocab), dtype=np.float32)
        return bias.detach().float().cpu().numpy()

    # ----- batching -------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with special tokens; raises ValueError naming any text longer than the model window."""
        if not texts:
            return []
        ids = self.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        for i, seq in enumerate(ids):
            if len(seq) > self.max_length:
                raise ValueError(f"text {i} has {len(seq)} tokens, more than the model window of {self.max_length}")
        return ids

    def batches(self, ids: Sequence[Sequence[int]]) -> Iterator[Batch]:
        """Sort by length and yield padded batches whose padded size stays within ``max_batch_tokens``."""
        lengths = [len(seq) for seq in ids]
        order = sorted(range(len(ids)), key=lengths.__getitem__)
        pad = self.tokenizer.pad_token_id or 0
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and lengths[order[end]] * (end - start + 1) <= self.max_batch_tokens:
                end += 1
            members = order[start:end]
            width = lengths[members[-1]]
            input_ids = np.full((len(members), width), pad, dtype=np.int64)
            for row, i in enumerate(members):
                input_ids[row, : lengths[i]] = ids[i]
            attention = np.arange(width) < np.array([lengths[i] for i in members])[:, None]
            yield Batch(members, torch.from_numpy(input_ids).to(self.device),
                        torch.from_numpy(attention.astype(np.int64)).to(self.device))
            start = end

    def _encoder(self, batch: Batch, all_layers: bool = False):
        return self.model.base_model(
            input_ids=batch.input_ids, attention_mask=batch.attention_mask, output_hidden_states=all_layers
        )

    # ----- predictions ------------------------------------------------------------
    @torch.inference_mode()
    def top_k(self, texts: Sequence[str], k: int = 20) -> list[list[MaskPrediction]]:
        """Top-k predictions at every mask token of every text (per text, masks in order).

        Identical texts run once and share their (read-only) MaskPrediction objects.
        """
        unique = list(dict.fromkeys(texts))
        if len(unique) < len(texts):
            first = dict(zip(unique, self.top_k(unique, k)))
            return [first[t] for t in texts]
        ids = self.encode(texts)
        mask_id = self.tokenizer.mask_token_id
        out: list[list[MaskPrediction]] = [[] for _ in texts]
        k = min(k, len(self.vocab))
        for batch in self.batches(ids):
            is_mask = batch.input_ids == mask_id
            if not bool(is_mask.any()):
                continue
            hidden = self._encoder(batch).last_hidden_state
            logits = head_logits(self.model, hidden[is_mask]).float()
            values, indices = logits.topk(k, dim=-1)
            rows = is_mask.nonzero()[:, 0].tolist()
            values, indices = values.cpu().numpy(), indices.cpu().numpy()
            for j, row in enumerate(rows):
                out[batch.index[row]].append(
                    MaskPrediction(indices[j], [self.vocab[t] for t in indices[j]], values[j])
                )
        return out

    @torch.inference_mode()
    def mask_logits(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Full vocabulary logits at each mask (masks × V per text), computed mask-only."""
        ids = self.encode(texts)
        mask_id = self.tokenizer.mask_token_id
        out = [np.zeros((0, len(self.vocab)), dtype=np.float32) for _ in texts]
        for batch in self.batches(ids):
            is_mask = batch.input_ids == mask_id
            hidden = self._encoder(batch).last_hidden_state
            logits = head_logits(self.model, hidden[is_mask]).float().cpu().numpy()
            counts = is_mask.sum(1).tolist()
            offsets = np.cumsum([0] + counts)
            for row, i in enumerate(batch.index):
                out[i] = logits[offsets[row] : offsets[row + 1]]
        return out

    @torch.inference_mode()
    def hidden_states(self, texts: Sequence[str], layers: str = "last") -> list[np.ndarray]:
        """Per-token hidden states for each text (special tokens included).

        ``layers="last"`` gives tokens × d; ``"all"`` gives (layers+1) × tokens × d,
        layer 0 being the embedding output; ``"head"`` gives the states after the MLM
        head's transform layer (tokens × d_head), whose row 0 is the [CLS] vector.
        """
        return self.token_states(self.encode(texts), layers)

    @torch.inference_mode()
    def token_states(self, ids: Sequence[Sequence[int]], layers: str = "last") -> list[np.ndarray]:
        """``hidden_states`` for already encoded inputs (each at most ``max_length`` ids, specials included)."""
        if layers not in ("last", "all", "head"):
            raise ValueError(f"layers must be 'last', 'all' or 'head', not {layers!r}")
        out: list[np.ndarray] = [None] * len(ids)  # type: ignore[list-item]
        for batch in self.batches(ids):
            enc = self._encoder(batch, all_layers=layers == "all")
            if layers == "all":
                states = torch.stack(enc.hidden_states, dim=1)  # B × L+1 × T × d
            elif layers == "head":
                states = head_transform(self.model, enc.last_hidden_state)
            else:
                states = enc.last_hidden_state
            states = states.float().cpu().numpy()
            lengths = batch.attention_mask.sum(1).tolist()
            for row, i in enumerate(batch.index):
                out[i] = states[row, ..., : lengths[row], :]
        return out


def _position_offset(model: PreTrainedModel) -> int:
    """RoBERTa-style models reserve padding_idx + 1 positions at the start of the position table."""
    return model.config.pad_token_id + 1 if model.config.model_type in ("roberta", "xlm-roberta", "camembert") else 0
