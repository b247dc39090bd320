"""The teacher on two backends, the same gold data: F1 of each (end to end and given spans) and the share of
spans whose type changes between them.

    python -m benchmarks.backend_accuracy [--limit 1000] [--backends torch onnx] [--dataset conll2003 ...]

A backend written ``torch:whole`` runs the torch model's last layer on every token, as before it ran at the masks
only; ``torch:all`` asks every span in its sentence; ``torch:whole,all`` both (``benchmarks.levers``).

Datasets (../shared/data/ner): CoNLL-2003 valid, WNUT-17 dev (the default model) and BC5CDR devel (uner-bio),
the first ``--limit`` sentences of each. The first backend runs with today's default dtype (``auto``), the
second with its own default (onnx: int8). Type changes: end to end over the union of both runs' entity spans
(a span found by one run only counts as changed), given spans over the gold spans.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from uner.analysis.evaluate import Mapping, evaluate
from uner.tagger import TaggerConfig, load_tagger

from .levers import revert

DATA = Path(__file__).resolve().parents[1].parent / "shared/data/ner"
DATASETS = {"conll2003": ("conll2003/valid.txt", None), "wnut17": ("wnut17/dev.conll", None),
            "bc5cdr": ("bc5cdr/devel.tsv", "uner-bio")}


class Recording:
    """A tagger that keeps what each ``tag`` call returned (``evaluate`` tags end to end, then given spans)."""

    def __init__(self, tagger) -> None:
        self.tagger, self.calls = tagger, []
        self.stages, self.stage_folder = tagger.stages, tagger.stage_folder  # (what ``evaluate`` reads)

    def tag(self, texts, spans=None):
        out = list(self.tagger.tag(texts, spans))
        self.calls.append(out)
        return out


def changed_share(a: list, b: list) -> tuple[int, int]:
    """Spans whose type differs between two runs' entities (per text), and all spans either run typed."""
    changed = total = 0
    for ents_a, ents_b in zip(a, b):
        ta = {(e.start, e.end): e.type for e in ents_a}
        tb = {(e.start, e.end): e.type for e in ents_b}
        keys = set(ta) | set(tb)
        total += len(keys)
        changed += sum(ta.get(k) != tb.get(k) for k in keys)
    return changed, total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--backends", nargs=2, default=["torch", "onnx"])
    ap.add_argument("--dataset", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of the NER data sets")
    args = ap.parse_args()
    for name in args.dataset:
        rel, model = DATASETS[name]
        gold = args.data / rel
        mapping = Mapping.for_file(gold)
        config = TaggerConfig.for_domain(mapping.domain)
        runs = {}
        for backend in args.backends:
            runtime, _, levers = backend.partition(":")
            tagger = load_tagger(model=model, config=config, backend=runtime)
            revert(tagger, levers)
            rec = Recording(tagger)
            runs[backend] = (evaluate(rec, gold, mapping, "both", args.limit), rec.calls)
        (ra, ca), (rb, cb) = runs[args.backends[0]], runs[args.backends[1]]
        e2e, given = changed_share(ca[0], cb[0]), changed_share(ca[1], cb[1])
        print(f"{name} ({rb['sentences']} sentences, model {model or 'default'}): "
              + "; ".join(f"{b} end-to-end F1 {r['end_to_end']['micro']['f1']:.4f}, given spans "
                          f"{r['given_spans']['mean_token_f1']:.4f}" for b, (r, _) in runs.items()))
        print(f"  type changed ({args.backends[0]} -> {args.backends[1]}): end to end {e2e[0]}/{e2e[1]} spans "
              f"({e2e[0] / max(e2e[1], 1):.1%}), given spans {given[0]}/{given[1]} ({given[0] / max(given[1], 1):.1%})",
              flush=True)


if __name__ == "__main__":
    main()
