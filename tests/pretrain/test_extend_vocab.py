"""Extending the vocabulary before continued pretraining: mining, the extended tokenizer, the new rows'
initialisation, their learning rate, and a short `uner pretrain --extend-vocab` run end to end."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer, BertConfig, BertModel
from typer.testing import CliRunner

from tests.conftest import make_tokenizer, tiny_model
from uner.cli import app
from uner.io.corpus import Source
from uner.models import MaskedLM
from uner.pretrain import (
    PretrainConfig,
    collect_contexts,
    extend_tokenizer,
    init_from_contexts,
    init_new_embeddings,
    mine_words,
    param_groups,
    piece_stats,
)
from uner.pretrain.run import load_or_build

# with the tiny vocabulary: drugers = drug ##er ##s, geneings = gene ##ing ##s, cellingly = cell ##ing ##ly,
# patienters = patient ##er ##s, cityingly = city ##ing ##ly, studyers = study ##er ##s; drugs = drug ##s
LINE = "the Patienters were treated with drugers , geneings and drugs ; the cellingly study was cityingly ."
NEW = ["patienters", "drugers", "geneings", "cellingly", "cityingly"]


@pytest.fixture()
def tok(tmp_path):
    return make_tokenizer(tmp_path / "tok")


def test_mining_counts_and_thresholds(tok):
    text = ["Drugers drugers, DRUGERS drugers and drugers .", "geneings geneings geneings", "cellingly",
            "drugs drugs drugs drugs drugs drugs", "xyzzy xyzzy xyzzy xyzzy xyzzy xyzzy", ""]
    assert mine_words(text, tok, min_count=2) == [("drugers", 5, 3), ("geneings", 3, 3)]
    assert mine_words(text, tok, min_count=2, max_words=1) == [("drugers", 5, 3)]
    assert mine_words(text, tok, min_count=1) == [("drugers", 5, 3), ("geneings", 3, 3), ("cellingly", 1, 3)]
    # two pieces count with min_pieces=2; [UNK] words (xyzzy) and vocabulary words never do
    assert mine_words(text, tok, min_count=2, min_pieces=2) == [("drugs", 6, 2), ("drugers", 5, 3),
                                                                ("geneings", 3, 3)]


def test_extended_tokenizer_keeps_old_ids_and_encodes_new_words_whole(tok, tmp_path):
    new = extend_tokenizer(tok, ["drugers", "geneings", "drugers"], tmp_path / "ext")
    assert len(new) == len(tok) + 2
    old_vocab = tok.convert_ids_to_tokens(list(range(len(tok))))
    assert new.convert_ids_to_tokens(list(range(len(tok)))) == old_vocab
    assert new("Drugers")["input_ids"] == [new.cls_token_id, len(tok), new.sep_token_id]
    assert new.tokenize("geneings drugersly drugs") == ["geneings", "drugers", "##ly", "drug", "##s"]
    assert new.tokenize("cellsdrugers") == tok.tokenize("cellsdrugers")  # not cut out mid-word like added tokens
    assert (tmp_path / "ext" / "vocab.txt").read_text().splitlines() == [*old_vocab, "drugers", "geneings"]
    words = ["Drugers", "geneings", "paris", "drugs"]
    assert piece_stats(words, tok) == {"words": 4, "single": 0.25, "mean_pieces": 2.25}
    assert piece_stats(words, new) == {"words": 4, "single": 0.75, "mean_pieces": 1.25}
    with pytest.raises(ValueError, match="not a word"):
        extend_tokenizer(tok, ["Drugers"], tmp_path / "bad")  # the uncased tokenizer never sees "Drugers"


@pytest.mark.parametrize("arch", ["bert", "distilbert", "roberta", "electra"])
def test_new_rows_start_at_the_mean_of_their_pieces(tok, tmp_path, arch):
    new = extend_tokenizer(tok, ["drugers", "cellingly"], tmp_path / "ext")
    model = tiny_model(arch, len(tok))
    with torch.no_grad():
        model.get_output_embeddings().bias.normal_()
    before_emb = model.get_input_embeddings().weight.detach().clone()
    before_bias = model.get_output_embeddings().bias.detach().clone()
    assert init_new_embeddings(model, tok, new) == 2
    emb, out = model.get_input_embeddings().weight, model.get_output_embeddings()
    assert emb.shape[0] == len(new) and out.weight is emb and out.bias.shape[0] == len(new)
    torch.testing.assert_close(emb[: len(tok)], before_emb)
    for word, new_id in (("drugers", len(tok)), ("cellingly", len(tok) + 1)):
        pieces = tok.convert_tokens_to_ids(tok.tokenize(word))
        torch.testing.assert_close(emb[new_id], before_emb[pieces].mean(0))
        torch.testing.assert_close(out.bias[new_id], before_bias[pieces].mean(0))
    if arch == "bert":
        assert model.cls.predictions.bias is out.bias


# new words used exactly like old ones ("drugers" where "drug" goes) and like nothing else ("cellingly")
USES = ["the patient was treated with drug .", "the patient was treated with drugers .",
        "paris is the capital of france .", "tokyo is in japan .", "the gene results showed that .",
        "the cellingly study was by the river .", "obama visited berlin ."]


def test_collect_contexts_masks_each_occurrence_within_a_window(tok):
    found = collect_contexts(USES * 3, tok, ["drug", "drugers", "paris", "absent"], per_word=2, window=2)
    assert found["drug"] == ["treated with [MASK] ."] * 2 and found["drugers"] == found["drug"]
    assert found["paris"] == ["[MASK] is the"] * 2 and found["absent"] == []


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_new_rows_placed_by_context_land_on_the_old_word_used_alike(tok, tmp_path, arch):
    new = extend_tokenizer(tok, ["drugers", "cellingly", "geneings"], tmp_path / "ext")
    model = tiny_model(arch, len(tok))
    init_new_embeddings(model, tok, new)
    before = model.get_input_embeddings().weight.detach().clone()
    anchors = ["drug", "paris", "tokyo", "gene", "obama"]  # fewer than the 32 dimensions: the fit interpolates
    contexts = collect_contexts(USES, new, [*anchors, "drugers", "cellingly", "geneings"])
    assert contexts["geneings"] == []
    assert init_from_contexts(model, new, len(tok), contexts, anchors, ridge=1e-6) == 2
    emb = model.get_input_embeddings().weight.detach()
    drugers, cellingly, geneings = len(tok), len(tok) + 1, len(tok) + 2
    torch.testing.assert_close(emb[drugers], before[tok.convert_tokens_to_ids("drug")], atol=2e-3, rtol=0)
    assert not torch.allclose(emb[cellingly], before[cellingly])  # moved off the mean of its pieces
    torch.testing.assert_close(emb[geneings], before[geneings])  # no contexts: left as it was
    torch.testing.assert_close(emb[: len(tok)], before[: len(tok)])  # old rows untouched
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight  # still tied
    # a strong ridge shrinks the map to the old rows' mean: placed rows sit at the anchors' centre
    init_from_contexts(model, new, len(tok), contexts, anchors, ridge=1e12)
    centre = before[tok.convert_tokens_to_ids(anchors)].mean(0)
    torch.testing.assert_close(model.get_input_embeddings().weight.detach()[cellingly], centre, atol=1e-4, rtol=0)


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "bio.txt"
    path.write_text("\n".join([LINE] * 40 + ["the studyers were studyers ."] * 3 + [""]) + "\n")
    return path


def test_new_rows_train_at_the_encoder_lr(tok, corpus, tmp_path):
    enc_dir = tmp_path / "encoder"  # no MLM head: the head is fresh, the embeddings are not
    BertModel(BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64)).save_pretrained(enc_dir)
    tok.save_pretrained(enc_dir)
    out = tmp_path / "run"
    cfg = PretrainConfig(sources=[str(corpus)], out_dir=str(out), init=str(enc_dir), extend_vocab=5,
                         extend_min_count=3, lr=1e-4, head_lr=1e-3, max_steps=1)
    model, new, _, fresh, extended = load_or_build(cfg, [Source.parse(str(corpus))], out, resume=False)
    assert extended == {"candidates": 6, "added": 5, "min_count": 3, "min_pieces": 3, "init": "context",
                        "mined_from": [str(corpus)]}
    assert sorted(new.convert_ids_to_tokens(list(range(len(tok), len(new))))) == sorted(NEW)
    lr_of = {id(p): g["lr"] for g in param_groups(model, cfg, fresh) for p in g["params"]}
    assert lr_of[id(model.get_input_embeddings().weight)] == cfg.lr
    assert lr_of[id(model.get_output_embeddings().bias)] == cfg.head_lr


def test_extend_from_mines_the_domain_files_only(tok, corpus, tmp_path):
    general = tmp_path / "general.txt"  # trained on too, but its many-piece words are not the domain's
    general.write_text("the studyers and cityingly studyers .\n" * 50)
    enc_dir = tmp_path / "encoder"
    BertModel(BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64)).save_pretrained(enc_dir)
    tok.save_pretrained(enc_dir)
    sources = [Source.parse(str(corpus)), Source.parse(str(general))]

    def added(**changes) -> list[str]:
        cfg = PretrainConfig(sources=[str(s.path) for s in sources], out_dir=str(tmp_path / "run"),
                             init=str(enc_dir), extend_vocab=2, extend_min_count=3, max_steps=1, **changes)
        _, new, _, _, _ = load_or_build(cfg, sources, tmp_path / "run", resume=False)
        return new.convert_ids_to_tokens(list(range(len(tok), len(new))))

    assert added() == ["studyers", "cityingly"]  # both files mined: the general file's words win on counts
    assert added(extend_from=(str(corpus),)) == ["patienters", "drugers"]
    res = CliRunner().invoke(app, ["pretrain", str(corpus), "-o", str(tmp_path / "x"), "--init", str(enc_dir),
                                   "--extend-vocab", "5", "--extend-from", str(tmp_path / "nope.txt"),
                                   "--max-steps", "3"])
    assert res.exit_code == 2 and res.output.strip() == f"uner: error: --extend-from: no such file {tmp_path / 'nope.txt'}"


def test_pretrain_cli_extends_exports_and_resumes(tmp_path, corpus):
    model_dir = tmp_path / "tiny"
    tok = make_tokenizer(model_dir)
    tiny_model("bert", len(tok)).save_pretrained(model_dir)
    tok.save_pretrained(model_dir)
    out = tmp_path / "run"
    args = ["pretrain", str(corpus), "-o", str(out), "--init", str(model_dir), "--extend-vocab", "5",
            "--extend-min-count", "3", "--max-len", "32", "--batch-size", "4", "--eval-paragraphs", "2",
            "--eval-every", "0", "--save-every", "0", "--warmup-steps", "1", "--device", "cpu", "--no-bf16"]
    res = CliRunner().invoke(app, [*args, "--max-steps", "3"])
    assert res.exit_code == 0, res.output
    assert "extend-vocab: 5 words added of 6 candidates (min count 3, ≥3 pieces); e.g. " in res.output
    assert (out / "extend_vocab.tsv").read_text().splitlines()[1:] == [f"{w}\t40\t3" for w in NEW]

    tokenizer = AutoTokenizer.from_pretrained(out / "model")
    assert len(tokenizer) == len(tok) + 5 and tokenizer.tokenize("Drugers") == ["drugers"]
    assert AutoModelForMaskedLM.from_pretrained(out / "model").config.vocab_size == len(tokenizer)
    mlm = MaskedLM.from_pretrained(out / "model", device="cpu")
    assert mlm.top_k(["the patient was treated with [MASK] ."], k=3)[0][0].ids.shape == (3,)

    res = CliRunner().invoke(app, [*args, "--max-steps", "4", "--resume"])  # the checkpoint's tokenizer
    assert res.exit_code == 0, res.output
    assert "resumed at step 3" in res.output and "extend-vocab" not in res.output
    assert AutoTokenizer.from_pretrained(out / "model").tokenize("drugers") == ["drugers"]
    state = torch.load(out / "checkpoint" / "trainer.pt", weights_only=False)["state"]
    assert state["step"] == 4 and state["extend_vocab"]["added"] == 5


def test_extend_vocab_needs_init(tmp_path, corpus):
    res = CliRunner().invoke(app, ["pretrain", str(corpus), "-o", str(tmp_path / "x"), "--extend-vocab", "5",
                                   "--max-steps", "3"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [("uner: error: --extend-vocab needs --init: only a model being "
                                                "continued has a vocabulary to extend")]
    res = CliRunner().invoke(app, ["pretrain", str(corpus), "-o", str(tmp_path / "x"), "--extend-vocab", "5",
                                   "--init", "x", "--extend-init", "median", "--max-steps", "3"])
    assert res.exit_code == 2
    assert res.output.strip() == "uner: error: --extend-init must be one of mean, context, not 'median'"
    assert not (tmp_path / "x").exists()
