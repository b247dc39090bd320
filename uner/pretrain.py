"""Masked-LM pretraining: continue an encoder or train one from scratch.

The corpus is tokenized once into a memory-mapped cache (streamed, bounded
memory), then training draws windows from the sources by weight. Masking is
dynamic (15 %, 80/10/10, optionally whole-word); the MLM head runs only at the
masked positions. Checkpoints are atomic; ``resume=True`` continues the
schedule, optimizer and random streams where the last checkpoint left them.
"""

from __future__ import annotations

import hashlib
import json
import math
import signal
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertForPreTraining,
    BertTokenizerFast,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from .corpus import Source, read_paragraphs
from .io import atomic_dir, atomic_write_text
from .models import cpu_has_bf16, head_logits, resolve_model


@dataclass
class PretrainConfig:
    """Every setting of a pretraining run (saved with the run for reproducibility)."""

    sources: list[str]
    out_dir: str
    init: str | None = None  # model to continue; None = from scratch
    tokenizer: str | None = None  # from scratch: existing tokenizer; None = learn WordPiece
    vocab_size: int = 30522
    cased: bool = False
    layers: int = 6
    hidden: int = 384
    heads: int = 12
    intermediate: int = 1536
    max_len: int = 128
    batch_size: int = 64
    lr: float = 1e-4  # encoder
    head_lr: float = 1e-3  # a freshly added MLM head learns faster
    weight_decay: float = 0.01
    warmup_steps: int = 500
    schedule: str = "linear"  # linear | cosine | constant
    max_steps: int | None = None
    max_time: float | None = None  # seconds of training; the schedule follows whichever ends first
    mlm_prob: float = 0.15
    whole_word: bool = False
    nsp: bool = False
    head_init: str = "random"  # random | identity (a freshly added BERT head's dense layer starts as I)
    eval_paragraphs: int = 100  # held out from the start of every source
    eval_every: int = 1000
    save_every: int = 1000
    log_every: int = 50
    seed: int | None = None  # None: 0, or one past the seed of the uner run being continued (new windows/masks)
    device: str | None = None
    save_dtype: str = "float32"
    bf16: bool | None = None  # bfloat16 autocast for training steps; None = on GPUs and CPUs with native bf16
    extra: dict = field(default_factory=dict)


# ---------------------------------------------------------------- tokenizer


def learn_wordpiece(texts: Iterable[str], vocab_size: int, cased: bool) -> PreTrainedTokenizerBase:
    """Learn a BERT WordPiece vocabulary from a stream of paragraphs (``tokenizers`` library)."""
    from tokenizers import BertWordPieceTokenizer

    wp = BertWordPieceTokenizer(lowercase=not cased, strip_accents=not cased, clean_text=True)
    wp.train_from_iterator((t for t in texts if t), vocab_size=vocab_size, min_frequency=2,
                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return BertTokenizerFast(tokenizer_object=wp._tokenizer, do_lower_case=not cased, model_max_length=512)


# ---------------------------------------------------------------- token cache


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


# ---------------------------------------------------------------- sampling and masking


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


def mlm_loss(model: PreTrainedModel, batch: dict[str, torch.Tensor], labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Cross-entropy at the masked positions only (head applied to those rows), plus NSP loss if asked."""
    kwargs = {k: v for k, v in batch.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
    enc = model.base_model(**kwargs)
    hidden = enc.last_hidden_state
    sel = labels != -100
    logits = head_logits(model, hidden[sel])
    loss = F.cross_entropy(logits.float(), labels[sel])
    nsp_loss = None
    if "next_sentence_label" in batch:
        nsp_logits = model.cls.seq_relationship(enc.pooler_output)
        nsp_loss = F.cross_entropy(nsp_logits.float(), batch["next_sentence_label"])
    return loss, nsp_loss


def train_step(model: PreTrainedModel, optimizer: torch.optim.Optimizer, batch: dict[str, torch.Tensor],
               labels: torch.Tensor, bf16: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """One optimisation step (forward under optional bf16 autocast, backward, clip to 1.0, AdamW);
    returns the detached MLM and NSP losses."""
    with torch.autocast(labels.device.type, dtype=torch.bfloat16, enabled=bf16):
        loss, nsp_loss = mlm_loss(model, batch, labels)
        total = loss + nsp_loss if nsp_loss is not None else loss
    optimizer.zero_grad(set_to_none=True)
    total.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.detach(), None if nsp_loss is None else nsp_loss.detach()


@torch.no_grad()
def evaluate_mlm(model: PreTrainedModel, eval_set: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]],
                 device: torch.device, amp: bool) -> dict[str, float]:
    """Held-out masked-token accuracy: top-1, top-10 and loss over fixed masked sequences."""
    model.eval()
    hits1 = hits10 = total = 0
    loss_sum = 0.0
    for inputs, attention, labels in eval_set:
        inputs, attention, labels = inputs.to(device), attention.to(device), labels.to(device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            hidden = model.base_model(input_ids=inputs, attention_mask=attention).last_hidden_state
            sel = labels != -100
            logits = head_logits(model, hidden[sel]).float()
        gold = labels[sel]
        top = logits.topk(10, dim=-1).indices
        hits1 += int((top[:, 0] == gold).sum())
        hits10 += int((top == gold[:, None]).any(1).sum())
        loss_sum += float(F.cross_entropy(logits, gold, reduction="sum"))
        total += int(gold.numel())
    model.train()
    return {"top1": hits1 / max(total, 1), "top10": hits10 / max(total, 1), "loss": loss_sum / max(total, 1),
            "masked_tokens": total}


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


# ---------------------------------------------------------------- model setup


def build_model(cfg: PretrainConfig, tokenizer: PreTrainedTokenizerBase) -> tuple[PreTrainedModel, list[str]]:
    """The model to train and the names of freshly initialised parameters (e.g. an added MLM head)."""
    if cfg.init is None:
        config = BertConfig(vocab_size=len(tokenizer), hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                            num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                            max_position_embeddings=max(512, cfg.max_len), pad_token_id=tokenizer.pad_token_id)
        model = (BertForPreTraining if cfg.nsp else BertForMaskedLM)(config)
        return model, [n for n, _ in model.named_parameters()]
    path = resolve_model(cfg.init)
    cls = BertForPreTraining if cfg.nsp else AutoModelForMaskedLM
    model, info = cls.from_pretrained(path, output_loading_info=True, dtype=torch.float32)
    if cfg.nsp and model.config.model_type != "bert":
        raise ValueError("--nsp needs a BERT-type model")
    fresh = list(info.get("missing_keys", []))
    if cfg.head_init == "identity" and any(k.startswith("cls.predictions.transform") for k in fresh):
        dense = model.cls.predictions.transform.dense
        with torch.no_grad():
            dense.weight.copy_(torch.eye(dense.weight.shape[0]))
            dense.bias.zero_()
    return model, fresh


def param_groups(model: PreTrainedModel, cfg: PretrainConfig, fresh: Sequence[str]) -> list[dict]:
    """AdamW groups: encoder at ``lr``, freshly added head parameters at ``head_lr``; no decay on biases/norms."""
    fresh_set = set(fresh)
    groups: dict[tuple[bool, bool], list[torch.nn.Parameter]] = {}
    for name, p in model.named_parameters():
        is_new = cfg.init is not None and name in fresh_set
        no_decay = p.ndim < 2 or "LayerNorm" in name or "layer_norm" in name
        groups.setdefault((is_new, no_decay), []).append(p)
    return [{"params": ps, "lr": cfg.head_lr if new else cfg.lr, "base_lr": cfg.head_lr if new else cfg.lr,
             "weight_decay": 0.0 if nd else cfg.weight_decay} for (new, nd), ps in groups.items()]


def lr_factor(cfg: PretrainConfig, step: int, elapsed: float) -> float:
    """Linear warm-up, then the chosen decay over training progress (steps or time, whichever is further)."""
    warm = min(1.0, (step + 1) / cfg.warmup_steps) if cfg.warmup_steps else 1.0
    progress = 0.0
    if cfg.max_steps:
        progress = max(progress, step / cfg.max_steps)
    if cfg.max_time:
        progress = max(progress, elapsed / cfg.max_time)
    progress = min(progress, 1.0)
    if cfg.schedule == "constant":
        return warm
    if cfg.schedule == "cosine":
        return warm * 0.5 * (1 + math.cos(math.pi * progress))
    return warm * (1.0 - progress)


# ---------------------------------------------------------------- checkpoints


def export_model(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, folder: Path, dtype: str) -> None:
    """Save a Hugging Face model folder (safetensors) in the given dtype, atomically."""

    def write(tmp: Path) -> None:
        state_dtype = getattr(torch, dtype)
        clone = type(model)(model.config)
        clone.load_state_dict(model.state_dict())
        clone.to(state_dtype).save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)

    atomic_dir(folder, write)


def save_checkpoint(folder: Path, model, tokenizer, optimizer, state: dict, rng: np.random.Generator,
                    gen: torch.Generator) -> None:
    def write(tmp: Path) -> None:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        torch.save({"optimizer": optimizer.state_dict(), "state": state, "numpy_rng": rng.bit_generator.state,
                    "torch_gen": gen.get_state(), "torch_rng": torch.get_rng_state()}, tmp / "trainer.pt")

    atomic_dir(folder, write)


# ---------------------------------------------------------------- training


def _seed_of(folder: Path) -> int | None:
    """The seed a uner run trained ``folder`` with (its checkpoint state, else the run's run.json)."""
    if (folder / "trainer.pt").is_file():
        seed = torch.load(folder / "trainer.pt", map_location="cpu", weights_only=False)["state"].get("seed")
        if seed is not None:
            return seed
    run_file = folder.parent / "run.json"
    return json.loads(run_file.read_text()).get("seed") if run_file.is_file() else None


def run_seed(cfg: PretrainConfig) -> int:
    """The seed of the random windows and masks. Continuing a uner run with that run's seed would replay
    exactly its batches (same windows, same masks), so the default is one past it, and reusing it warns."""
    previous = _seed_of(Path(cfg.init)) if cfg.init and Path(cfg.init).is_dir() else None
    if cfg.seed is None:
        return 0 if previous is None else previous + 1
    if previous == cfg.seed:
        warnings.warn(f"{cfg.init} was trained with seed {cfg.seed}: this run replays its windows and masks; "
                      "give another --seed", stacklevel=2)
    return cfg.seed



def pretrain(cfg: PretrainConfig, *, resume: bool = False, progress: bool = True,
             until_step: int | None = None) -> dict:
    """Run (or resume) MLM pretraining; returns the final held-out metrics. See module docstring.

    ``until_step`` pauses the run at that step (checkpoint and export, as on SIGTERM) without
    changing the schedule, so a long run can be done in slices with ``resume=True``.
    """
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = replace(cfg, seed=run_seed(cfg))
    sources = [Source.parse(s) for s in cfg.sources]
    ckpt = out / "checkpoint"
    device = torch.device(cfg.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(cfg.seed)
    if resume and (ckpt / "trainer.pt").is_file():
        tokenizer = AutoTokenizer.from_pretrained(ckpt)
        model_cls = BertForPreTraining if cfg.nsp else AutoModelForMaskedLM
        model = model_cls.from_pretrained(ckpt, dtype=torch.float32)
        saved = torch.load(ckpt / "trainer.pt", weights_only=False)
        fresh = saved["state"].get("fresh", [])
    else:
        saved = None
        if cfg.init is not None:
            tokenizer = AutoTokenizer.from_pretrained(resolve_model(cfg.tokenizer or cfg.init))
        elif cfg.tokenizer is not None:  # a tokenizer-only folder is fine here
            tok_path = cfg.tokenizer if Path(cfg.tokenizer).is_dir() else resolve_model(cfg.tokenizer)
            tokenizer = AutoTokenizer.from_pretrained(tok_path)
        else:
            paragraphs = (p for s in sources for p in read_paragraphs(s.path))
            tokenizer = learn_wordpiece(paragraphs, cfg.vocab_size, cfg.cased)
        model, fresh = build_model(cfg, tokenizer)
    atomic_write_text(out / "run.json", json.dumps(asdict(cfg), indent=2))
    caches = load_caches(sources, tokenizer, out / "cache", cfg.eval_paragraphs)
    sampler = WindowSampler(caches, [s.weight for s in sources], tokenizer, cfg.max_len, cfg.nsp)
    eval_set = build_eval_set(caches, tokenizer, cfg.max_len, cfg.mlm_prob, seed=1234)

    model.to(device).train()
    amp = device.type == "cuda"  # held-out evaluation: float32 on the CPU, so runs stay comparable
    train_amp = cfg.bf16 if cfg.bf16 is not None else (amp or (device.type == "cpu" and cpu_has_bf16()))
    optimizer = torch.optim.AdamW(param_groups(model, cfg, fresh), lr=cfg.lr, betas=(0.9, 0.98), eps=1e-6,
                                  fused=device.type == "cuda")
    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator(device=device).manual_seed(cfg.seed)
    state = {"step": 0, "tokens": 0, "elapsed": 0.0, "fresh": list(fresh), "seed": cfg.seed}
    if saved is not None:
        optimizer.load_state_dict(saved["optimizer"])
        state.update(saved["state"])
        rng.bit_generator.state = saved["numpy_rng"]
        gen.set_state(saved["torch_gen"])
        if "torch_rng" in saved:
            torch.set_rng_state(saved["torch_rng"])
        print(f"resumed at step {state['step']} ({state['tokens']:,} tokens, {state['elapsed']:.0f}s)", flush=True)

    special = special_token_mask(tokenizer, device)
    continuation = (torch.from_numpy(sampler.continuation).to(device) if cfg.whole_word else None)
    stop = {"flag": False}

    def on_signal(signum, frame):  # finish the step, checkpoint, exit cleanly
        stop["flag"] = True

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    log = open(out / "log.jsonl", "a")
    bar = tqdm(total=cfg.max_steps, initial=state["step"], disable=not progress, dynamic_ncols=True)
    metrics: dict = {}
    t_last, tok_last = time.time(), state["tokens"]

    def checkpoint() -> None:
        save_checkpoint(ckpt, model, tokenizer, optimizer, state, rng, gen)

    try:
        while not stop["flag"]:
            if cfg.max_steps and state["step"] >= cfg.max_steps:
                break
            if until_step is not None and state["step"] >= until_step:
                break
            if cfg.max_time and state["elapsed"] >= cfg.max_time:
                break
            t0 = time.time()
            factor = lr_factor(cfg, state["step"], state["elapsed"])
            for g in optimizer.param_groups:
                g["lr"] = g["base_lr"] * factor
            drawn = sampler.draw(rng, cfg.batch_size)
            n_tokens = int(drawn["attention_mask"].sum())  # counted on the CPU: no GPU sync per step
            batch = {k: v.to(device, non_blocking=True) for k, v in drawn.items()}
            inputs, labels = mask_tokens(batch["input_ids"], batch["attention_mask"], special, continuation,
                                         tokenizer.mask_token_id, len(tokenizer), cfg.mlm_prob, gen)
            batch["input_ids"] = inputs
            loss, nsp_loss = train_step(model, optimizer, batch, labels, train_amp)
            state["step"] += 1
            state["tokens"] += n_tokens
            state["elapsed"] += time.time() - t0
            bar.update(1)
            if state["step"] % cfg.log_every == 0:
                now = time.time()
                rate = (state["tokens"] - tok_last) / max(now - t_last, 1e-9)
                t_last, tok_last = now, state["tokens"]
                rec = {"step": state["step"], "loss": round(loss.item(), 4), "lr": optimizer.param_groups[0]["lr"],
                       "tokens": state["tokens"], "tok_per_s": round(rate), "elapsed": round(state["elapsed"], 1)}
                if nsp_loss is not None:
                    rec["nsp_loss"] = round(nsp_loss.item(), 4)
                bar.set_postfix(loss=rec["loss"], tok_s=rec["tok_per_s"])
                log.write(json.dumps(rec) + "\n")
                log.flush()
            if cfg.eval_every and state["step"] % cfg.eval_every == 0:
                metrics = evaluate_mlm(model, eval_set, device, amp)
                log.write(json.dumps({"step": state["step"], "eval": metrics}) + "\n")
                log.flush()
                bar.write(f"step {state['step']}: held-out top1 {metrics['top1']:.3f} top10 {metrics['top10']:.3f}")
            if cfg.save_every and state["step"] % cfg.save_every == 0:
                checkpoint()
        checkpoint()
        metrics = evaluate_mlm(model, eval_set, device, amp)
        metrics.update(step=state["step"], tokens=state["tokens"], elapsed=round(state["elapsed"], 1))
        log.write(json.dumps({"step": state["step"], "eval": metrics, "final": True}) + "\n")
        export_model(model, tokenizer, out / "model", cfg.save_dtype)
        atomic_write_text(out / "metrics.json", json.dumps(metrics, indent=2))
    finally:
        bar.close()
        log.close()
        for s, h in old_handlers.items():
            signal.signal(s, h)
    return metrics
