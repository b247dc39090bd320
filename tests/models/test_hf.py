"""The transformers backend on tiny random models of every supported family (real HF folders)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uner.models import Backend, MaskedLM, head_logits, head_transform
from uner.models.tokens import PAD_MULTIPLE

TEXTS = [
    "paris is the [MASK] of france .",
    "[MASK] visited tokyo with executives of [MASK] .",
    "the patient was treated with [MASK] and the study results showed that the drug treats headaches in the city .",
    "no mask here .",
    "[MASK]",
]


def full_forward_logits(mlm: MaskedLM, text: str) -> torch.Tensor:
    enc = mlm.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logits = mlm.model(**enc).logits[0]
    return logits[enc["input_ids"][0] == mlm.tokenizer.mask_token_id]


def test_top_k_equals_full_forward(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    results = mlm.top_k(TEXTS, k=5)
    for text, preds in zip(TEXTS, results):
        full = full_forward_logits(mlm, text)
        assert len(preds) == full.shape[0]
        for pred, row in zip(preds, full):
            values, ids = row.topk(5)
            assert pred.ids.tolist() == ids.tolist()
            np.testing.assert_allclose(pred.logits, values.numpy(), rtol=1e-4, atol=1e-4)
            assert pred.tokens == mlm.tokenizer.convert_ids_to_tokens(ids.tolist())


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_last_layer_runs_at_the_masks_only(tiny_model_dir, attention):
    """BERT-style layouts: the last layer is computed at the mask rows alone (its own forward never runs), with
    either attention's mask (additive or boolean), padding and several masks per input, and the logits are the full
    forward's; other layouts (DistilBERT) run whole."""
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", attn_implementation=attention)
    assert (mlm.last_layer is None) == (mlm.model.config.model_type == "distilbert")
    ran = []
    hooks = [layer.register_forward_hook(lambda *a, i=i: ran.append(i))
             for i, layer in enumerate(mlm.model.base_model.get_submodule(
                 "transformer" if mlm.last_layer is None else "encoder").layer)]
    try:
        results = mlm.top_k(TEXTS, k=5)
    finally:
        for hook in hooks:
            hook.remove()
    layers = len(hooks)
    assert set(ran) == set(range(layers - 1 if mlm.last_layer is not None else layers))
    for text, preds in zip(TEXTS, results):
        full = full_forward_logits(mlm, text)
        assert [p.ids.tolist() for p in preds] == [row.topk(5).indices.tolist() for row in full]
        np.testing.assert_allclose([p.logits for p in preds], [row.topk(5).values.numpy() for row in full],
                                   rtol=1e-4, atol=1e-4)


def test_mask_logits_match_full_forward(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    out = mlm.mask_logits(TEXTS)
    for text, got in zip(TEXTS, out):
        np.testing.assert_allclose(got, full_forward_logits(mlm, text).numpy(), rtol=1e-4, atol=1e-4)


def test_batched_equals_one_by_one(tiny_model_dir):
    batched = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", max_batch_tokens=4096)
    single = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", max_batch_tokens=1)
    assert len(list(batched.batches(batched.encode(TEXTS)))) == 1
    assert len(list(single.batches(single.encode(TEXTS)))) == len(TEXTS)
    for a, b in zip(batched.top_k(TEXTS, k=8), single.top_k(TEXTS, k=8)):
        assert [p.ids.tolist() for p in a] == [p.ids.tolist() for p in b]
        for pa, pb in zip(a, b):
            np.testing.assert_allclose(pa.logits, pb.logits, rtol=1e-4, atol=1e-4)
    for a, b in zip(batched.hidden_states(TEXTS, "all"), single.hidden_states(TEXTS, "all")):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_batches_respect_token_budget_and_sort_by_length(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", max_batch_tokens=40)
    ids = mlm.encode(TEXTS * 3)
    seen = []
    for batch in mlm.batches(ids):
        rows, width = batch.input_ids.shape
        assert rows == 1 or rows * width <= 40
        lengths = [len(ids[i]) for i in batch.index]
        assert width == min(-(-max(lengths) // PAD_MULTIPLE) * PAD_MULTIPLE, mlm.max_length)  # few distinct shapes
        assert batch.attention_mask.sum(1).tolist() == lengths
        seen.extend(batch.index)
    assert sorted(seen) == list(range(len(ids)))
    assert [len(ids[i]) for i in seen] == sorted(len(s) for s in ids)


def test_hidden_state_shapes(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    n_tokens = [len(s) for s in mlm.encode(TEXTS)]
    layers = mlm.model.config.num_hidden_layers if hasattr(mlm.model.config, "num_hidden_layers") else mlm.model.config.n_layers
    for arr, n in zip(mlm.hidden_states(TEXTS, "all"), n_tokens):
        assert arr.shape[:2] == (layers + 1, n)
    last = mlm.hidden_states(TEXTS, "last")
    head = mlm.hidden_states(TEXTS, "head")
    for a, h, n in zip(last, head, n_tokens):
        assert a.shape[0] == n and h.shape[0] == n
        # the head states are exactly what the decoder turns into logits
        logits = mlm.model.get_output_embeddings()(torch.from_numpy(h)).detach().numpy()
        expected = head_logits(mlm.model, torch.from_numpy(a)).detach().numpy()
        np.testing.assert_allclose(logits, expected, rtol=1e-4, atol=1e-4)


def test_static_facts(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    emb = mlm.word_embeddings()
    assert emb.shape[0] == len(mlm.vocab) and emb.dtype == np.float32
    bias = mlm.decoder_bias()
    assert bias.shape == (len(mlm.vocab),)
    np.testing.assert_allclose(bias, mlm.model.get_output_embeddings().bias.detach().numpy())
    assert mlm.vocab[mlm.tokenizer.mask_token_id] == mlm.mask_token


def test_is_a_backend_and_its_tokenizer_views_agree(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    assert isinstance(mlm, Backend)
    assert set(mlm.special_tokens) >= {mlm.mask_token} and mlm.tokenize_ids([]) == []
    content = mlm.tokenize_ids(TEXTS)
    full = mlm.tokenize_ids(TEXTS, special=True)
    assert [mlm.add_specials(ids) for ids in content] == full == mlm.encode(TEXTS)
    assert mlm.count_tokens(TEXTS) == [len(ids) for ids in full]


def test_head_transform_states_is_the_heads_transform(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    last = mlm.hidden_states(TEXTS[:1], "last")[0]
    got = mlm.head_transform_states(last)
    np.testing.assert_allclose(got, mlm.hidden_states(TEXTS[:1], "head")[0], rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        np.testing.assert_allclose(got, head_transform(mlm.model, torch.from_numpy(last)).numpy(), rtol=1e-5, atol=1e-6)


def test_empty_batch(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    assert mlm.top_k([]) == [] and mlm.hidden_states([]) == []


def test_too_long_text_is_an_error_not_a_truncation(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    with pytest.raises(ValueError, match="text 1 has .* tokens"):
        mlm.top_k(["the [MASK] .", " ".join(["the"] * 200) + " [MASK]"])


def test_duplicate_texts_run_once_with_the_same_predictions(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", dtype="float32")
    encode, seen = mlm.encode, []
    mlm.encode = lambda texts: seen.append(list(texts)) or encode(texts)
    doubled = mlm.top_k(TEXTS + TEXTS[::-1], k=5)
    assert seen == [TEXTS]  # each distinct text encoded (and run) once
    single = mlm.top_k(TEXTS, k=5)
    for got, want in zip(doubled, single + single[::-1]):
        assert [p.ids.tolist() for p in got] == [p.ids.tolist() for p in want]
        for pg, pw in zip(got, want):
            np.testing.assert_allclose(pg.logits, pw.logits, rtol=1e-5, atol=1e-5)


def test_cpu_batches_are_small_by_default(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    assert mlm.max_batch_tokens == min(1024 * torch.get_num_threads(), 8192)
    assert MaskedLM.from_pretrained(tiny_model_dir, device="cpu", max_batch_tokens=77).max_batch_tokens == 77


PROBES = [
    "paris is the capital of [MASK] .", "the [MASK] of france is paris .", "barack [MASK] was president .",
    "he was treated with [MASK] for his headache .", "aspirin is a [MASK] .", "germany is a [MASK] .",
    "toyota is a [MASK] .", "the [MASK] scored two goals in the second half .", "john smith is a [MASK] .",
    "the river [MASK] flows through london .", "she works as a [MASK] in the hospital .",
    "the company reported a [MASK] in quarterly profits .", "diabetes is a [MASK] .", "[MASK] is a city .",
    "the patient developed [MASK] after the surgery .", "the [MASK] won the election in november .",
    "tokyo is the largest city in [MASK] .", "the gene encodes a [MASK] involved in cell division .",
    "shares of [MASK] rose 3 percent on monday .", "manchester united beat [MASK] 2 - 1 .",
    "the [MASK] was signed in geneva .", "insulin is used to treat [MASK] .", "cnn is a [MASK] .",
    "the minister met the [MASK] of china .",
]


def test_bfloat16_agrees_with_float32_on_the_shipped_model():
    """The tagger's default on bf16 CPUs: top-1 and top-20 at the masks stay those of float32 for most masks."""
    fp32 = MaskedLM.from_pretrained(device="cpu", dtype="float32").top_k(PROBES, k=20)
    bf16 = MaskedLM.from_pretrained(device="cpu", dtype="bfloat16").top_k(PROBES, k=20)
    a, b = [p[0] for p in fp32], [p[0] for p in bf16]
    top1 = np.mean([x.ids[0] == y.ids[0] for x, y in zip(a, b)])
    overlap = np.mean([len(set(x.ids) & set(y.ids)) / 20 for x, y in zip(a, b)])
    assert top1 >= 0.85 and overlap >= 0.9, (top1, overlap)
    np.testing.assert_allclose([x.logits[0] for x in a], [y.logits[0] for y in b], rtol=0.05, atol=0.3)
