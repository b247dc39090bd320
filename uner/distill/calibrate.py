"""Student scores on the teacher's scale, learned from unlabelled text.

A student's raw confidence (``span_confidences``: the least probable of its tokens' labels) is near 1 for most
entities and means something else than the teacher's score (the top type's share of the votes). Quantile matching
maps one onto the other: over the same kind of text, the student's ``q``-quantile raw confidence goes to the
teacher's ``q``-quantile score, so that one ``--min-score`` keeps about the same share of either engine's entities.
The knots live in the student's ``tagger.yaml`` (``score_map``); no labels are read.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import yaml

from ..io import atomic_write_text
from ..labels import LabelsFolder
from ..tagger import Student

KNOTS = 11  # deciles


def fit_score_map(raw: Sequence[float], target: Sequence[float], knots: int = KNOTS) -> tuple[tuple[float, float], ...]:
    """``[raw, score]`` knots (both rising) putting the ``raw`` values' quantiles on the ``target`` values'; ValueError
    when either is empty."""
    if not len(raw) or not len(target):
        raise ValueError("a score map needs student and teacher entities (none found in the text)")
    q = np.linspace(0, 1, knots)
    out: list[tuple[float, float]] = []
    for x, y in zip(np.quantile(raw, q).round(6), np.quantile(target, q).round(4)):
        if out and x <= out[-1][0]:  # tied raw quantiles: one knot at the higher score
            out[-1] = (out[-1][0], float(y))
        else:
            out.append((float(x), float(y)))
    if len(out) < 2:  # every raw confidence equal: a flat map to the teacher's median
        out = [(out[0][0] - 1e-6, out[0][1]), (out[0][0], out[0][1])]
    return tuple(out)


def calibrate_student(folder: str | Path, teacher_output: str | Path, limit: int = 5000) -> tuple[tuple[float, float], ...]:
    """Fit the score map of the student in ``folder`` to a teacher's ``uner tag`` JSONL output (its first ``limit``
    records without an error: their texts are tagged by the student, their entities' scores are the target) and
    write it into the folder's ``tagger.yaml``; the knots."""
    with open(teacher_output, encoding="utf-8") as f:
        records = list(itertools.islice((r for r in map(json.loads, f) if "error" not in r), limit))
    target = [e["score"] for r in records for e in r["entities"] if e.get("score") is not None]
    student = Student.from_pretrained(folder)
    raw = student.raw_confidences(r["text"] for r in records)
    knots = fit_score_map(raw, target)
    path = LabelsFolder(Path(folder)).tagger_path
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {"domain": student.domain}
    doc["score_map"] = [list(k) for k in knots]
    atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False, default_flow_style=None))
    return knots
