"""Fit per-type vote weights on the dev splits and write them beside the labels (calibration.yaml).

    python -m benchmarks.calibrate [--limit 300] [--types ORGANIZATION,LOCATION,PERSON,...] [--write]

Coordinate ascent: for each listed type in turn, try each weight of ``--grid`` with the others fixed
and keep the one with the best mean end-to-end strict F1 over the dev splits, but only when it beats the
current weight by more than ``--min-gain`` (ties and gains within noise keep the weight, so nothing
moves without evidence); two rounds. The model outputs and parses are cached, so each
trial only re-scores. Dev splits only (never a train split); the whole mean over every dataset is the
objective, so a weight that helps one dataset and hurts the others is not taken.
"""

from __future__ import annotations

from benchmarks.tune_scoring import DEV, NER, cached_tagger, check_data, configure, dev_arguments, dev_scores
from uner.analysis.evaluate import Mapping
from uner.labels import Calibration, LabelsFolder
from uner.tagger import TaggerConfig

GRID = (0.5, 0.7, 1.0, 1.4, 2.0)


def mean_e2e(tagger, weights: dict[str, float], names: list[str], limit: int) -> float:
    """Mean end-to-end F1 over the datasets, each tagged with its own domain's settings (its mapping's)."""
    total = 0.0
    for n in names:
        configure(tagger, TaggerConfig.for_domain(Mapping.for_file(NER / DEV[n]).domain), Calibration(dict(weights)))
        total += dev_scores(tagger, [n], limit)[0]
    return total / len(names)


def main() -> None:
    ap = dev_arguments(__doc__.splitlines()[0])
    ap.add_argument("--types", default="ORGANIZATION,LOCATION,PERSON,DRUG,DISEASE,GENE")
    ap.add_argument("--grid", default=",".join(map(str, GRID)))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--min-gain", type=float, default=0.001,
                    help="a weight moves only when it raises the mean F1 by more than this (noise guard)")
    ap.add_argument("--write", action="store_true", help="write calibration.yaml into the labels folder")
    args = ap.parse_args()
    names = args.datasets.split(",")
    check_data(names)
    grid = [float(g) for g in args.grid.split(",")]
    tagger, cached = cached_tagger(args.model, args.labels, 20, args.cache)
    weights: dict[str, float] = {}
    best = start = mean_e2e(tagger, weights, names, args.limit)
    print(f"uncalibrated: mean end-to-end F1 {best:.4f} over {', '.join(names)} (first {args.limit} sentences)")
    for rnd in range(args.rounds):
        for t in args.types.split(","):
            trials = {w: mean_e2e(tagger, {**weights, t: w}, names, args.limit) for w in grid}
            choice = max(trials, key=trials.get)
            if trials[choice] > best + args.min_gain:
                weights[t], best = choice, trials[choice]
            print(f"round {rnd + 1} {t:<14} " + "  ".join(f"{w:g}: {f:.4f}" for w, f in trials.items())
                  + f"  -> {weights.get(t, 1.0):g}", flush=True)
            cached.save()
    weights = {t: w for t, w in weights.items() if w != 1.0}
    print(f"calibrated: mean end-to-end F1 {best:.4f}; weights {weights}")
    if args.write:
        folder = LabelsFolder.of(args.labels, tagger.mlm.name)
        command = (f"python -m benchmarks.calibrate --limit {args.limit} --datasets {args.datasets} --types "
                   f"{args.types} --grid {args.grid} --min-gain {args.min_gain:g}")
        note = (f"fitted by `{command}` on the dev splits (mean end-to-end strict F1 {best:.4f}, "
                f"uncalibrated {start:.4f}); no train split used")
        Calibration(weights, {}, note).save(folder.calibration_path)
        print(f"-> {folder.calibration_path}")


if __name__ == "__main__":
    main()
