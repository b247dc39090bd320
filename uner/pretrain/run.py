"""The training loop: set up (or resume), step, log, evaluate, checkpoint, export."""

from __future__ import annotations

import json
import signal
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    BertForPreTraining,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from ..io import Source, atomic_write_text, read_paragraphs
from ..models import cpu_has_bf16, resolve_model
from .config import EXTEND_INITS, PretrainConfig, lr_factor, run_seed
from .data import WindowSampler, build_eval_set, learn_wordpiece, load_caches, mask_tokens, special_token_mask
from .steps import build_model, evaluate_mlm, export_model, param_groups, save_checkpoint, train_step
from .vocab import anchor_words, collect_contexts, extend_tokenizer, init_from_contexts, init_new_embeddings, mine_words


def load_or_build(cfg: PretrainConfig, sources: list[Source], out: Path, resume: bool):
    """(model, tokenizer, saved trainer state or None, fresh parameter names, vocabulary extension or None):
    the checkpoint when resuming, else the model to continue (its vocabulary extended if asked) or a new
    one with a given or freshly learned tokenizer."""
    ckpt = out / "checkpoint"
    if resume and (ckpt / "trainer.pt").is_file():
        tokenizer = AutoTokenizer.from_pretrained(ckpt)  # an extended vocabulary comes back with it
        model_cls = BertForPreTraining if cfg.nsp else AutoModelForMaskedLM
        model = model_cls.from_pretrained(ckpt, dtype=torch.float32)
        saved = torch.load(ckpt / "trainer.pt", weights_only=False)
        return model, tokenizer, saved, saved["state"].get("fresh", []), None
    if cfg.extend_vocab and cfg.init is None:
        raise ValueError("extending the vocabulary needs a model to continue (init)")
    if cfg.init is not None:
        tokenizer = AutoTokenizer.from_pretrained(resolve_model(cfg.tokenizer or cfg.init))
    elif cfg.tokenizer is not None:  # a tokenizer-only folder is fine here
        tok_path = cfg.tokenizer if Path(cfg.tokenizer).is_dir() else resolve_model(cfg.tokenizer)
        tokenizer = AutoTokenizer.from_pretrained(tok_path)
    else:
        paragraphs = (p for s in sources for p in read_paragraphs(s.path))
        tokenizer = learn_wordpiece(paragraphs, cfg.vocab_size, cfg.cased)
    model, fresh = build_model(cfg, tokenizer)
    extended = None
    if cfg.extend_vocab:
        tokenizer, extended = extend_vocab(cfg, sources, model, tokenizer, out)
    return model, tokenizer, None, fresh, extended


def extend_vocab(cfg: PretrainConfig, sources: list[Source], model: PreTrainedModel,
                 tokenizer: PreTrainedTokenizerBase, out: Path) -> tuple[PreTrainedTokenizerBase, dict]:
    """Add the sources' most frequent many-piece words to the vocabulary (see ``vocab``), each new row
    starting at the mean of its pieces and then, with ``extend_init="context"``, at the head state of its
    masked contexts in the mined files; the words go to ``out/extend_vocab.tsv``. The new rows belong to
    the input embeddings, so they train at the encoder's learning rate. ``cfg.extend_from`` mines a domain's
    files only (a biomedical model's words, not those of the general text mixed in)."""
    if cfg.extend_init not in EXTEND_INITS:
        raise ValueError(f"extend_init must be one of {', '.join(EXTEND_INITS)}, not {cfg.extend_init!r}")
    paths = list(cfg.extend_from) or [s.path for s in sources]

    def paragraphs():
        return (p for path in paths for p in read_paragraphs(path))

    mined = mine_words(paragraphs(), tokenizer, min_pieces=cfg.extend_min_pieces, min_count=cfg.extend_min_count,
                       max_words=None)
    chosen = mined[: cfg.extend_vocab]
    new_tokenizer = extend_tokenizer(tokenizer, [w for w, _, _ in chosen], out / "tokenizer")
    added = init_new_embeddings(model, tokenizer, new_tokenizer)
    if cfg.extend_init == "context" and added:
        anchors = anchor_words(new_tokenizer, len(tokenizer))
        contexts = collect_contexts(paragraphs(), new_tokenizer, [*anchors, *(w for w, _, _ in chosen)])
        amp = cfg.bf16 if cfg.bf16 is not None else cpu_has_bf16()  # before .to(device): the CPU's bf16
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bool(amp)):
            placed = init_from_contexts(model, new_tokenizer, len(tokenizer), contexts, anchors)
        print(f"extend-vocab: {placed} of {added} new rows placed by their masked contexts", flush=True)
    atomic_write_text(out / "extend_vocab.tsv",
                      "word\tcount\tpieces\n" + "".join(f"{w}\t{c}\t{p}\n" for w, c, p in chosen))
    examples = ", ".join([w for w, _, _ in chosen[:8]] + (["…"] if len(chosen) > 8 else []))
    print(f"extend-vocab: {added} words added of {len(mined)} candidates (min count {cfg.extend_min_count}, "
          f"≥{cfg.extend_min_pieces} pieces)" + (f"; e.g. {examples}" if chosen else ""), flush=True)
    return new_tokenizer, {"candidates": len(mined), "added": added, "min_count": cfg.extend_min_count,
                           "min_pieces": cfg.extend_min_pieces, "init": cfg.extend_init,
                           "mined_from": [str(p) for p in paths]}


def restore(saved: dict, optimizer: torch.optim.Optimizer, state: dict, rng: np.random.Generator,
            gen: torch.Generator) -> None:
    """Put optimizer, counters and every random stream back where the checkpoint left them."""
    optimizer.load_state_dict(saved["optimizer"])
    state.update(saved["state"])
    rng.bit_generator.state = saved["numpy_rng"]
    gen.set_state(saved["torch_gen"])
    if "torch_rng" in saved:
        torch.set_rng_state(saved["torch_rng"])
    print(f"resumed at step {state['step']} ({state['tokens']:,} tokens, {state['elapsed']:.0f}s)", flush=True)


def should_stop(cfg: PretrainConfig, state: dict, until_step: int | None) -> bool:
    """Whether the step, time or pause budget is used up."""
    return bool((cfg.max_steps and state["step"] >= cfg.max_steps)
                or (until_step is not None and state["step"] >= until_step)
                or (cfg.max_time and state["elapsed"] >= cfg.max_time))


class StopOnSignal:
    """While active, SIGTERM/SIGINT set ``requested`` so the loop finishes its step, checkpoints and exits cleanly."""

    def __init__(self) -> None:
        self.requested = False

    def __enter__(self) -> StopOnSignal:
        self.old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        return self

    def _on_signal(self, signum, frame) -> None:
        self.requested = True

    def __exit__(self, *exc) -> None:
        for s, h in self.old.items():
            signal.signal(s, h)


def pretrain(cfg: PretrainConfig, *, resume: bool = False, progress: bool = True,
             until_step: int | None = None) -> dict:
    """Run (or resume) MLM pretraining; returns the final held-out metrics. See the package docstring.

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
    model, tokenizer, saved, fresh, extended = load_or_build(cfg, sources, out, resume)
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
    if extended is not None:
        state["extend_vocab"] = extended
    if saved is not None:
        restore(saved, optimizer, state, rng, gen)
    special = special_token_mask(tokenizer, device)
    continuation = (torch.from_numpy(sampler.continuation).to(device) if cfg.whole_word else None)
    log = RunLog(out / "log.jsonl", cfg, state, progress)

    def checkpoint() -> None:
        save_checkpoint(ckpt, model, tokenizer, optimizer, state, rng, gen)

    with StopOnSignal() as stop, log:
        while not stop.requested and not should_stop(cfg, state, until_step):
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
            log.step(loss, nsp_loss, optimizer.param_groups[0]["lr"])
            if cfg.eval_every and state["step"] % cfg.eval_every == 0:
                log.evaluation(evaluate_mlm(model, eval_set, device, amp))
            if cfg.save_every and state["step"] % cfg.save_every == 0:
                checkpoint()
        checkpoint()
        metrics = evaluate_mlm(model, eval_set, device, amp)
        metrics.update(step=state["step"], tokens=state["tokens"], elapsed=round(state["elapsed"], 1))
        log.evaluation(metrics, final=True)
        export_model(model, tokenizer, out / "model", cfg.save_dtype)
        atomic_write_text(out / "metrics.json", json.dumps(metrics, indent=2))
    return metrics


class RunLog:
    """The run's ``log.jsonl`` (appended across resumes) and progress bar: loss and tokens/s every
    ``log_every`` steps, held-out accuracy at each evaluation."""

    def __init__(self, path: Path, cfg: PretrainConfig, state: dict, progress: bool) -> None:
        self.path, self.cfg, self.state, self.progress = path, cfg, state, progress
        self.t_last, self.tok_last = time.time(), state["tokens"]

    def __enter__(self) -> RunLog:
        self.file = open(self.path, "a")
        self.bar = tqdm(total=self.cfg.max_steps, initial=self.state["step"], disable=not self.progress,
                        dynamic_ncols=True)
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()
        self.file.close()

    def _write(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def step(self, loss: torch.Tensor, nsp_loss: torch.Tensor | None, lr: float) -> None:
        state = self.state
        self.bar.update(1)
        if state["step"] % self.cfg.log_every:
            return
        now = time.time()
        rate = (state["tokens"] - self.tok_last) / max(now - self.t_last, 1e-9)
        self.t_last, self.tok_last = now, state["tokens"]
        rec = {"step": state["step"], "loss": round(loss.item(), 4), "lr": lr, "tokens": state["tokens"],
               "tok_per_s": round(rate), "elapsed": round(state["elapsed"], 1)}
        if nsp_loss is not None:
            rec["nsp_loss"] = round(nsp_loss.item(), 4)
        self.bar.set_postfix(loss=rec["loss"], tok_s=rec["tok_per_s"])
        self._write(rec)

    def evaluation(self, metrics: dict, final: bool = False) -> None:
        self._write({"step": self.state["step"], "eval": metrics, **({"final": True} if final else {})})
        if not final:
            self.bar.write(f"step {self.state['step']}: held-out top1 {metrics['top1']:.3f} "
                           f"top10 {metrics['top10']:.3f}")
