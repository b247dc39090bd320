"""How well entity scores say which entities are right, per engine, on the dev splits (scoring only: the
student's score map is fitted on unlabelled text by ``uner distill calibrate``, never here).

For every predicted entity: its score and whether it is right (strict: same tokens, same dataset type). Reported
per dev set and engine (teacher; student raw confidence; student on the teacher's scale): expected calibration
error over 10 equal-width bins, and the share of entities kept and their precision at ``--min-score`` cuts.

    python -m benchmarks.score_calibration [--limit 500] [--sets conll2003 wnut17 bc5cdr]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.tune_scoring import DEV, NER, check_data
from uner.analysis.evaluate import Mapping, detokenize, entities, read_gold
from uner.tagger import Student, load_tagger

MODELS = {"general": (None, None), "biomedical": ("uner-bio", "uner-student-bio")}  # domain -> teacher, student


def judged(tagger, path, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, right) of every entity ``tagger`` finds in the first ``limit`` sentences of a gold file."""
    mapping = Mapping.for_file(path)
    sents = list(read_gold(path))[:limit]
    texts, offsets = zip(*(detokenize(s.tokens) for s in sents))
    scores, right = [], []
    for offs, s, ents in zip(offsets, sents, tagger.tag(list(texts))):
        gold = entities(s.tags)
        first = {a: i for i, (a, _) in enumerate(offs)}
        last = {b: i + 1 for i, (_, b) in enumerate(offs)}
        for e in ents:
            label = mapping(e.type, e.subtype)
            if label == "O" or e.score is None:
                continue
            scores.append(e.score)
            right.append((label, first.get(e.start, -1), last.get(e.end, -1)) in gold)
    return np.array(scores), np.array(right, dtype=bool)


def ece(scores: np.ndarray, right: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: the entity-weighted gap between mean score and precision per score bin."""
    which = np.minimum((scores * bins).astype(int), bins - 1)
    return float(sum(abs(right[which == b].mean() - scores[which == b].mean()) * (which == b).sum()
                     for b in range(bins) if (which == b).any()) / len(scores))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=500, help="sentences per dev set")
    ap.add_argument("--sets", nargs="*", default=["conll2003", "wnut17", "bc5cdr"], choices=list(DEV))
    ap.add_argument("--cuts", nargs="*", type=float, default=[0.3, 0.5, 0.7])
    args = ap.parse_args()
    check_data(args.sets)
    print("| set | engine | entities | precision | ECE | " + " | ".join(f"kept / precision at {c}" for c in args.cuts) + " |")
    print("|---|---|---:|---:|---:|" + "---|" * len(args.cuts))
    for name in args.sets:
        path = NER / DEV[name]
        teacher_model, student_model = MODELS[Mapping.for_file(path).domain]
        mapped = Student.from_pretrained(student_model)
        raw = Student.from_pretrained(student_model)
        raw.score_map = None
        engines = {"teacher": load_tagger(model=teacher_model, device="cpu"), "student (raw)": raw,
                   "student (teacher's scale)": mapped}
        for engine, tagger in engines.items():
            scores, right = judged(tagger, path, args.limit)
            cells = [f"{(scores > c).mean():.2f} / {right[scores > c].mean():.3f}" if (scores > c).any() else "0 / -"
                     for c in args.cuts]
            print(f"| {name} | {engine} | {len(scores)} | {right.mean():.3f} | {ece(scores, right):.3f} | "
                  + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
