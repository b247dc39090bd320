"""Pretraining mechanics on a tiny corpus: masking, loss going down, exact resume, export."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import make_tokenizer
from uner.models import MaskedLM
from uner.pretrain import PretrainConfig, mask_tokens, pretrain


def test_masking_rates_and_specials():
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 100, (64, 128))
    ids[:, 0], ids[:, -1] = 2, 3
    attention = torch.ones_like(ids)
    attention[:, 100:] = 0
    special = torch.zeros(100, dtype=torch.bool)
    special[:5] = True
    inputs, labels = mask_tokens(ids, attention, special, None, 4, 100, 0.15, gen)
    chosen = labels != -100
    assert not chosen[:, 0].any() and not chosen[:, 100:].any()
    rate = chosen.sum().item() / (64 * 99)
    assert 0.13 < rate < 0.17
    assert torch.equal(labels[chosen], ids[chosen])
    replaced = (inputs[chosen] == 4).float().mean().item()
    kept = (inputs[chosen] == ids[chosen]).float().mean().item()
    assert 0.75 < replaced < 0.85 and 0.07 < kept < 0.15
    assert torch.equal(inputs[~chosen], ids[~chosen])


def test_whole_word_masking_masks_all_pieces():
    gen = torch.Generator().manual_seed(1)
    # vocab: 0-4 special, 5-49 word starts, 50-99 continuation pieces
    continuation = torch.zeros(100, dtype=torch.bool)
    continuation[50:] = True
    special = torch.zeros(100, dtype=torch.bool)
    special[:5] = True
    row = [2] + [5, 50, 51, 6, 7, 52] * 20 + [3]
    ids = torch.tensor([row] * 32)
    _, labels = mask_tokens(ids, torch.ones_like(ids), special, continuation, 4, 100, 0.15, gen)
    chosen = labels != -100
    assert chosen.any()
    for r in range(ids.shape[0]):
        for t in range(1, ids.shape[1] - 1):
            if continuation[ids[r, t]]:
                assert chosen[r, t] == chosen[r, t - 1], "a word piece was masked without the rest of its word"


def config(corpus, out, **kw) -> PretrainConfig:
    base = dict(sources=[str(corpus[0]), f"{corpus[1]}:2", str(corpus[2])], out_dir=str(out), vocab_size=120,
                layers=2, hidden=32, heads=2, intermediate=64, max_len=32, batch_size=16, lr=3e-3,
                warmup_steps=5, schedule="linear", max_steps=60, eval_paragraphs=5, eval_every=0,
                save_every=0, log_every=5, seed=3)
    base.update(kw)
    return PretrainConfig(**base)


def read_log(out):
    return [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]


def test_from_scratch_learns_and_exports(tiny_corpus, tmp_path):
    out = tmp_path / "run"
    metrics = pretrain(config(tiny_corpus, out, whole_word=True, save_dtype="float16", max_steps=120), progress=False)
    losses = [r["loss"] for r in read_log(out) if "loss" in r]
    assert sum(losses[-3:]) / 3 < 0.85 * sum(losses[:3]) / 3
    assert metrics["masked_tokens"] > 0 and metrics["top10"] > metrics["top1"] > 0
    weights = load_file(out / "model" / "model.safetensors")
    assert all(t.dtype == torch.float16 for t in weights.values())
    mlm = MaskedLM.from_pretrained(out / "model", device="cpu")  # the export loads as a normal model
    assert mlm.top_k(["paris is the capital of [MASK] ."], k=3)[0][0].ids.shape == (3,)


def test_resume_equals_uninterrupted_run(tiny_corpus, tmp_path):
    # a fixed tokenizer: WordPiece learning itself is not bit-reproducible across runs
    tok_dir = tmp_path / "tok"
    make_tokenizer(tok_dir).save_pretrained(tok_dir)
    straight = tmp_path / "straight"
    pretrain(config(tiny_corpus, straight, tokenizer=str(tok_dir), max_steps=20), progress=False)
    split = tmp_path / "split"
    paused = pretrain(config(tiny_corpus, split, tokenizer=str(tok_dir), max_steps=20), progress=False, until_step=10)
    assert paused["step"] == 10
    resumed = pretrain(config(tiny_corpus, split, tokenizer=str(tok_dir), max_steps=20), resume=True, progress=False)
    assert resumed["step"] == 20
    a = load_file(straight / "model" / "model.safetensors")
    b = load_file(split / "model" / "model.safetensors")
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-5, atol=1e-6)
    steps = [r["step"] for r in read_log(split) if "loss" in r]
    assert steps == sorted(set(steps)) and steps[-1] == 20  # no step logged twice after the resume


def test_continuing_a_run_draws_new_batches(tiny_corpus, tmp_path):
    tok_dir = tmp_path / "tok"
    make_tokenizer(tok_dir).save_pretrained(tok_dir)
    first = tmp_path / "first"
    pretrain(config(tiny_corpus, first, tokenizer=str(tok_dir), max_steps=4), progress=False)
    # the same seed would replay the first run's windows and masks: by default the next seed is used
    for init, out in ((first / "checkpoint", tmp_path / "cont"), (first / "model", tmp_path / "cont2")):
        pretrain(config(tiny_corpus, out, init=str(init), max_steps=2, seed=None), progress=False)
        assert json.loads((out / "run.json").read_text())["seed"] == 4
    with pytest.warns(UserWarning, match="replays"):
        pretrain(config(tiny_corpus, tmp_path / "same", init=str(first / "checkpoint"), max_steps=2), progress=False)


def test_continue_adds_mlm_head(tiny_corpus, tmp_path):
    from transformers import BertConfig, BertModel

    enc_dir = tmp_path / "encoder"
    tok = make_tokenizer(enc_dir)
    BertModel(BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64)).save_pretrained(enc_dir)
    tok.save_pretrained(enc_dir)
    out = tmp_path / "cont"
    cfg = config(tiny_corpus, out, init=str(enc_dir), max_steps=30, lr=1e-3, head_lr=1e-2, nsp=True)
    pretrain(cfg, progress=False)
    log = read_log(out)
    assert any("nsp_loss" in r for r in log)
    mlm = MaskedLM.from_pretrained(out / "model", device="cpu")
    assert mlm.decoder_bias().any()  # the new head was trained
