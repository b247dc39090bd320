"""Extending a WordPiece vocabulary with a domain's frequent words before continued pretraining.

Domain names ("tamoxifen", "lymphocytes") fall apart into word pieces in a general vocabulary, so a masked
position can never predict them as one term. ``mine_words`` finds the frequent words the tokenizer splits
into many pieces, ``extend_tokenizer`` appends them to the WordPiece vocabulary as ordinary whole-word
entries (old ids unchanged), and ``init_new_embeddings`` starts each new row at the mean of its old pieces.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import torch
from transformers import AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase


def _wordpiece(tokenizer: PreTrainedTokenizerBase):
    """The tokenizer's WordPiece model; ValueError for any other kind (BPE, Unigram …)."""
    model = getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None)
    if type(model).__name__ != "WordPiece":
        raise ValueError(f"extending the vocabulary needs a fast WordPiece (BERT-style) tokenizer, "
                         f"not {type(model).__name__ if model is not None else type(tokenizer).__name__}")
    return model


def _splitter(tokenizer: PreTrainedTokenizerBase) -> Callable[[str], list[str]]:
    """Text → words exactly as the tokenizer sees them before WordPiece (its normaliser and pre-tokenizer:
    lower case and accents as the model has them, punctuation split off)."""
    backend = tokenizer.backend_tokenizer
    normalize = backend.normalizer.normalize_str if backend.normalizer is not None else str
    pre = backend.pre_tokenizer
    return lambda text: [w for w, _ in pre.pre_tokenize_str(normalize(text))]


def _is_word(w: str) -> bool:
    """A candidate term: at least 4 letters or digits, at least one of them a letter."""
    return len(w) >= 4 and w.isalnum() and any(c.isalpha() for c in w)


def mine_words(paragraphs: Iterable[str], tokenizer: PreTrainedTokenizerBase, *, min_pieces: int = 3,
               min_count: int = 20, max_words: int | None = 20000) -> list[tuple[str, int, int]]:
    """(word, count, pieces) for the corpus words that ``tokenizer`` splits into ≥ ``min_pieces`` pieces and
    that occur ≥ ``min_count`` times, most frequent first, at most ``max_words`` (None: all).

    Streams the text; memory is one counter over the distinct candidate words. Words already in the
    vocabulary (one piece) and words the tokenizer maps to [UNK] are never returned.
    """
    wordpiece = _wordpiece(tokenizer)
    split = _splitter(tokenizer)
    counts: Counter[str] = Counter()
    for text in paragraphs:
        if text:
            counts.update(w for w in split(text) if _is_word(w))
    mined = []
    for word, count in counts.most_common():
        if count < min_count or (max_words is not None and len(mined) >= max_words):
            break
        pieces = len(wordpiece.tokenize(word))
        if pieces >= max(min_pieces, 2):
            mined.append((word, count, pieces))
    return mined


def extend_tokenizer(tokenizer: PreTrainedTokenizerBase, words: Sequence[str],
                     folder: str | Path) -> PreTrainedTokenizerBase:
    """The tokenizer with ``words`` appended to its WordPiece vocabulary, saved in ``folder`` and loaded back.

    The words become ordinary vocabulary entries, not ``add_tokens`` "added tokens": added tokens are cut
    out of the raw text before normalisation and WordPiece, so "tamoxifen" would also match inside
    "antitamoxifen" or "Tamoxifen-like" and bypass lower-casing rules. As vocabulary entries they are found by
    WordPiece's usual greedy longest match at the start of a word, like every other whole word. Old ids keep
    their meaning; every other setting (normaliser, specials, templates) is the saved tokenizer's own.
    """
    _wordpiece(tokenizer)
    split = _splitter(tokenizer)
    folder = Path(folder)
    tokenizer.save_pretrained(folder)
    state = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = state["model"]["vocab"]
    if len(tokenizer) != len(vocab):
        raise ValueError(f"the tokenizer has {len(tokenizer) - len(vocab)} added tokens after its vocabulary; "
                         "new words cannot be appended without moving them")
    for word in dict.fromkeys(words):
        if split(word) != [word]:
            raise ValueError(f"{word!r} is not a word as this tokenizer normalises and splits text")
        vocab.setdefault(word, len(vocab))
    (folder / "tokenizer.json").write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    (folder / "vocab.txt").write_text("".join(t + "\n" for t in sorted(vocab, key=vocab.__getitem__)),
                                      encoding="utf-8")
    return AutoTokenizer.from_pretrained(folder)


@torch.no_grad()
def init_new_embeddings(model: PreTrainedModel, old_tokenizer: PreTrainedTokenizerBase,
                        new_tokenizer: PreTrainedTokenizerBase) -> int:
    """Grow the model to ``new_tokenizer``'s vocabulary and start each new id (those past the old
    vocabulary) at the mean of its old pieces: input embedding, output embedding if untied, and MLM
    decoder bias. Returns the number of new ids.

    The mean keeps a new word where its pieces put it in embedding space and gives it their average
    prior, so continued training starts from a sensible prediction instead of a random one.
    """
    old_n, new_n = len(old_tokenizer), len(new_tokenizer)
    if new_n <= old_n:
        return 0
    wordpiece = _wordpiece(old_tokenizer)
    words = new_tokenizer.convert_ids_to_tokens(list(range(old_n, new_n)))
    pieces = [[t.id for t in wordpiece.tokenize(w)] for w in words]
    flat = torch.tensor([p for ps in pieces for p in ps])
    row = torch.repeat_interleave(torch.arange(len(words)), torch.tensor([len(ps) for ps in pieces]))

    counts = torch.bincount(row, minlength=len(words))

    def mean_of_pieces(table: torch.Tensor) -> torch.Tensor:
        sums = torch.zeros((len(words), *table.shape[1:])).index_add_(0, row, table[flat].float())
        return (sums / counts.view(-1, *[1] * (table.dim() - 1))).to(table.dtype)

    if model.get_input_embeddings().weight.shape[0] < new_n:
        model.resize_token_embeddings(new_n, mean_resizing=False)
    emb = model.get_input_embeddings().weight
    emb[old_n:new_n] = mean_of_pieces(emb)
    out = model.get_output_embeddings()
    if out is not None:
        if out.weight is not emb:
            out.weight[old_n:new_n] = mean_of_pieces(out.weight)
        if getattr(out, "bias", None) is not None:
            out.bias[old_n:new_n] = mean_of_pieces(out.bias)
    return new_n - old_n


def piece_stats(words: Sequence[str], tokenizer: PreTrainedTokenizerBase) -> dict[str, float]:
    """How whole the tokenizer keeps ``words`` (e.g. entity tokens): their number, the fraction that are one
    vocabulary item, and the mean pieces per word (special tokens not counted)."""
    words = [w for w in words if w]
    if not words:
        return {"words": 0, "single": 0.0, "mean_pieces": 0.0}
    ids = tokenizer(words, add_special_tokens=False)["input_ids"]
    return {"words": len(words), "single": sum(len(x) == 1 for x in ids) / len(words),
            "mean_pieces": sum(map(len, ids)) / len(words)}
