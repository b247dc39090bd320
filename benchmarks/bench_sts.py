"""STS-B dev: Spearman x100 of cosine similarity for every pooling, raw / whitened / flow.

    python -m benchmarks.bench_sts [--model M] [--corpus-sentences 5000] [--limit N]

Whitening and the flow are fitted on the STS-B train+dev sentences (the "target"
protocol); "corpus" columns fit whitening on sentences from ../shared/data/corpus only.
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from uner.io.corpus import read_paragraphs
from uner.models import MaskedLM
from uner.vectors.diagnostics import spearman
from uner.vectors.embeddings import POOLINGS, Pooling, embed_many
from uner.vectors.whitening import AdditiveFlow, RunningStats, Whitening

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
CORPUS_FILES = ["enwiki_2013_subset.txt.xz", "reuters21578.txt.gz", "biomed_abstracts.txt.xz", "brown.txt.gz"]


def read_sts(path: Path) -> tuple[list[float], list[str], list[str]]:
    scores, a, b = [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 7:
            scores.append(float(cols[4]))
            a.append(cols[5])
            b.append(cols[6])
    return scores, a, b


def corpus_sentences(n: int, words: int = 40) -> list[str]:
    out: list[str] = []
    per_file = n // len(CORPUS_FILES) + 1
    for name in CORPUS_FILES:
        taken = 0
        for p in read_paragraphs(SHARED / "corpus" / name):
            if p and taken < per_file:
                out.append(" ".join(p.split()[:words]))
                taken += 1
            if taken >= per_file:
                break
    return out[:n]


def score(vectors: dict[str, np.ndarray], n: int, gold: list[float]) -> float:
    a, b = vectors[:n], vectors[n : 2 * n]
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
    return 100 * spearman(cos, np.asarray(gold))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--corpus-sentences", type=int, default=5000)
    ap.add_argument("--limit", type=int, default=None, help="Use only the first N dev and train pairs (quick runs).")
    ap.add_argument("--flow-epochs", type=int, default=10)
    args = ap.parse_args()
    t0 = time.time()
    mlm = MaskedLM.from_pretrained(args.model, device="cpu")
    gold, dev_a, dev_b = read_sts(SHARED / "sts" / "stsb" / "sts-dev.csv")
    _, tr_a, tr_b = read_sts(SHARED / "sts" / "stsb" / "sts-train.csv")
    if args.limit:
        gold, dev_a, dev_b, tr_a, tr_b = gold[: args.limit], dev_a[: args.limit], dev_b[: args.limit], tr_a[: args.limit], tr_b[: args.limit]
    n = len(gold)
    pools = [Pooling(p, k=2 if p == "last-k-mean" else 4) for p in POOLINGS]
    texts = dev_a + dev_b + tr_a + tr_b
    vecs = embed_many(mlm, texts, pools)
    corpus = embed_many(mlm, corpus_sentences(args.corpus_sentences), pools)
    cols = ["raw", "whiten", "whiten-256", "whiten-128", "whiten-64", "flow", "corpus-whiten", "corpus-whiten-128"]
    print(f"STS-B dev ({n} pairs), model {mlm.name}; whitening/flow fitted on train+dev sentences "
          f"({len(texts)}), corpus columns on {len(next(iter(corpus.values())))} corpus sentences\n")
    print("| pooling | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for pool in pools:
        name = pool.name + (f" (k={pool.k})" if pool.name == "last-k-mean" else "")
        v = vecs[pool.name]
        stats = RunningStats(v.shape[1]).update(v)
        cstats = RunningStats(v.shape[1]).update(corpus[pool.name])
        row = [score(v, n, gold), score(Whitening.fit(stats).transform(v), n, gold)]
        row += [score(Whitening.fit(stats, k).transform(v), n, gold) for k in (256, 128, 64)]
        flow = AdditiveFlow(v.shape[1])
        flow.fit(v, epochs=args.flow_epochs)
        row.append(score(flow.transform(v), n, gold))
        row += [score(Whitening.fit(cstats).transform(v), n, gold), score(Whitening.fit(cstats, 128).transform(v), n, gold)]
        print(f"| {name} | " + " | ".join(f"{x:.1f}" for x in row) + " |")
    print(f"\n({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
