"""Which post-typing stages pay, through the student or the teacher (issue 77): the engine with its domain's stages,
with none, and with each stage left out, end to end on the domain's dev splits, each sentence alone (``uner eval``'s
default) and, where a split marks its documents (-DOCSTART-), with the document pass reading 20 sentences back.
The engine tags each split once with no stage; each list then runs over those entities (``run_stages``, as the
engine's own ``tag`` runs them), so that the slow teacher is measured in one pass.

A stage pays where leaving it out costs at least ``--pays`` points on at least two splits; the table prints, per
stage, the F1 change that leaving it out makes on each split (negative: the stage helps).

    python -m benchmarks.stage_ablation                                   # uner-student-bio, the 4 biomedical dev splits
    python -m benchmarks.stage_ablation --engine teacher --model uner-bio
    python -m benchmarks.stage_ablation --stages A,B,C --list short=A,C      # leave-one-out of A,B,C; then A,C
    python -m benchmarks.stage_ablation --model uner-student --domain general --out ablation.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from uner.analysis.evaluate import evaluate
from uner.io import atomic_write_text
from uner.tagger import run_stages
from uner.tagger.loading import load_tagger

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "ner"
SPLITS = {"biomedical": ("bc5cdr/devel.tsv", "ncbi-disease/devel.tsv", "jnlpba/devel.tsv", "bc2gm/devel.tsv"),
          "general": ("conll2003/valid.txt", "wnut17/dev.conll")}
CONTEXT = 20


def contexts(gold: Path) -> list[int]:
    """The contexts a split is scored with: 0, and ``CONTEXT`` where it marks its documents (-DOCSTART-)."""
    with open(gold, encoding="utf-8") as f:
        return [0, CONTEXT] if any(line.startswith("-DOCSTART-") for line in f) else [0]


class Replay:
    """An engine's entities before any stage, each text tagged once, through the stage list ``stages``."""

    def __init__(self, engine) -> None:
        self.engine, self.stage_folder, self.raw = engine, engine.stage_folder, {}
        self.stages = tuple(engine.stages)
        if hasattr(engine, "config"):  # the teacher: its settings hold the list
            engine.config = dataclasses.replace(engine.config, stages=())
        else:
            engine.stages = ()

    def tag(self, texts: list[str]):
        new = list(dict.fromkeys(t for t in texts if t not in self.raw))
        self.raw |= dict(zip(new, self.engine.tag(new)))
        for text in texts:
            yield run_stages(text, self.raw[text], self.stages, self.stage_folder)


def f1(tagger: Replay, gold: Path, stages: tuple[str, ...], context: int) -> float:
    """End-to-end strict micro F1 of ``tagger`` with ``stages`` on ``gold``."""
    tagger.stages = stages
    return evaluate(tagger, gold, mode="end-to-end", context=context)["end_to_end"]["micro"]["f1"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="student", choices=("student", "teacher"))
    ap.add_argument("--model", default="uner-student-bio")
    ap.add_argument("--domain", default="biomedical", choices=sorted(SPLITS))
    ap.add_argument("--stages", default=None, help="the list to leave each stage out of, comma-separated "
                    "(default: the engine's own)")
    ap.add_argument("--list", action="append", default=[], metavar="NAME=A,B,…",
                    help="also score this stage list (repeatable; an empty list is no stage)")
    ap.add_argument("--pays", type=float, default=0.3, help="points (F1 x 100) a stage must add on two splits")
    ap.add_argument("--out", type=Path, default=None, help="write the scores here (JSON)")
    args = ap.parse_args()
    tagger = Replay(load_tagger(engine=args.engine, model=args.model))
    full = tuple(args.stages.split(",")) if args.stages else tagger.stages
    lists = dict(item.partition("=")[::2] for item in args.list)
    variants = {"all": full, "none": (), **{f"-{s}": tuple(x for x in full if x != s) for s in full},
                **{name: tuple(filter(None, value.split(","))) for name, value in lists.items()}}
    runs = [(name, SHARED / rel, c) for rel in SPLITS[args.domain] for c in contexts(SHARED / rel)
            for name in [rel.split("/")[0]]]
    scores: dict[str, dict[str, float]] = {}
    for variant, stages in variants.items():
        t0 = time.time()
        scores[variant] = {f"{name}@{c}": f1(tagger, gold, stages, c) for name, gold, c in runs}
        print(f"{variant:28s} " + " ".join(f"{k} {v:.4f}" for k, v in scores[variant].items())
              + f"  ({time.time() - t0:.0f} s)", flush=True)
    cols = list(scores["all"])
    print("\nleaving a stage out, F1 change in points (negative: the stage helps); pays: "
          f">= {args.pays} on two splits (each sentence alone)")
    print(f"{'stage':28s} " + " ".join(f"{c:>16s}" for c in cols) + "  pays")
    for variant in variants:
        if variant == "all":
            continue
        delta = {c: 100 * (scores[variant][c] - scores["all"][c]) for c in cols}
        pays = sum(-d >= args.pays for c, d in delta.items() if c.endswith("@0")) >= 2
        print(f"{variant:28s} " + " ".join(f"{delta[c]:+16.2f}" for c in cols)
              + ("  yes" if pays and variant.startswith("-") else ""))
    if args.out:
        atomic_write_text(args.out, json.dumps({"engine": args.engine, "model": args.model, "stages": full,
                                                 "lists": variants, "scores": scores}, indent=1))


if __name__ == "__main__":
    main()
