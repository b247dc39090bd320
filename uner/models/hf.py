"""The transformers backend: load any Hugging Face MLM and read its head cheaply.

Predictions are computed only at mask positions: the encoder runs on the batch up to its last layer, which
(for BERT-style layers) is computed at the mask rows only, and only those rows go through the MLM head (the
tokenizer side and the predictions' bookkeeping are ``tokens.TokenizedLM``'s). Inputs are sorted by length and
packed into batches bounded by a token budget (small on CPU, where activations that stay in the cache matter more
than fewer, larger matrix products).

(Named ``hf`` rather than ``transformers`` so that ``import transformers`` always
means the library, never this module.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (AutoConfig, AutoModelForMaskedLM, AutoTokenizer, PreTrainedModel,
                          PreTrainedTokenizerBase)
from transformers.utils import logging as hf_logging

from .resolve import resolve_dtype, resolve_model
from .tokens import Batch, TokenizedLM

MODEL_FAILURES = (MemoryError, torch.OutOfMemoryError)  # the model itself failing: a run stops, not one record

CPU_BATCH_TOKENS = 1024  # per thread: ~1k tokens of 384-1536-wide activations stay in a core's cache
GPU_BATCH_TOKENS = 8192
ONEDNN_CACHE = "8"  # oneDNN primitives kept per process (its default, 1024, grows with every new shape)
ROWS_LAYER_PARTS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output",
                    "intermediate", "output")  # a layer ``layer_at_rows`` can compute
_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)


def release_memory() -> None:
    """Hand the heap's freed pages back to the OS (glibc's ``malloc_trim``; nothing elsewhere): batches of varied
    shapes leave freed tensor memory scattered, and without this a long run's resident memory creeps up."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def load_settings(name_or_path: str | os.PathLike | None = None, dtype: str | torch.dtype | None = None,
                  device: str | None = None) -> tuple[str, torch.dtype]:
    """The device and dtype ``MaskedLM.from_pretrained`` loads a model with (``"auto"`` resolved for its shape):
    a caller that starts several processes resolves them once, so that they all run alike."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    config = AutoConfig.from_pretrained(resolve_model(name_or_path)) if dtype == "auto" else None
    return device, resolve_dtype(dtype, device, config)


@contextmanager
def quiet_loading() -> Iterator[None]:
    """transformers' "Loading weights" progress bar off for the block, unless ``UNER_VERBOSE`` is set
    (``uner --verbose``): every command loads a model, and the bar is noise in its output."""
    if os.environ.get("UNER_VERBOSE") or not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()


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


def rows_layer(model: PreTrainedModel) -> torch.nn.Module | None:
    """The encoder's last layer where ``layer_at_rows`` can compute it (BERT, RoBERTa, ELECTRA: self-attention with
    absolute positions, then the feed-forward block); None for other layouts, which run whole."""
    layers = getattr(getattr(model.base_model, "encoder", None), "layer", None)
    if (not layers or getattr(model.config, "is_decoder", False)
            or getattr(model.config, "position_embedding_type", "absolute") != "absolute"):
        return None
    return layers[-1] if all(_has(layers[-1], p) for p in ROWS_LAYER_PARTS) else None


def _has(module: torch.nn.Module, path: str) -> bool:
    try:
        module.get_submodule(path)
    except AttributeError:
        return False
    return True


def layer_at_rows(layer: torch.nn.Module, hidden: torch.Tensor, mask: torch.Tensor | None, rows: torch.Tensor,
                  cols: torch.Tensor) -> torch.Tensor:
    """A BERT-style layer's output at positions (``rows``, ``cols``) of ``hidden`` (B × T × d) only: queries there,
    keys and values everywhere, ``mask`` as the encoder hands it to its layers (B × 1 × T × T, additive or boolean,
    or None). The MLM head reads the last layer at the masks alone, so the rest of that layer (its attention
    output and feed-forward block on every other token, a sixth of a 6-layer encoder) would be thrown away."""
    att = layer.attention.self
    heads, size = att.num_attention_heads, att.attention_head_size
    x = hidden[rows, cols]  # M × d
    q = att.query(x).view(len(rows), heads, 1, size)
    k, v = (proj(hidden).view(*hidden.shape[:2], heads, size).transpose(1, 2)[rows] for proj in (att.key, att.value))
    m = None if mask is None else mask[rows, :, cols].unsqueeze(2)  # M × 1 × 1 × T
    ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=m).reshape(len(rows), heads * size)
    a = layer.attention.output(ctx, x)
    return layer.output(layer.intermediate(a), a)


class _Stop(Exception):
    """Raised by the hook that stops the encoder before its last layer (what that layer was given is kept)."""


class MaskedLM(TokenizedLM):
    """A Hugging Face masked language model with its tokenizer, read in batches (the ``Backend`` protocol).

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
        self.device = torch.device(device)
        if self.device.type == "cpu":  # (read when oneDNN makes its first primitive; a user's setting wins)
            os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", ONEDNN_CACHE)
        if max_batch_tokens is None:  # CPU: scale with the threads that share the batch
            max_batch_tokens = (min(CPU_BATCH_TOKENS * torch.get_num_threads(), GPU_BATCH_TOKENS)
                                if self.device.type == "cpu" else GPU_BATCH_TOKENS)
        super().__init__(tokenizer, model.config, max_batch_tokens, name)
        self.last_layer = rows_layer(self.model)  # computed at the masks only when predicting (None: run whole)

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

        ``dtype``: None (float32 on CPU, float16 on GPU), ``"auto"`` (see ``resolve_dtype``: bfloat16 on a
        CPU only where it measured faster) or a dtype name.
        ``max_batch_tokens``: padded tokens per forward pass; None picks by device (CPU: 1024 per thread).
        ``attn_implementation``: None picks "eager" for bfloat16 on CPU (~10 % faster than SDPA's CPU
        flash attention on short inputs), the transformers default otherwise.
        """
        if threads:
            torch.set_num_threads(threads)
        path = resolve_model(name_or_path)
        device, dtype = load_settings(path, dtype, device)
        if attn_implementation is None and dtype == torch.bfloat16 and torch.device(device).type == "cpu":
            attn_implementation = "eager"
        tokenizer = AutoTokenizer.from_pretrained(path)
        extra = {"attn_implementation": attn_implementation} if attn_implementation else {}
        with quiet_loading():
            model = AutoModelForMaskedLM.from_pretrained(path, dtype=dtype, **extra)
        return cls(model, tokenizer, device=device, max_batch_tokens=max_batch_tokens,
                   name=Path(path).name if name_or_path is None else str(name_or_path))

    # ----- static model facts -------------------------------------------------
    def word_embeddings(self) -> np.ndarray:
        """The input word-embedding matrix (V × d) as float32."""
        return self.model.get_input_embeddings().weight.detach().float().cpu().numpy()

    def decoder_bias(self) -> np.ndarray:
        """The MLM decoder's per-term bias (V,), a prior importance score for each term."""
        bias = self.model.get_output_embeddings().bias
        if bias is None:
            return np.zeros(len(self.vocab), dtype=np.float32)
        return bias.detach().float().cpu().numpy()

    @torch.inference_mode()
    def head_transform_states(self, states: np.ndarray) -> np.ndarray:
        """The MLM head's transform applied to rows of last-layer states, in the model's dtype (float32 out)."""
        x = torch.from_numpy(np.ascontiguousarray(states)).to(self.device, next(self.model.parameters()).dtype)
        return head_transform(self.model, x).float().cpu().numpy()

    # ----- batching -------------------------------------------------------------
    def batches(self, ids: Sequence[Sequence[int]]) -> Iterator[Batch]:
        """``padded`` batches as tensors on the model's device."""
        for batch in self.padded(ids):
            yield Batch(batch.index, torch.from_numpy(batch.input_ids).to(self.device),
                        torch.from_numpy(batch.attention_mask).to(self.device))

    def _encoder(self, batch: Batch, all_layers: bool = False):
        return self.model.base_model(
            input_ids=batch.input_ids, attention_mask=batch.attention_mask, output_hidden_states=all_layers
        )

    def _mask_states(self, batch: Batch, is_mask: torch.Tensor) -> torch.Tensor:
        """Last-layer states at the masks (in row-major order): the encoder stopped before its last layer by a
        hook, that layer computed at the mask rows alone (``layer_at_rows``), where the model's layout allows."""
        last = self.last_layer
        if last is None:
            return self._encoder(batch).last_hidden_state[is_mask]
        given: dict = {}

        def stop(module, args, kwargs):
            given["hidden"] = args[0]
            given["mask"] = args[1] if len(args) > 1 else kwargs.get("attention_mask")
            raise _Stop

        hook = last.register_forward_pre_hook(stop, with_kwargs=True)
        try:
            self._encoder(batch)
        except _Stop:
            pass
        finally:
            hook.remove()
        rows, cols = is_mask.nonzero(as_tuple=True)
        return layer_at_rows(last, given["hidden"], given["mask"], rows, cols)

    # ----- predictions ------------------------------------------------------------
    @torch.inference_mode()
    def _mask_outputs(self, ids: Sequence[Sequence[int]], k: int | None
                      ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
        """The encoder on each batch, the MLM head on its mask rows only (top-k taken on the device)."""
        mask_id = self.tokenizer.mask_token_id
        for batch in self.batches(ids):
            is_mask = batch.input_ids == mask_id
            if not bool(is_mask.any()):
                continue
            logits = head_logits(self.model, self._mask_states(batch, is_mask)).float()
            rows = np.asarray(batch.index)[is_mask.nonzero()[:, 0].cpu().numpy()]
            if k is None:
                yield rows, logits.cpu().numpy(), None
            else:
                values, indices = logits.topk(k, dim=-1)
                yield rows, values.cpu().numpy(), indices.cpu().numpy()

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

