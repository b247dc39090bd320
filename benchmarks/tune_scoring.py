"""Tune the tagger's scoring on the dev splits: one model pass, many scoring variants.

    python -m benchmarks.tune_scoring [--limit 300] [--datasets conll2003,wnut17,bc5cdr,ncbi-disease]

The masked inputs of every candidate and gold span go through the model once (top-k at the
largest k any variant needs); each variant then re-scores those cached descriptors, so the
table compares scoring choices on identical model outputs. Dev splits only (../shared/data/ner).
Prints, per variant and dataset, end-to-end strict micro F1 and given-spans mean token F1.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import time
from pathlib import Path

from uner.evaluate import evaluate
from uner.labels import Weighting
from uner.models import MaskPrediction
from uner.tagger import LabelScorer, Tagger, TaggerConfig

NER = Path(__file__).resolve().parents[1].parent / "shared/data/ner"
DEV = {"conll2003": "conll2003/valid.txt", "wnut17": "wnut17/dev.conll", "bc5cdr": "bc5cdr/devel.tsv",
       "ncbi-disease": "ncbi-disease/devel.tsv"}

BASE = TaggerConfig()


def _vary(**changes) -> TaggerConfig:
    """BASE with some fields changed; weighting fields (normalise, sharpness, direct) included."""
    w = {k: changes.pop(k) for k in ("normalise", "sharpness", "direct", "not_entity") if k in changes}
    return dataclasses.replace(BASE, weighting=dataclasses.replace(BASE.weighting, **w), **changes)


VARIANTS: dict[str, TaggerConfig] = {
    "reference (raw counts; one-hot; no own labels; CS=CI; top-20)": _vary(
        normalise=0.0, sharpness=16.0, direct=0.0, not_entity=1.0, cs_weight=0.5, top_k=20),
    "default": BASE,
    "normalise 0 (raw counts)": _vary(normalise=0.0),
    "normalise 1 (full)": _vary(normalise=1.0),
    "OTHER x1": _vary(not_entity=1.0),
    "OTHER x0.3": _vary(not_entity=0.3),
    "sharpness 1": _vary(sharpness=1.0),
    "sharpness 8": _vary(sharpness=8.0),
    "own labels 0": _vary(direct=0.0),
    "own labels 0.75": _vary(direct=0.75),
    "CS weight 0 (CI only)": _vary(cs_weight=0.0),
    "CS weight 0.15": _vary(cs_weight=0.15),
    "CS weight 0.5": _vary(cs_weight=0.5),
    "CS weight 1 (CS only)": _vary(cs_weight=1.0),
    "top-k 3": _vary(top_k=3),
    "top-k 10": _vary(top_k=10),
    "top-k 20": _vary(top_k=20),
    "min score 0": _vary(min_score=0.0),
    "min score 0.4": _vary(min_score=0.4),
}


class CachedTopK:
    """Wraps ``MaskedLM.top_k``: each text is predicted once at ``k_max``; smaller k are prefixes."""

    def __init__(self, top_k, k_max: int, path: Path | None = None) -> None:
        self.top_k, self.k_max, self.path = top_k, k_max, path
        self.cache = pickle.loads(path.read_bytes()) if path is not None and path.is_file() else {}

    def save(self) -> None:
        if self.path is not None:
            self.path.write_bytes(pickle.dumps(self.cache))

    def __call__(self, texts, k: int = 20):
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self.cache.update(zip(missing, self.top_k(missing, k=self.k_max)))
        return [[MaskPrediction(p.ids[:k], p.tokens[:k], p.logits[:k]) for p in self.cache[t]] for t in texts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--datasets", default=",".join(DEV))
    ap.add_argument("--variants", default=None, help="comma-separated variant names (default: all)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="pickle of model outputs to reuse across runs (same model and k only)")
    args = ap.parse_args()
    names = args.datasets.split(",")
    missing = [n for n in names if not (NER / DEV[n]).is_file()]
    if missing:
        raise SystemExit(f"{NER}: dev data missing for {', '.join(missing)} (../shared is needed)")
    tagger = Tagger.from_pretrained(args.model, args.labels, device="cpu")
    table, types, vocab = tagger.table, tagger.types, tagger.mlm.vocab
    cached = CachedTopK(tagger.mlm.top_k, max(c.top_k for c in VARIANTS.values()), args.cache)
    tagger.mlm.top_k = cached
    chosen = args.variants.split(",") if args.variants else list(VARIANTS)
    print(f"{'variant':<62}" + "".join(f"{n + ' e2e':>18}{n + ' given':>18}" for n in names) + f"{'mean e2e':>10}{'mean given':>11}")
    for vname in chosen:
        cfg = VARIANTS[vname]
        tagger.config = cfg
        tagger.scorer = LabelScorer(table, types, vocab, weighting=cfg.weighting)
        t0 = time.perf_counter()
        cells = []
        for n in names:
            rep = evaluate(tagger, NER / DEV[n], mode="both", limit=args.limit)
            cells += [rep["end_to_end"]["micro"]["f1"], rep["given_spans"]["mean_token_f1"]]
        means = [sum(cells[0::2]) / len(names), sum(cells[1::2]) / len(names)]
        print(f"{vname:<62}" + "".join(f"{c:>18.3f}" for c in cells + means) + f"   ({time.perf_counter() - t0:.0f} s)",
              flush=True)
        cached.save()


if __name__ == "__main__":
    main()
