"""Fit an adapted labels folder's calibration on its dev split and write it beside the labels (calibration.yaml).

    python -m benchmarks.calibrate_folder --labels labels/crossner-literature \
        --gold ../shared/data/ner/crossner/literature/dev.txt [--types BAND,PERSON] [--no-subtypes] [--check] [--write]

Subtype shares: a person's subtype (WRITER under PERSON) gets its votes from a few occupation words while every
given name votes for the type alone, so how much of the type's votes it must hold to be reported depends on the
domain: nearly every person of a literature text is a writer, few places of a science text are countries. The
subtypes fitted are those that the dataset's mapping sends to a label of their own (WRITER -> writer beside PERSON
-> person); ``--no-subtypes`` leaves them at the tagger's share. Type weights (``--types``): as
``benchmarks.calibrate`` fits them for the general model.

Coordinate ascent: each setting in turn tries each value of its grid with the others fixed and keeps the best
end-to-end strict F1 on the fitted sentences, moving only for a gain above ``--min-gain``; two rounds. ``--check``
first fits on each half of the split and scores the other half: what fitted settings give on sentences they were
not fitted on; with ``--write`` the file is then written only when both held-out halves gain. The model outputs
and parses are cached, so each trial only re-scores. Dev splits only.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks.tune_scoring import cached_tagger, configure
from uner.analysis.evaluate import Mapping, evaluate, read_gold
from uner.labels import Calibration, LabelsFolder

GRID = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3)  # subtype shares
WEIGHT_GRID = (0.5, 0.7, 1.0, 1.4, 2.0)  # type weights (benchmarks.calibrate's)


def split_gold(gold: Path, out: Path) -> dict[str, Path]:
    """``gold``'s sentences as token<TAB>tag files: all of them, the first half and the second half."""
    sents = list(read_gold(gold))
    half = len(sents) // 2
    files = {}
    for name, part in (("all", sents), ("first", sents[:half]), ("second", sents[half:])):
        files[name] = out / f"{name}.txt"
        files[name].write_text("".join("".join(f"{t}\t{g}\n" for t, g in zip(s.tokens, s.tags)) + "\n" for s in part),
                               encoding="utf-8")
    return files


def fitted_subtypes(folder: LabelsFolder, mapping: Mapping, labels: list[str]) -> list[str]:
    """The subtypes among ``labels`` that ``mapping`` sends to a dataset label other than their type's."""
    types = folder.load_types()
    return [lab for lab in labels if types.parent(lab) != lab and not lab.endswith("_ADJECTIVE")
            and mapping.labels.get(lab) not in (None, mapping.default, mapping(types.parent(lab)))]


def fit(f1, knobs: list[tuple[str, str, list[float], float]], rounds: int, min_gain: float, part: str
        ) -> tuple[dict[str, dict[str, float]], float, float]:
    """Coordinate ascent on ``part`` (``f1(settings, part)``) over ``knobs`` (section, name, grid, default): the
    fitted settings by calibration section, F1 before, F1 after."""
    settings: dict[str, dict[str, float]] = {"type_weights": {}, "subtype_shares": {}}
    best = start = f1(settings, part)
    for rnd in range(rounds):
        for section, name, grid, default in knobs:
            trials = {g: f1({**settings, section: {**settings[section], name: g}}, part) for g in grid}
            choice = max(trials, key=trials.get)
            if trials[choice] > best + min_gain:
                settings = {**settings, section: {**settings[section], name: choice}}
                best = trials[choice]
            print(f"  {part} round {rnd + 1} {name:<16} " + "  ".join(f"{g:g}: {v:.4f}" for g, v in trials.items())
                  + f"  -> {settings[section].get(name, default):g}", flush=True)
    return {k: {n: v for n, v in d.items() if v != (1.0 if k == "type_weights" else None)} for k, d in
            settings.items()}, start, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", required=True, help="the labels folder (an adapted one: its model and settings)")
    ap.add_argument("--gold", type=Path, required=True, help="the dev split its mapping is for")
    ap.add_argument("--types", default="", help="types whose vote weights to fit too, comma-separated")
    ap.add_argument("--no-subtypes", dest="subtypes", action="store_false",
                    help="fit the type weights only (the subtypes keep the tagger's share)")
    ap.add_argument("--check", action="store_true",
                    help="first fit on each half and score the other half (settings on sentences not fitted on)")
    ap.add_argument("--grid", default=",".join(map(str, GRID)), help="subtype shares to try")
    ap.add_argument("--weight-grid", default=",".join(map(str, WEIGHT_GRID)), help="type weights to try")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--min-gain", type=float, default=0.001)
    ap.add_argument("--write", action="store_true",
                    help="write what was fitted on all into calibration.yaml (with --check: only when both held-out "
                         "halves gain)")
    args = ap.parse_args()
    if not args.gold.is_file():
        raise SystemExit(f"{args.gold}: no such dev split (../shared is needed)")
    folder = LabelsFolder(args.labels)
    mapping = Mapping.for_file(args.gold, [folder.path / "mappings"])
    tagger, _ = cached_tagger(None, args.labels, 20, None)
    base = folder.load_calibration()
    default = tagger.config.subtype_share
    subtypes = fitted_subtypes(folder, mapping, list(tagger.table.labels)) if args.subtypes else []
    types = [t for t in args.types.split(",") if t]
    unknown = sorted(set(types) - set(tagger.types.types))
    if unknown:
        raise SystemExit(f"--types: {', '.join(unknown)} not among {folder.types_path}'s types")
    knobs = ([("type_weights", t, [float(g) for g in args.weight_grid.split(",")], 1.0) for t in types]
             + [("subtype_shares", s, [float(g) for g in args.grid.split(",")], default) for s in subtypes])
    print(f"{folder.path.name}: subtypes {', '.join(subtypes) or 'none'} (subtype_share {default:g} for all "
          f"before); type weights {', '.join(types) or 'none'}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        files = split_gold(args.gold, Path(tmp))

        def f1(settings: dict[str, dict[str, float]], part: str) -> float:
            configure(tagger, tagger.config, Calibration({**base.type_weights, **settings["type_weights"]},
                                                         base.min_scores, base.note, settings["subtype_shares"]))
            return evaluate(tagger, files[part], mapping, mode="end-to-end")["end_to_end"]["micro"]["f1"]

        none = {"type_weights": {}, "subtype_shares": {}}
        held_out_gains = True
        if args.check:
            for part, other in (("first", "second"), ("second", "first")):
                fitted, start, best = fit(f1, knobs, args.rounds, args.min_gain, part)
                before, after = f1(none, other), f1(fitted, other)
                held_out_gains &= after > before
                print(f"fitted on the {part} half {fitted}: {part} {start:.4f} -> {best:.4f}; held-out {other} half "
                      f"{before:.4f} -> {after:.4f}", flush=True)
        fitted, start, best = fit(f1, knobs, args.rounds, args.min_gain, "all")
        print(f"fitted on all {fitted}: end-to-end F1 {start:.4f} -> {best:.4f}")
    if args.write and not held_out_gains:
        print(f"not written: what one half fitted lowered the other ({folder.calibration_path} unchanged)")
    elif args.write:
        command = f"python -m benchmarks.calibrate_folder --labels {args.labels} --gold {args.gold}" + (
            f" --types {args.types}" if types else "") + ("" if args.subtypes else " --no-subtypes")
        note = (f"fitted by `{command}` on that dev split (end-to-end strict F1 {start:.4f} -> {best:.4f}); no train "
                f"split used")
        Calibration({**base.type_weights, **fitted["type_weights"]}, base.min_scores, note,
                    fitted["subtype_shares"]).save(folder.calibration_path)
        print(f"-> {folder.calibration_path}")


if __name__ == "__main__":
    main()
