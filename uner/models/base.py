"""What uner asks of a masked language model: the backend protocol and the prediction record.

The tagger, clustering, labels, embeddings and diagnostics see a model only through
``Backend``; the transformers implementation (``hf.MaskedLM``) is one backend, and
another runtime (ONNX Runtime, …) is one new module implementing the same members.
Arrays cross the seam as numpy, so callers never touch a framework's tensors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


SPECIAL_RE = re.compile(r"^(\[.*\]|<.*>)$")  # special and reserved tokens: [CLS], [unused12], <s>


def special_mask(vocab: Sequence[str], specials: Iterable[str] = ()) -> np.ndarray:
    """True for special and reserved tokens ([CLS], [unused12], <s>, …) and for ``specials``."""
    extra = set(specials)
    return np.array([t in extra or bool(SPECIAL_RE.match(t)) for t in vocab], dtype=bool)


@dataclass
class MaskPrediction:
    """Top-k predictions at one mask: vocabulary ids, their tokens and logits (descending)."""

    ids: np.ndarray
    tokens: list[str]
    logits: np.ndarray


@runtime_checkable
class Backend(Protocol):
    """A masked LM with its tokenizer, read in batches; every array is numpy (float32 unless stated)."""

    name: str  # the model name or path it was loaded as (picks the default labels folder)
    vocab: list[str]  # token per vocabulary id
    max_length: int  # the model window in tokens, special tokens included

    @property
    def mask_token(self) -> str:
        """The mask token's text ([MASK], <mask>, …)."""
        ...

    @property
    def special_tokens(self) -> list[str]:
        """The tokenizer's special tokens ([CLS], [SEP], [MASK], …)."""
        ...

    def tokenize_ids(self, texts: Sequence[str], special: bool = False) -> list[list[int]]:
        """Token ids of each text, with or without the special tokens; no window check."""
        ...

    def add_specials(self, ids: Sequence[int]) -> list[int]:
        """Content ids framed by one leading and one trailing special token ([CLS] … [SEP])."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text with special tokens (no window check: for fitting inputs to the window)."""
        ...

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with special tokens; ValueError naming any text longer than ``max_length``."""
        ...

    def top_k(self, texts: Sequence[str], k: int = 20) -> list[list[MaskPrediction]]:
        """Top-k predictions at every mask token of every text (per text, masks in order)."""
        ...

    def mask_logits(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Full vocabulary logits at each mask (masks × V per text)."""
        ...

    def hidden_states(self, texts: Sequence[str], layers: str = "last") -> list[np.ndarray]:
        """``token_states`` of the encoded texts."""
        ...

    def token_states(self, ids: Sequence[Sequence[int]], layers: str = "last") -> list[np.ndarray]:
        """Per-token states of encoded inputs: ``"last"`` tokens × d, ``"all"`` (layers+1) × tokens × d
        (layer 0 the embedding output), ``"head"`` after the MLM head's transform (tokens × d_head)."""
        ...

    def word_embeddings(self) -> np.ndarray:
        """The input word-embedding matrix (V × d)."""
        ...

    def decoder_bias(self) -> np.ndarray:
        """The MLM decoder's per-term bias (V,); zeros when the decoder has none."""
        ...

    def head_transform_states(self, states: np.ndarray) -> np.ndarray:
        """The MLM head's transform applied to rows of last-layer states (n × d → n × d_head)."""
        ...
