"""The backend seam: a second, minimal backend written against ``Backend`` drives the sentence vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

from uner.models import Backend, MaskedLM, MaskPrediction
from uner.vectors.embeddings import POOLINGS, Pooling, embed, embed_many

TEXTS = ["tokyo is the capital of japan .", "", "obama visited berlin with executives of toyota",
         "the gene encodes a protein and the study results showed that the cell was treated with the drug ."]


class OneByOne:
    """Another backend over the same BERT weights: one unpadded sequence per forward pass, no uner code."""

    def __init__(self, folder) -> None:
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForMaskedLM.from_pretrained(folder).eval()
        self.name = str(folder)
        self.vocab = self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))
        self.max_length = self.model.config.max_position_embeddings
        self.mask_token = self.tokenizer.mask_token
        self.special_tokens = list(self.tokenizer.all_special_tokens)

    def tokenize_ids(self, texts: Sequence[str], special: bool = False) -> list[list[int]]:
        return [self.tokenizer(t, add_special_tokens=special)["input_ids"] for t in texts]

    def add_specials(self, ids: Sequence[int]) -> list[int]:
        return [self.tokenizer.cls_token_id, *ids, self.tokenizer.sep_token_id]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.tokenize_ids(texts, special=True)]

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        return self.tokenize_ids(texts, special=True)

    @torch.no_grad()
    def token_states(self, ids: Sequence[Sequence[int]], layers: str = "last") -> list[np.ndarray]:
        out = []
        for seq in ids:
            hidden = self.model.bert(torch.tensor([list(seq)]), output_hidden_states=True).hidden_states
            states = torch.stack(hidden)[:, 0] if layers == "all" else hidden[-1][0]
            out.append((self.model.cls.predictions.transform(states) if layers == "head" else states).numpy())
        return out

    def hidden_states(self, texts: Sequence[str], layers: str = "last") -> list[np.ndarray]:
        return self.token_states(self.encode(texts), layers)

    @torch.no_grad()
    def head_transform_states(self, states: np.ndarray) -> np.ndarray:
        return self.model.cls.predictions.transform(torch.from_numpy(states)).numpy()

    @torch.no_grad()
    def mask_logits(self, texts: Sequence[str]) -> list[np.ndarray]:
        ids, decoder = self.encode(texts), self.model.get_output_embeddings()
        return [decoder(torch.from_numpy(states[np.array(seq) == self.tokenizer.mask_token_id])).numpy()
                for seq, states in zip(ids, self.token_states(ids, "head"))]

    def top_k(self, texts: Sequence[str], k: int = 20) -> list[list[MaskPrediction]]:
        out = []
        for logits in self.mask_logits(texts):
            best = np.argsort(-logits, axis=1, kind="stable")[:, :k]
            out.append([MaskPrediction(i, [self.vocab[t] for t in i], row[i]) for i, row in zip(best, logits)])
        return out

    def word_embeddings(self) -> np.ndarray:
        return self.model.get_input_embeddings().weight.detach().numpy()

    def decoder_bias(self) -> np.ndarray:
        return self.model.get_output_embeddings().bias.detach().numpy()


@pytest.fixture(scope="module")
def backends(tiny):
    return OneByOne(tiny[0]), MaskedLM.from_pretrained(tiny[0], device="cpu", max_batch_tokens=64)


def test_a_second_backend_satisfies_the_protocol(backends):
    other, hf = backends
    assert isinstance(other, Backend) and isinstance(hf, Backend)
    assert other.vocab == hf.vocab and other.encode(TEXTS) == hf.encode(TEXTS)
    probe = ["paris is the [MASK] of france ."]
    assert other.top_k(probe, k=5)[0][0].tokens == hf.top_k(probe, k=5)[0][0].tokens


@pytest.mark.parametrize("pooling", POOLINGS)
def test_a_second_backend_drives_the_sentence_vectors(backends, pooling):
    other, hf = backends
    got = embed(other, TEXTS, Pooling(pooling, k=2))
    assert got.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(got, embed(hf, TEXTS, Pooling(pooling, k=2)), rtol=1e-4, atol=1e-5)


def test_a_second_backend_pools_windows_and_several_poolings_in_one_pass(backends):
    other, hf = backends
    doc = [" ".join(["paris is the capital of france and the drug treats headaches ."] * 12)]
    np.testing.assert_allclose(embed(other, doc, "mean", window=22, stride=7),
                               embed(hf, doc, "mean", window=22, stride=7), rtol=1e-4, atol=1e-5)
    many = embed_many(other, TEXTS, [Pooling(p, k=2) for p in POOLINGS])
    for name in POOLINGS:
        np.testing.assert_allclose(many[name], embed(other, TEXTS, Pooling(name, k=2)), rtol=1e-5, atol=1e-6)
    assert embed(other, [], "mean").shape == (0, 32)
