"""Batched tagger vs the naive way (fill-mask pipeline once per masked copy), same model and spans.

    python -m benchmarks.bench_tag [--n 300] [--repeats 3]

Sentences: CoNLL-2003 valid (../shared/data/ner/conll2003/valid.txt). Prints spans/s and
sentences/s for both, their ratio, and where the batched tagger's time goes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from transformers import pipeline

from uner.corpus import read_paragraphs
from uner.tagger import Tagger

CONLL_DEV = Path(__file__).resolve().parents[1].parent / "shared/data/ner/conll2003/valid.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not CONLL_DEV.is_file():
        raise SystemExit(f"{CONLL_DEV}: CoNLL-2003 dev data not found (../shared is needed)")
    texts = [p for p in read_paragraphs(CONLL_DEV) if len(p.split()) >= 4][: args.n]
    tagger = Tagger.from_pretrained(args.model, args.labels, device="cpu")
    k = tagger.config.top_k
    fill = pipeline("fill-mask", model=tagger.mlm.model, tokenizer=tagger.mlm.tokenizer, top_k=k, device=-1)
    docs = list(tagger.nlp.pipe(texts))
    spans = [tagger.spans_for_doc(d) for d in docs]
    flat = [(t, s) for t, sp in zip(texts, spans) for s in sp]
    inputs = [x for t, s in flat for x in tagger.masked_inputs(t, [s])]
    n_spans = len(flat)

    def batched():
        parts = {}
        t0 = time.perf_counter()
        d = list(tagger.nlp.pipe(texts))
        sp = [tagger.spans_for_doc(x) for x in d]
        parts["spaCy"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        fl = [(t, s) for t, ss in zip(texts, sp) for s in ss]
        ins = [x for t, s in fl for x in tagger.masked_inputs(t, [s])]
        preds = tagger.mlm.top_k(ins, k=k)
        parts["model"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        ids = np.stack([p[0].ids for p in preds])
        logits = np.stack([p[0].logits for p in preds])
        tagger.scorer.label_scores(ids, logits)
        parts["scoring"] = time.perf_counter() - t0
        return parts

    def naive():
        t0 = time.perf_counter()
        list(tagger.nlp.pipe(texts))
        ids, weights = [], []
        for x in inputs:
            out = fill(x)
            ids.append([o["token"] for o in out])
            weights.append([o["score"] for o in out])
        tagger.scorer.label_scores(np.array(ids), np.array(weights, dtype=np.float32))
        return time.perf_counter() - t0

    times = {"batched": [], "naive": []}
    breakdown = []
    for _ in range(args.repeats):
        parts = batched()
        breakdown.append(parts)
        times["batched"].append(sum(parts.values()))
        times["naive"].append(naive())
    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"{len(texts)} CoNLL-2003 dev sentences, {n_spans} spans ({len(inputs)} masked inputs), "
          f"model {tagger.mlm.name}, top-{k}, {args.repeats} repeats (medians)")
    for name in ("batched", "naive"):
        print(f"  {name:8s} {med[name]:8.2f} s  {n_spans / med[name]:8.1f} spans/s  {len(texts) / med[name]:7.1f} sentences/s")
    print(f"  speed-up: {med['naive'] / med['batched']:.1f}x")
    print("  batched time: " + ", ".join(f"{k} {statistics.median(b[k] for b in breakdown):.2f} s" for k in breakdown[0]))


if __name__ == "__main__":
    main()
