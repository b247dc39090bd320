"""What every masked-LM backend shares: the tokenizer's view of texts, padded batches, and predictions read at
the masks.

A backend (``hf.MaskedLM``, ``ort.OnnxMaskedLM``) subclasses ``TokenizedLM`` and implements one method,
``_mask_outputs``: the logits at the masks of a list of encoded inputs. ``top_k`` and ``mask_logits`` are built
on it here, so that the runtimes differ only in how they run the network.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from transformers import PretrainedConfig, PreTrainedTokenizerBase

from .base import MaskPrediction

PAD_MULTIPLE = 8  # batch widths are padded to a multiple of this: few distinct shapes, so oneDNN's kernels and the
# heap are reused instead of made anew for every width (a long teacher run's memory then stays flat)


@dataclass
class Batch:
    """A padded batch of encoded texts and the input indices it holds (numpy arrays from ``TokenizedLM.padded``,
    the device's tensors from ``MaskedLM.batches``)."""

    index: list[int]
    input_ids: Any
    attention_mask: Any


class TokenizedLM:
    """A masked LM's tokenizer side: token ids, the model window, length-sorted padded batches, and the
    ``Backend`` predictions built on the subclass's ``_mask_outputs``."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, config: PretrainedConfig, max_batch_tokens: int,
                 name: str = "") -> None:
        self.tokenizer = tokenizer
        self.max_batch_tokens = max_batch_tokens
        self.name = name
        self.max_length = min(
            getattr(config, "max_position_embeddings", 512) - position_offset(config),
            tokenizer.model_max_length if tokenizer.model_max_length < 10**6 else 10**6,
        )
        self.vocab: list[str] = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))

    @property
    def mask_token(self) -> str:
        return self.tokenizer.mask_token

    @property
    def special_tokens(self) -> list[str]:
        """The tokenizer's special tokens ([CLS], [SEP], [MASK], …)."""
        return list(self.tokenizer.all_special_tokens)

    def tokenize_ids(self, texts: Sequence[str], special: bool = False) -> list[list[int]]:
        """Token ids of each text, with or without the special tokens; no window check."""
        if not texts:
            return []
        return self.tokenizer(list(texts), add_special_tokens=special, truncation=False, verbose=False)["input_ids"]

    def add_specials(self, ids: Sequence[int]) -> list[int]:
        """Content ids framed as [CLS] … [SEP] (the tokenizer's own start and end tokens)."""
        return [self.tokenizer.cls_token_id, *ids, self.tokenizer.sep_token_id]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text with special tokens (no window check: for fitting inputs to the window)."""
        return [len(ids) for ids in self.tokenize_ids(texts, special=True)]

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with special tokens; raises ValueError naming any text longer than the model window."""
        ids = self.tokenize_ids(texts, special=True)
        for i, seq in enumerate(ids):
            if len(seq) > self.max_length:
                raise ValueError(f"text {i} has {len(seq)} tokens, more than the model window of {self.max_length}")
        return ids

    def padded(self, ids: Sequence[Sequence[int]]) -> Iterator[Batch]:
        """Sort by length and yield padded numpy batches whose padded size (widths rounded up to ``PAD_MULTIPLE``,
        within the model window) stays within ``max_batch_tokens``."""
        lengths = [len(seq) for seq in ids]
        widths = [min(-(-n // PAD_MULTIPLE) * PAD_MULTIPLE, max(n, self.max_length)) for n in lengths]
        order = sorted(range(len(ids)), key=lengths.__getitem__)
        pad = self.tokenizer.pad_token_id or 0
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and widths[order[end]] * (end - start + 1) <= self.max_batch_tokens:
                end += 1
            members = order[start:end]
            width = widths[members[-1]]
            input_ids = np.full((len(members), width), pad, dtype=np.int64)
            for row, i in enumerate(members):
                input_ids[row, : lengths[i]] = ids[i]
            attention = np.arange(width) < np.array([lengths[i] for i in members])[:, None]
            yield Batch(members, input_ids, attention.astype(np.int64))
            start = end

    def _mask_outputs(self, ids: Sequence[Sequence[int]], k: int | None
                      ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
        """Per batch of ``ids`` that has masks: the input index of each mask (in input then position order) and
        its float32 logits, the top ``k`` (descending) with their vocabulary ids, or all of them (ids None)."""
        raise NotImplementedError

    def top_k(self, texts: Sequence[str], k: int = 20) -> list[list[MaskPrediction]]:
        """Top-k predictions at every mask token of every text (per text, masks in order).

        Identical texts run once and share their (read-only) MaskPrediction objects.
        """
        unique = list(dict.fromkeys(texts))
        if len(unique) < len(texts):
            first = dict(zip(unique, self.top_k(unique, k)))
            return [first[t] for t in texts]
        out: list[list[MaskPrediction]] = [[] for _ in texts]
        for rows, values, indices in self._mask_outputs(self.encode(texts), min(k, len(self.vocab))):
            for i, v, t in zip(rows.tolist(), values, indices):
                out[i].append(MaskPrediction(t, [self.vocab[j] for j in t], v))
        return out

    def mask_logits(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Full vocabulary logits at each mask (masks × V per text), computed mask-only."""
        out = [np.zeros((0, len(self.vocab)), dtype=np.float32) for _ in texts]
        for rows, logits, _ in self._mask_outputs(self.encode(texts), None):
            for i in np.unique(rows).tolist():
                out[i] = logits[rows == i]
        return out


def position_offset(config: PretrainedConfig) -> int:
    """RoBERTa-style models reserve padding_idx + 1 positions at the start of the position table."""
    return config.pad_token_id + 1 if config.model_type in ("roberta", "xlm-roberta", "camembert") else 0
