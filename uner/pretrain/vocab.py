"""Extending a WordPiece vocabulary with a domain's frequent words before continued pretraining.

Domain names ("tamoxifen", "lymphocytes") fall apart into word pieces in a general vocabulary, so a masked
position can never predict them as one term. ``mine_words`` finds the frequent words the tokenizer splits
into many pieces, ``extend_tokenizer`` appends them to the WordPiece vocabulary as ordinary whole-word
entries (old ids unchanged), and ``init_new_embeddings`` starts each new row at the mean of its old pieces;
``init_from_contexts`` then moves each new row to where the MLM head points when the word is masked in its
corpus contexts, so that a new word starts next to the words that fill the same slots, not next to words
that share its spelling ("hepatoma" beside "carcinoma", not beside "hepatic").
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import torch
from transformers import AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from ..io import batched
from ..models import head_transform


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


def collect_contexts(paragraphs: Iterable[str], tokenizer: PreTrainedTokenizerBase, words: Sequence[str], *,
                     per_word: int = 8, window: int = 12) -> dict[str, list[str]]:
    """Up to ``per_word`` contexts of each word: ``window`` words either side of an occurrence (as the
    tokenizer normalises and splits text), the word itself replaced by the mask token. Streams the text and
    stops early once every word has its contexts."""
    split = _splitter(tokenizer)
    wanted = set(words)
    found: dict[str, list[str]] = {w: [] for w in words}
    missing = len(wanted)
    for text in paragraphs:
        if not missing:
            break
        toks = split(text) if text else []
        for i, w in enumerate(toks):
            if w in wanted and len(found[w]) < per_word:
                found[w].append(" ".join([*toks[max(0, i - window) : i], tokenizer.mask_token,
                                          *toks[i + 1 : i + 1 + window]]))
                if len(found[w]) == per_word:
                    missing -= 1
    return found


@torch.no_grad()
def context_states(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, words: Sequence[str],
                   contexts: dict[str, list[str]], batch_size: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    """(states, found): per word, the mean over its masked contexts of the MLM head's transformed state at the
    mask (zeros for a word without contexts), and which words had contexts."""
    device = model.get_input_embeddings().weight.device
    items = sorted(((k, ctx) for k, w in enumerate(words) for ctx in contexts.get(w, ())),
                   key=lambda item: len(item[1]))
    sums = torch.zeros(len(words), model.config.hidden_size, device=device)
    counts = torch.zeros(len(words), device=device)
    was_training = model.training
    model.eval()
    for chunk in batched(items, batch_size):
        enc = tokenizer([c for _, c in chunk], return_tensors="pt", padding=True, truncation=True).to(device)
        hidden = model.base_model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state
        rows, cols = (enc["input_ids"] == tokenizer.mask_token_id).nonzero(as_tuple=True)
        target = torch.tensor([chunk[r][0] for r in rows.tolist()], device=device)
        sums.index_add_(0, target, head_transform(model, hidden[rows, cols]).float())
        counts.index_add_(0, target, torch.ones(len(target), device=device))
    model.train(was_training)
    found = counts > 0
    sums[found] /= counts[found, None]
    return sums, found


def anchor_words(tokenizer: PreTrainedTokenizerBase, first_new: int, n: int = 3000) -> list[str]:
    """Old whole words to learn the state → row map from: alphabetic entries of ≥ 4 letters, from id 1,500
    on (BERT vocabularies put specials, unused slots and characters first, then words by frequency)."""
    vocab = tokenizer.convert_ids_to_tokens(list(range(min(1500, first_new), first_new)))
    return [w for w in vocab if w.isalpha() and len(w) >= 4][:n]


@torch.no_grad()
def init_from_contexts(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, first_new: int,
                       contexts: dict[str, list[str]], anchors: Sequence[str], ridge: float = 100.0,
                       batch_size: int = 64) -> int:
    """Place the input (and tied output) row of each new id ≥ ``first_new`` by where the MLM head points when
    its word is masked in ``contexts``. The head state of a word's contexts is mapped to an embedding row by a
    ridge regression fitted on old words (``anchors``, contexts in the same dict): their mean context states
    against their trained rows. So a new row lands among the words that fill the same slots, with the scale
    and offset that old rows have (a raw state would outscore every old word at every mask). Returns the
    number of rows set (words without contexts, and every row when no anchor has contexts, stay as they are).
    """
    emb = model.get_input_embeddings().weight
    new_words = tokenizer.convert_ids_to_tokens(list(range(first_new, emb.shape[0])))
    states, found = context_states(model, tokenizer, [*anchors, *new_words], contexts, batch_size)
    ids = torch.tensor(tokenizer.convert_tokens_to_ids(list(anchors)), dtype=torch.long, device=emb.device)
    known = found[: len(anchors)]
    if int(known.sum()) < 2 or not bool(found[len(anchors):].any()):
        return 0
    x, y = states[: len(anchors)][known], emb[ids[known]].float()
    x_mean, y_mean = x.mean(0), y.mean(0)
    xc = x - x_mean
    weights = torch.linalg.solve(xc.T @ xc + ridge * torch.eye(x.shape[1], device=emb.device), xc.T @ (y - y_mean))
    new_found = found[len(anchors):]
    rows = ((states[len(anchors):][new_found] - x_mean) @ weights + y_mean).to(emb.dtype)
    emb[first_new:][new_found] = rows
    out = model.get_output_embeddings()
    if out is not None and out.weight is not emb:
        out.weight[first_new:][new_found] = rows.to(out.weight.dtype)
    return int(new_found.sum())


def piece_stats(words: Sequence[str], tokenizer: PreTrainedTokenizerBase) -> dict[str, float]:
    """How whole the tokenizer keeps ``words`` (e.g. entity tokens): their number, the fraction that are one
    vocabulary item, and the mean pieces per word (special tokens not counted)."""
    words = [w for w in words if w]
    if not words:
        return {"words": 0, "single": 0.0, "mean_pieces": 0.0}
    ids = tokenizer(words, add_special_tokens=False)["input_ids"]
    return {"words": len(words), "single": sum(len(x) == 1 for x in ids) / len(words),
            "mean_pieces": sum(map(len, ids)) / len(words)}
