"""Blockwise clustering vs the per-term reference loop, same terms, one run.

    python -m benchmarks.bench_cluster [--model M] [--n 3000] [--repeats 3]

Both compute the tails of the same n vocabulary terms (spread over the vocabulary)
against each other; the script checks they agree and prints median times and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from benchmarks.reference_clustering import reference_tails
from uner.models import MaskedLM
from uner.vocab.clustering import ClusterParams, build_graph, subset_ids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    mlm = MaskedLM.from_pretrained(args.model, device="cpu")
    ids = subset_ids(mlm.vocab, specials=mlm.tokenizer.all_special_tokens)
    ids = ids[np.linspace(0, len(ids) - 1, args.n).astype(int)]
    e, vocab = mlm.word_embeddings()[ids], [mlm.vocab[i] for i in ids]
    times = {"blockwise": [], "reference loop": []}
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        vg = build_graph(e, vocab, ClusterParams(), progress=False)
        times["blockwise"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = reference_tails(e)
        times["reference loop"].append(time.perf_counter() - t0)
    same = all([vocab[j] for j, _ in tail] == [t for t, _ in vg.graph.out_neighbours(i)]
               for i, (_, tail) in enumerate(ref))
    print(f"{args.n} terms of {mlm.name}, {args.repeats} repeats, identical tails: {same}")
    for name, ts in times.items():
        print(f"  {name:15s} median {statistics.median(ts):7.3f} s")
    print(f"  speed-up: {statistics.median(times['reference loop']) / statistics.median(times['blockwise']):.1f}x")


if __name__ == "__main__":
    main()
