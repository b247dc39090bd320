"""Training data: WordPiece learning, the memory-mapped token caches, window sampling, masking and
the fixed held-out evaluation set."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import torch
from tokenizers import BertWordPieceTokenizer
from transformers import BertTokenizerFast, PreTrainedTokenizerBase

from ..io import Source, atomic_dir, read_paragraphs


def learn_wordpiece(texts: Iterable[str], vocab_size: int, cased: bool) -> PreTrainedTokenizerBase:
    """Learn a BERT WordPiece vocabulary from a stream of paragraphs (``tokenizers`` library)."""
    wp = BertWordPieceTokenizer(lowercase=not cased, strip_accents=not cased, clean_text=True)
    wp.train_from_iterator((t for t in texts if t), vocab_size=vocab_size, min_frequency=2,
                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return BertTokenizerFast(tokenizer_object=wp._tokenizer, do_lower_case=not cased, model_max_length=512)


class TokenCache:
    """One source tokenized into flat memory-mapped arrays.

    ``tokens``: all training tokens back to back; ``para``: paragraph start offsets
    (length P+1); ``doc``: document id per paragraph; ``eval_*``: the same for the
    held-out paragraphs taken from the start of the source.
    """

    def __init__(self, folder: Path) -> None:
        meta = json.loads((folder / "meta.json").read_text())
        dtype = np.dtype(meta["dtype"])
        self.tokens = np.memmap(folder / "tokens.bin", dtype=dtype, mode="r") if meta["n_tokens"] else np.zeros(0, dtype)
        self.para = np.load(folder / "para.npy")
        self.doc = np.load(folder / "doc.npy")
        self.eval_tokens = np.load(folder / "eval_tokens.npy")
        self.eval_para = np.load(folder / "eval_para.npy")
        self.n_tokens = int(meta["n_tokens"])

    @staticmethod
    def build(source: Path, folder: Path, tokenizer: PreTrainedTokenizerBase, eval_paragraphs: int,
              chunk: int = 4096) -> TokenCache:
        """Tokenize ``source`` into ``folder`` (streamed; written atomically via a temp folder)."""
        def write(tmp: Path) -> None:
            dtype = np.uint16 if len(tokenizer) <= 65535 else np.int32
            para, doc = [0], []
            eval_tokens: list[int] = []
            eval_para = [0]
            n_tokens, doc_id = 0, 0
            buf: list[str] = []
            saved_max, tokenizer.model_max_length = tokenizer.model_max_length, 10**9  # no length warnings here
            with open(tmp / "tokens.bin", "wb") as out:

                def flush() -> None:
                    nonlocal n_tokens
                    enc = tokenizer(buf, add_special_tokens=False)["input_ids"]
                    for seq in enc:
                        if not seq:
                            continue
                        if len(eval_para) <= eval_paragraphs:
                            eval_tokens.extend(seq)
                            eval_para.append(len(eval_tokens))
                            continue
                        out.write(np.asarray(seq, dtype=dtype).tobytes())
                        n_tokens += len(seq)
                        para.append(n_tokens)
                        doc.append(doc_id)
                    buf.clear()

                for text in read_paragraphs(source):
                    if not text:
                        doc_id += 1
                        continue
                    buf.append(text)
                    if len(buf) >= chunk:
                        flush()
                flush()
            tokenizer.model_max_length = saved_max
            np.save(tmp / "para.npy", np.asarray(para, dtype=np.int64))
            np.save(tmp / "doc.npy", np.asarray(doc, dtype=np.int32))
            np.save(tmp / "eval_tokens.npy", np.asarray(eval_tokens, dtype=dtype))
            np.save(tmp / "eval_para.npy", np.asarray(eval_para, dtype=np.int64))
            (tmp / "meta.json").write_text(json.dumps({"source": str(source), "dtype": np.dtype(dtype).name,
                                                       "n_tokens": n_tokens}))

        atomic_dir(folder, write)
        return TokenCache(folder)


def _cache_key(source: Path, tokenizer: PreTrainedTokenizerBase, eval_paragraphs: int) -> str:
    st = source.stat()
    vocab = "\n".join(tokenizer.convert_ids_to_tokens(list(range(len(tokenizer)))))
    h = hashlib.sha1(f"{source.resolve()}|{st.st_size}|{int(st.st_mtime)}|{eval_paragraphs}|".encode())
    h.update(vocab.encode())
    return f"{source.name}-{h.hexdigest()[:12]}"


def load_caches(sources: Sequence[Source], tokenizer: PreTrainedTokenizerBase, cache_dir: Path,
                eval_paragraphs: int) -> list[TokenCache]:
    """Token caches for all sources, building the missing ones."""
    caches = []
    for src in sources:
        folder = cache_dir / _cache_key(src.path, tokenizer, eval_paragraphs)
        if (folder / "meta.json").is_file():
            caches.append(TokenCache(folder))
        else:
            print(f"tokenizing {src.path} …", flush=True)
            caches.append(TokenCache.build(src.path, folder, tokenizer, eval_paragraphs))
    return caches


class WindowSampler:
    """Draws training sequences from the caches, sources chosen by weight."""

    def __init__(self, caches: Sequence[TokenCache], weights: Sequence[float], tokenizer: PreTrainedTokenizerBase,
                 max_len: int, nsp: bool) -> None:
        usable = [i for i, c in enumerate(caches) if c.n_tokens > max_len]
        if not usable:
            raise ValueError(f"no source has more than {max_len} training tokens")
        self.caches = [caches[i] for i in usable]
        w = np.asarray([weights[i] for i in usable], dtype=np.float64)
        self.probs = w / w.sum()
        self.max_len, self.nsp = max_len, nsp
        self.cls, self.sep, self.pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        self.continuation = np.array([t.startswith("##") for t in vocab], dtype=bool)

    def draw(self, rng: np.random.Generator, n: int) -> dict[str, torch.Tensor]:
        ids = np.full((n, self.max_len), self.pad, dtype=np.int64)
        types = np.zeros((n, self.max_len), dtype=np.int64)
        nsp_labels = np.zeros(n, dtype=np.int64)
        which = rng.choice(len(self.caches), size=n, p=self.probs)
        for row, s in enumerate(which):
            cache = self.caches[s]
            if self.nsp:
                a, b, nsp_labels[row] = self._pair(rng, cache)
                seq = [self.cls, *a, self.sep, *b, self.sep]
                types[row, len(a) + 2 : len(seq)] = 1
            else:
                body = self.max_len - 2
                start = int(rng.integers(0, cache.n_tokens - body))
                window = cache.tokens[start : start + body + 8]
                skip = 0
                while skip < 8 and self.continuation[window[skip]]:
                    skip += 1
                seq = [self.cls, *window[skip : skip + body].tolist(), self.sep]
            ids[row, : len(seq)] = seq
        out = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy((ids != self.pad) | (np.arange(self.max_len) == 0)).long()}
        if self.nsp:
            out["token_type_ids"] = torch.from_numpy(types)
            out["next_sentence_label"] = torch.from_numpy(nsp_labels)
        return out

    def _pair(self, rng: np.random.Generator, cache: TokenCache) -> tuple[list[int], list[int], int]:
        """Paragraph A and either its successor in the same document (label 0) or a random one (1)."""
        n_para = len(cache.para) - 1
        i = int(rng.integers(0, n_para))
        is_next = i + 1 < n_para and cache.doc[i + 1] == cache.doc[i] and rng.random() < 0.5
        j = i + 1 if is_next else int(rng.integers(0, n_para))
        a = cache.tokens[cache.para[i] : cache.para[i + 1]].tolist()
        b = cache.tokens[cache.para[j] : cache.para[j + 1]].tolist()
        budget = self.max_len - 3
        while len(a) + len(b) > budget:
            if len(a) >= len(b):
                a.pop()
            else:
                b.pop()
        return a, b, 0 if is_next else 1


def special_token_mask(tokenizer: PreTrainedTokenizerBase, device: torch.device | str = "cpu") -> torch.Tensor:
    """A boolean row over the vocabulary, True at special tokens ([CLS], [SEP], [PAD] …), which are never masked."""
    special = torch.zeros(len(tokenizer), dtype=torch.bool, device=device)
    special[torch.tensor(tokenizer.all_special_ids, device=device)] = True
    return special


def mask_tokens(input_ids: torch.Tensor, attention_mask: torch.Tensor, special: torch.Tensor,
                continuation: torch.Tensor | None, mask_id: int, vocab_size: int, prob: float,
                generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Dynamic MLM masking: pick ``prob`` of the tokens (whole words when ``continuation`` is given),
    replace 80 % with [MASK], 10 % with a random token, keep 10 %. Returns (inputs, labels)."""
    dev = input_ids.device
    cand = attention_mask.bool() & ~special[input_ids]
    r = torch.rand(input_ids.shape, generator=generator, device=dev)
    if continuation is None:
        chosen = cand & (r < prob)
    else:
        starts = cand & ~continuation[input_ids]
        pos = torch.arange(input_ids.shape[1], device=dev).expand_as(input_ids)
        last_start = torch.cummax(torch.where(starts, pos, torch.full_like(pos, -1)), dim=1).values
        picked = starts & (r < prob)
        chosen = picked.gather(1, last_start.clamp(min=0)) & (last_start >= 0) & cand
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
    r2 = torch.rand(input_ids.shape, generator=generator, device=dev)
    inputs = input_ids.clone()
    inputs[chosen & (r2 < 0.8)] = mask_id
    rand_pos = chosen & (r2 >= 0.8) & (r2 < 0.9)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, device=dev)
    inputs[rand_pos] = random_ids[rand_pos]
    return inputs, labels


def build_eval_set(caches: Sequence[TokenCache], tokenizer: PreTrainedTokenizerBase, max_len: int, prob: float,
                   seed: int, batch_size: int = 64) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Fixed masked sequences from the held-out paragraphs: every chosen token becomes [MASK]."""
    seqs = []
    for cache in caches:
        for i in range(len(cache.eval_para) - 1):
            body = cache.eval_tokens[cache.eval_para[i] : cache.eval_para[i + 1]][: max_len - 2].tolist()
            seqs.append([tokenizer.cls_token_id, *body, tokenizer.sep_token_id])
    gen = np.random.default_rng(seed)
    out = []
    for start in range(0, len(seqs), batch_size):
        chunk = seqs[start : start + batch_size]
        width = max(len(s) for s in chunk)
        ids = np.full((len(chunk), width), tokenizer.pad_token_id, dtype=np.int64)
        att = np.zeros_like(ids)
        labels = np.full_like(ids, -100)
        for r, s in enumerate(chunk):
            ids[r, : len(s)] = s
            att[r, : len(s)] = 1
            pick = gen.random(len(s)) < prob
            pick[0] = pick[-1] = False
            labels[r, : len(s)][pick] = np.asarray(s)[pick]
            ids[r, : len(s)][pick] = tokenizer.mask_token_id
        out.append((torch.from_numpy(ids), torch.from_numpy(att), torch.from_numpy(labels)))
    return out
