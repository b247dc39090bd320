"""Sweep one tagger setting on a labels folder's own dev splits: one model pass per split, each value re-scored.

    python -m benchmarks.sweep_folder descriptor_weight 0,0.3,0.5 \
        ../shared/data/ner/crossner/music/dev.txt:crossner-music ../shared/data/ner/crossner/ai/dev.txt:crossner-ai \
        [--grid coordination_weight=0,0.3] [--set name_determiners=1] [--limit N] [--mode both]

Each GOLD:MODEL pair is scored as ``uner eval GOLD --model MODEL`` scores it (the folder's ``tagger.yaml``,
calibration and mappings), with the setting changed on top; the values of ``--grid`` multiply the sweep. The
masked inputs go through the model once per split (one ``PredictionCache`` for every value; spans that a value adds
cost their own inputs only), so the table compares settings on identical model outputs. Dev splits only.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from uner.analysis.evaluate import MAPPINGS, Mapping, evaluate
from uner.tagger import PredictionCache, Tagger


def _values(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def assignment(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    if not value:
        raise argparse.ArgumentTypeError(f"{text!r}: write NAME=VALUE")
    return name, value


def typed(config, name: str, value: float):
    """``value`` as the config field ``name`` holds it (a switch as a bool, a count as an int)."""
    kind = type(getattr(config, name))
    return kind(value) if kind in (bool, int) else value


def sweep(gold: str, model: str, field: str, values: list[float], grid: tuple[str, list[float]] | None,
          fixed: dict[str, float], mode: str, limit: int | None) -> None:
    """Print one line per value (and grid value): end-to-end strict micro F1, P, R, the error classes, per type."""
    tagger = Tagger.from_pretrained(model)
    mapping = Mapping.for_file(gold, [tagger.labels_folder.path / MAPPINGS])
    base = dataclasses.replace(tagger.config, **{k: typed(tagger.config, k, v) for k, v in fixed.items()})
    cache = PredictionCache(max_entries=10**7)
    plain_tag = tagger.tag
    tagger.tag = lambda *a, **kw: plain_tag(*a, **{**kw, "cache": cache})
    for other in ([{}] if grid is None else [{grid[0]: v} for v in grid[1]]):
        for value in values:
            changes = {field: value, **other}
            tagger.config = dataclasses.replace(base, **{k: typed(base, k, v) for k, v in changes.items()})
            t0 = time.perf_counter()
            report = evaluate(tagger, gold, mapping, mode, limit)
            e2e = report["end_to_end"]
            m = e2e["micro"]
            given = f" given {report['given_spans']['mean_token_f1']:.4f}" if "given_spans" in report else ""
            print(f"{gold} {model} {changes}: F1 {m['f1']:.4f} P {m['precision']:.3f} R {m['recall']:.3f}{given} "
                  f"{e2e['errors']} ({time.perf_counter() - t0:.0f} s)", flush=True)
            print("   ", {t: round(s["f1"], 3) for t, s in e2e["per_type"].items()}, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("field", help="a TaggerConfig field (a number, or a switch as 0/1)")
    ap.add_argument("values", type=_values, help="comma-separated values")
    ap.add_argument("pairs", nargs="+", help="GOLD:MODEL (a gold file and the labels folder or model to score)")
    ap.add_argument("--grid", type=assignment, default=None, help="a second field and its values, NAME=V1,V2")
    ap.add_argument("--set", dest="fixed", type=assignment, action="append", default=[],
                    help="a field held at one value, NAME=VALUE (repeatable)")
    ap.add_argument("--mode", default="end-to-end", choices=("end-to-end", "both"))
    ap.add_argument("--limit", type=int, default=None, help="first N sentences of each split")
    args = ap.parse_args()
    grid = (args.grid[0], _values(args.grid[1])) if args.grid else None
    fixed = {k: float(v) for k, v in args.fixed}
    for pair in args.pairs:
        gold, _, model = pair.rpartition(":")
        if not gold:
            ap.error(f"{pair!r}: write GOLD:MODEL")
        sweep(gold, model, args.field, args.values, grid, fixed, args.mode, args.limit)


if __name__ == "__main__":
    main()
