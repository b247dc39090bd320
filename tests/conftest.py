"""Shared fixtures: the user cache kept out of reach, a tiny random BERT-family model saved to a real folder, and a
tiny corpus."""

from __future__ import annotations

import gzip
import lzma
import shutil
from pathlib import Path

import numpy as np

import pytest
import torch
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertTokenizerFast,
    DistilBertConfig,
    DistilBertForMaskedLM,
    ElectraConfig,
    ElectraForMaskedLM,
    RobertaConfig,
    RobertaForMaskedLM,
)

from uner.paths import user_cache_dir

WORDS = ("the a of in is to and was capital city country river paris london france england tokyo japan "
         "berlin germany obama visited with executives toyota aspirin treats headaches disease drug "
         "patient gene protein cell study results showed that were by for on at from").split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def folder_listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder`` (none if it is missing): relative path → (size, modification time)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*")} if folder.is_dir() else {}


@pytest.fixture(scope="session", autouse=True)
def user_cache(tmp_path_factory) -> Path:
    """The user's real cache folder, which no test may change: for the whole session (session fixtures and
    subprocesses, which inherit the environment, included) ``$UNER_CACHE_DIR`` points at a temporary folder
    instead (and ``$IPYTHONDIR``, which a notebook kernel writes, at another), and the session fails at its end if
    the real folder's listing, sizes or times changed. (One folder for the session, so that a cached dtype
    measurement is made once; a test that needs an empty cache sets its own.)"""
    real = user_cache_dir()
    before = folder_listing(real)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("UNER_CACHE_DIR", str(tmp_path_factory.mktemp("user-cache")))
        mp.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))  # (the notebook test's kernel profile)
        yield real
    assert folder_listing(real) == before, f"the test session changed the user cache {real}"


def make_tokenizer(folder: Path) -> BertTokenizerFast:
    vocab = SPECIALS + [".", ","] + WORDS + ["##s", "##ed", "##ing", "##er", "##ly"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = BertTokenizerFast(vocab=str(folder / "vocab.txt"), do_lower_case=True)
    assert len(tok) == len(vocab)
    return tok


def tiny_model(arch: str, vocab_size: int):
    torch.manual_seed(0)
    if arch == "bert":
        return BertForMaskedLM(BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2,
                                          num_attention_heads=2, intermediate_size=64, max_position_embeddings=64))
    if arch == "distilbert":
        return DistilBertForMaskedLM(DistilBertConfig(vocab_size=vocab_size, dim=32, n_layers=2, n_heads=2,
                                                      hidden_dim=64, max_position_embeddings=64))
    if arch == "roberta":
        return RobertaForMaskedLM(RobertaConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2,
                                                num_attention_heads=2, intermediate_size=64,
                                                max_position_embeddings=66, pad_token_id=0))
    if arch == "electra":
        return ElectraForMaskedLM(ElectraConfig(vocab_size=vocab_size, embedding_size=16, hidden_size=32,
                                                num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                                                max_position_embeddings=64))
    raise ValueError(arch)


@pytest.fixture(scope="session", params=["bert", "distilbert", "roberta", "electra"])
def tiny_model_dir(request, tmp_path_factory) -> Path:
    """A random masked LM of each supported family, saved as a Hugging Face folder."""
    folder = tmp_path_factory.mktemp(f"tiny-{request.param}")
    tok = make_tokenizer(folder)
    model = tiny_model(request.param, len(tok))
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory) -> list[Path]:
    """Three small corpus files (plain, gzip, xz) with document breaks."""
    folder = tmp_path_factory.mktemp("corpus")
    lines = []
    cities = [("paris", "france"), ("london", "england"), ("tokyo", "japan"), ("berlin", "germany")]
    for i in range(120):
        city, country = cities[i % 4]
        lines.append(f"{city} is the capital of {country} . the city of {city} is in {country} .")
        lines.append("the patient was treated with aspirin and the study results showed that the drug treats headaches .")
        if i % 10 == 9:
            lines.append("")
    text = "\n".join(lines) + "\n"
    plain, gz, xz = folder / "a.txt", folder / "b.txt.gz", folder / "c.txt.xz"
    plain.write_text(text)
    with gzip.open(gz, "wt") as f:
        f.write(text)
    with lzma.open(xz, "wt") as f:
        f.write(text)
    return [plain, gz, xz]




TYPES_YAML = Path(__file__).resolve().parents[1] / "labels" / "uner-minilm-l6" / "types.yaml"


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """A tiny BERT and a labels folder where every word is PERSON or LOCATION (so every span is typed)."""
    from uner.labels import LabelTable, load_types

    folder = tmp_path_factory.mktemp("tiny-tagger")
    model_dir, labels_dir = folder / "model", folder / "labels"
    tok = make_tokenizer(model_dir)
    tiny_model("bert", len(tok)).save_pretrained(model_dir)
    tok.save_pretrained(model_dir)
    labels_dir.mkdir()
    shutil.copy(TYPES_YAML, labels_dir / "types.yaml")
    types = load_types(TYPES_YAML)
    vocab = tok.convert_ids_to_tokens(list(range(len(tok))))
    col = {lab: j for j, lab in enumerate(types.labels)}
    rows, cols, vals = [], [], []
    for i, t in enumerate(vocab):
        if t.isalpha():
            rows.append(i)
            cols.append(col["PERSON" if i % 2 else "LOCATION"])
            vals.append(5.0)
    LabelTable(types.labels, len(vocab), np.array(rows, np.int32), np.array(cols, np.int16),
               np.array(vals, np.float32)).save(labels_dir / "label_table.npz")
    return model_dir, labels_dir


