"""Training step in float32 vs under bfloat16 autocast (what `uner pretrain` runs), same model, same batch.

Each variant trains its own copy of the model with `uner.pretrain.train_step`; the steps are
interleaved, one run, and the medians and their ratio are printed, with the loss of each
variant's first step (same weights, same batch) to show bf16 computes the same loss.

    python -m benchmarks.bench_pretrain [--model M] [--batch-size 64] [--max-len 128] [--repeats 5]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from pathlib import Path

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

from uner.io.corpus import read_paragraphs
from uner.models import cpu_has_bf16, resolve_model
from uner.pretrain import mask_tokens, special_token_mask, train_step

ROOT = Path(__file__).resolve().parents[1]
CONLL_TRAIN = ROOT.parent / "shared/data/ner/conll2003/train.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    path = resolve_model(args.model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    source = CONLL_TRAIN if CONLL_TRAIN.is_file() else ROOT / "examples/sample.txt"
    paragraphs = [p for p in read_paragraphs(source) if len(p.split()) >= 8]
    texts = [" ".join(paragraphs[i % len(paragraphs)] for i in range(j, j + 6)) for j in range(args.batch_size)]
    enc = tokenizer(texts, truncation=True, max_length=args.max_len, padding="max_length", return_tensors="pt")
    inputs, labels = mask_tokens(enc["input_ids"], enc["attention_mask"], special_token_mask(tokenizer), None, tokenizer.mask_token_id,
                                 len(tokenizer), 0.15, torch.Generator().manual_seed(0))
    batch = {"input_ids": inputs, "attention_mask": enc["attention_mask"]}
    n_tokens = int(enc["attention_mask"].sum())

    base = AutoModelForMaskedLM.from_pretrained(path, dtype=torch.float32).train()
    variants = {"float32": False, "bf16 autocast": True}
    models = {name: copy.deepcopy(base) for name in variants}
    optimizers = {name: torch.optim.AdamW(m.parameters(), lr=1e-5) for name, m in models.items()}
    first_loss = {name: train_step(models[name], optimizers[name], batch, labels, bf16)[0].item()
                  for name, bf16 in variants.items()}  # also the warm-up step
    timings: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, bf16 in variants.items():
            t0 = time.perf_counter()
            train_step(models[name], optimizers[name], batch, labels, bf16)
            timings[name].append(time.perf_counter() - t0)

    print(f"model {path}; batch {args.batch_size} x {args.max_len} ({n_tokens} tokens, "
          f"{int((labels != -100).sum())} masked); {torch.get_num_threads()} threads; "
          f"native CPU bf16: {cpu_has_bf16()}; {args.repeats} steps each, medians")
    med = {name: statistics.median(t) for name, t in timings.items()}
    for name in variants:
        print(f"  {name:14s} {med[name]:.3f} s/step  {n_tokens / med[name]:,.0f} tokens/s  "
              f"first-step loss {first_loss[name]:.4f}")
    print(f"  bf16 autocast speed-up: {med['float32'] / med['bf16 autocast']:.2f}x")


if __name__ == "__main__":
    main()
