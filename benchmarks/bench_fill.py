"""Mask-only batched top-k vs the transformers fill-mask pipeline, one call per sentence.

Same model, same sentences, same machine, one run; prints median wall times and their ratio.

    python -m benchmarks.bench_fill [--model M] [--n 512] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from transformers import pipeline

from uner.io.corpus import read_paragraphs
from uner.models import MaskedLM

CONLL_DEV = Path(__file__).resolve().parents[1].parent / "shared/data/ner/conll2003/valid.txt"


def masked_sentences(n: int, mask: str, seed: int = 0) -> list[str]:
    """n sentences with one word masked: CoNLL-2003 dev sentences when ../shared is there, else templates."""
    rng = random.Random(seed)
    if CONLL_DEV.is_file():
        sents = [s.split() for s in read_paragraphs(CONLL_DEV) if len(s.split()) >= 5][: n * 2]
    else:
        subjects = ["paris", "the company", "a new drug", "the president", "tokyo", "the patient"]
        sents = [f"{rng.choice(subjects)} is known for its role in the history of the region number {i} .".split()
                 for i in range(n)]
    out = []
    for words in rng.sample(sents, n):
        words = list(words)
        words[rng.randrange(len(words))] = mask
        out.append(" ".join(words))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    mlm = MaskedLM.from_pretrained(args.model, device="cpu")
    texts = masked_sentences(args.n, mlm.mask_token)
    fill = pipeline("fill-mask", model=mlm.model, tokenizer=mlm.tokenizer, top_k=args.k, device=-1)

    def run_batched():
        return [p[0].tokens[0] for p in mlm.top_k(texts, k=args.k)]

    def run_pipeline():
        return [fill(t)[0]["token_str"].replace(" ", "") for t in texts]

    timings: dict[str, list[float]] = {"uner batched top-k": [], "fill-mask pipeline": []}
    answers = {}
    for _ in range(args.repeats):
        for name, fn in (("uner batched top-k", run_batched), ("fill-mask pipeline", run_pipeline)):
            t0 = time.perf_counter()
            answers[name] = fn()
            timings[name].append(time.perf_counter() - t0)
    agree = sum(a == b for a, b in zip(*answers.values())) / len(texts)
    print(f"{len(texts)} masked sentences, top-{args.k}, model {mlm.name}, {args.repeats} repeats")
    for name, ts in timings.items():
        med = statistics.median(ts)
        print(f"  {name:20s} median {med:7.3f} s   {len(texts) / med:8.1f} sentences/s")
    ratio = statistics.median(timings["fill-mask pipeline"]) / statistics.median(timings["uner batched top-k"])
    print(f"  speed-up (pipeline / batched): {ratio:.1f}x   top-1 agreement {agree:.3f}")


if __name__ == "__main__":
    main()
