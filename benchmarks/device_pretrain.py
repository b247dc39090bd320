"""Continue a base-size masked LM on a lent GPU machine whose transfers are capped (64 MiB a call each way).

The weights travel as int8 rows (one float16 scale per row; small tensors as float16), cut into parts that
each fit one call, and come back the same way: a 110M model is 110 MB of int8 against 440 MB of float32.
The int8 start costs nothing that training does not repair; the int8 way back is measured (``train`` prints
the held-out accuracy of the float32 model and of its int8 round trip on the same masked tokens).

    python -m benchmarks.device_pretrain pack MODEL OUT_A OUT_B [OUT_C …]   # parts of about equal size
    python -m benchmarks.device_pretrain unpack PART… OUT                    # a float32 model folder
    python -m benchmarks.device_pretrain train --init MODEL --corpus DIR --out RUN --max-time S …
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

SCALE = ".__row_scale"  # the float16 scale of an int8 tensor's rows
MIN_ROWS_NUMEL = 65_536  # smaller tensors (biases, norms) travel as float16
MODEL_FILES = ("model.safetensors", "pytorch_model.bin")
# the card's fifteen sources and their weights (models/uner-minilm-l6/MODEL_CARD.md, "Recipe")
SOURCES = {"enwiki_100k.txt.xz": 40, "biomed_abstracts.txt.xz": 10, "biomed_docs.txt.xz": 8,
           "reuters21578.txt.gz": 6, "bbc_news_2004.txt.xz": 4, "abc.txt.gz": 4, "newsgroups20.txt.xz": 3,
           "brown.txt.gz": 2, "gutenberg_selections.txt.gz": 2, "movie_reviews.txt.gz": 1,
           "ner_conll2003_train.txt.xz": 1.5, "ner_bc5cdr_train.txt.xz": 1, "ner_ncbi-disease_train.txt.xz": 1,
           "ner_bc2gm_train.txt.xz": 1, "ner_wnut17_train.txt.xz": 0.5}


def quantize(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Matrices as int8 rows with a float16 absmax scale each; everything else as float16."""
    out = {}
    for name, t in state.items():
        t = t.float()
        if t.ndim == 2 and t.numel() >= MIN_ROWS_NUMEL:
            scale = t.abs().amax(1, keepdim=True).clamp_min(1e-8) / 127
            out[name] = (t / scale).round().clamp(-127, 127).to(torch.int8)
            out[name + SCALE] = scale.half()
        else:
            out[name] = t.half()
    return out


def dequantize(packed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The float32 state that ``quantize`` packed."""
    return {name: (t.float() * packed[name + SCALE].float() if name + SCALE in packed else t.float())
            for name, t in packed.items() if not name.endswith(SCALE)}


def pieces(packed: dict[str, torch.Tensor], cap: int) -> list[dict[str, torch.Tensor]]:
    """``packed`` cut into pieces of at most ``cap`` bytes: a large matrix by rows (``NAME@ROW``), with its scales."""
    out = []
    for name, t in packed.items():
        if name.endswith(SCALE):
            continue
        rows = max(1, cap // max(1, t[0].numel() * t.element_size())) if t.ndim else 1
        for start in range(0, max(1, len(t) if t.ndim else 1), rows):
            piece = {f"{name}@{start}": (t[start : start + rows] if t.ndim else t).contiguous()}
            if name + SCALE in packed:
                piece[f"{name}@{start}{SCALE}"] = packed[name + SCALE][start : start + rows].contiguous()
            out.append(piece)
    return out


def pack(model: Path, outs: list[Path], cap: int = 8 * 2**20, meta: bool = True) -> None:
    """Quantize ``model``'s weights into ``len(outs)`` files ``OUT/part-K.safetensors`` of about equal size
    (a matrix larger than ``cap`` bytes is cut by rows); with ``meta`` the first folder also gets the config
    and tokenizer (the way back leaves them out: they are the ones sent)."""
    shares: list[dict[str, torch.Tensor]] = [{} for _ in outs]
    sizes = [0] * len(outs)
    for piece in sorted(pieces(quantize(load_file(model / "model.safetensors")), cap),
                        key=lambda p: -sum(t.numel() * t.element_size() for t in p.values())):
        k = sizes.index(min(sizes))  # largest first, each to the lightest part
        shares[k].update(piece)
        sizes[k] += sum(t.numel() * t.element_size() for t in piece.values())
    for k, (out, share) in enumerate(zip(outs, shares)):
        out.mkdir(parents=True, exist_ok=True)
        save_file(share, str(out / f"part-{k}.safetensors"))
        if k == 0 and meta:
            for f in model.iterdir():
                if f.is_file() and f.name not in MODEL_FILES:
                    shutil.copy2(f, out / f.name)
    print(f"packed {model} into {len(outs)} parts: " + ", ".join(f"{s / 2**20:.1f} MiB" for s in sizes), flush=True)


def unpack(parts: list[Path], out: Path) -> None:
    """A float32 model folder from the parts that ``pack`` wrote (folders, or the part files themselves)."""
    loaded: dict[str, torch.Tensor] = {}
    out.mkdir(parents=True, exist_ok=True)
    for part in parts:
        for f in sorted(part.iterdir()) if part.is_dir() else [part]:
            if f.name.startswith("part-") and f.suffix == ".safetensors":
                loaded.update(load_file(str(f)))
            elif f.is_file():
                shutil.copy2(f, out / f.name)
    packed: dict[str, torch.Tensor] = {}
    for name in {k.rsplit("@", 1)[0] for k in loaded}:
        for suffix in ("", SCALE):
            keys = sorted((k for k in loaded if k.rsplit("@", 1)[0] == name and k.endswith(SCALE) == bool(suffix)),
                          key=lambda k: int(k.rsplit("@", 1)[1].removesuffix(SCALE)))
            if keys:
                chunks = [loaded[k] for k in keys]
                packed[name + suffix] = torch.cat(chunks) if chunks[0].ndim else chunks[0]
    save_file(dequantize(packed), str(out / "model.safetensors"))
    print(f"unpacked {len(parts)} parts into {out}", flush=True)


def train(args: argparse.Namespace) -> None:
    """``uner pretrain`` on the card's sources, then the held-out accuracy in float32 of the trained model and
    of its int8 round trip, and the round trip packed for the way back."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from uner.io import Source
    from uner.pretrain import PretrainConfig, build_eval_set, evaluate_mlm, load_caches, pretrain

    sources = [f"{args.corpus / name}:{weight}" for name, weight in SOURCES.items()]
    cfg = PretrainConfig(sources=sources, out_dir=str(args.out), init=str(args.init), batch_size=args.batch_size,
                         max_len=128, lr=args.lr, head_lr=args.head_lr, warmup_steps=args.warmup,
                         schedule="linear", max_time=args.max_time, eval_paragraphs=30, eval_every=args.eval_every,
                         save_every=0, log_every=50, seed=args.seed)
    metrics = pretrain(cfg, progress=False)
    print("trained:", json.dumps(metrics), flush=True)
    model_dir = args.out / "model"
    pack(model_dir, args.pack, meta=False)
    unpack(list(dict.fromkeys(args.pack)), args.out / "roundtrip")
    for f in model_dir.iterdir():
        if f.is_file() and f.name not in MODEL_FILES:
            shutil.copy2(f, args.out / "roundtrip" / f.name)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    caches = load_caches([Source.parse(s) for s in sources], tokenizer, args.out / "cache", 30)
    eval_set = build_eval_set(caches, tokenizer, 128, 0.15, seed=1234)
    for name in ("model", "roundtrip"):
        model = AutoModelForMaskedLM.from_pretrained(args.out / name, dtype=torch.float32).to(device)
        result = evaluate_mlm(model, eval_set, device, amp=False)
        print(f"held-out float32, {name}: " + json.dumps(result), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("model", type=Path)
    p.add_argument("outs", type=Path, nargs="+")
    u = sub.add_parser("unpack")
    u.add_argument("parts", type=Path, nargs="+")
    u.add_argument("out", type=Path)
    t = sub.add_parser("train")
    t.add_argument("--init", type=Path, required=True)
    t.add_argument("--corpus", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--pack", type=Path, nargs="+", required=True, help="a folder for each part of the trained model (a folder may repeat)")
    t.add_argument("--max-time", type=float, required=True)
    t.add_argument("--batch-size", type=int, default=256)
    t.add_argument("--lr", type=float, default=1.5e-4)
    t.add_argument("--head-lr", type=float, default=1e-3)
    t.add_argument("--warmup", type=int, default=100)
    t.add_argument("--eval-every", type=int, default=500)
    t.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "pack":
        pack(args.model, args.outs)
    elif args.command == "unpack":
        unpack(args.parts, args.out)
    else:
        train(args)


if __name__ == "__main__":
    main()
