"""Choose the student's selection thresholds and training steps on the dev splits (never their labels for training).

    python -m benchmarks.tune_student WORK/teach.jsonl --lines 20000 --steps 3000 \
        --try min_score=0.3 --try min_score=0.5 --try min_score=0.3,other_min_score=0.3 \
        --dev ../shared/data/ner/conll2003/valid.txt --dev ../shared/data/ner/wnut17/dev.conll

Each ``--try`` (SelectConfig fields, and ``lowercase`` / ``uppercase``: TrainConfig's augmentation shares) selects from the first ``--lines`` teacher records, trains a student with
``--steps`` steps and scores it end to end on every ``--dev`` file; prints one row per try.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

from uner.distill import SelectConfig, TrainConfig, select, train_student
from uner.distill.pipeline import mean_f1, score_on_dev


def parse_try(spec: str) -> dict:
    out = {}
    for part in filter(None, spec.split(",")):
        key, _, value = part.partition("=")
        out[key] = float(value) if key != "min_label_count" else int(value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("taught", type=Path)
    ap.add_argument("--lines", type=int, default=None, help="use the first N teacher records")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--try", dest="tries", action="append", default=[], help="SelectConfig fields, k=v,k=v")
    ap.add_argument("--dev", action="append", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        taught = Path(tmp) / "teach.jsonl"
        with open(args.taught, encoding="utf-8") as src, open(taught, "w", encoding="utf-8") as dst:
            dst.writelines(itertools.islice(src, args.lines))
        for spec in args.tries or [""]:
            t0 = time.time()
            fields = parse_try(spec)
            casing = {k: fields.pop(k) for k in ("lowercase", "uppercase") if k in fields}
            config = SelectConfig(**fields)
            folder = Path(tmp) / f"try{abs(hash(spec))}"
            report = select(taught, folder / "data", config)
            train_student(folder / "data", folder / "student",
                          TrainConfig(max_steps=args.steps, eval_frequency=max(1, args.steps // 3), patience=args.steps,
                                      **casing))
            scores = score_on_dev(folder / "student", args.dev)
            cells = "  ".join(f"{name} {r['micro']['f1']:.3f} (P {r['micro']['precision']:.3f} "
                              f"R {r['micro']['recall']:.3f})" for name, r in scores.items())
            print(f"[{spec or 'defaults'}] {report.train} sentences, {sum(report.entities.values())} entities, "
                  f"{report.missing} missing | {cells} | mean {mean_f1(scores):.3f} | {time.time() - t0:.0f} s",
                  flush=True)


if __name__ == "__main__":
    main()
