"""Student confidences: per entity from its tokens' label probabilities, mapped onto the teacher's score scale
(quantile matching on unlabelled text), kept in tagger.yaml, and filtered by --min-score."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import yaml

from tests.helpers import uner
from uner.distill.calibrate import calibrate_student, fit_score_map
from uner.distill.entity_tagger import Grammar, log_softmax, span_confidences
from uner.labels import LabelError, LabelsFolder
from uner.paths import student_dir
from uner.tagger import Student

TEXTS = ["Angela Merkel met the president of France in Berlin on Tuesday .",
         "Manchester United beat Chelsea 2-1 at Old Trafford on Sunday .",
         "The Boston Celtics signed Jayson Tatum after talks with Nike and Adidas in New York ."]


def test_an_entity_is_as_sure_as_its_least_sure_token():
    g = Grammar(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])
    logits = np.log(np.array([[0.1, 0.8, 0.0, 0.1, 0.0], [0.3, 0.0, 0.6, 0.0, 0.1], [0.9, 0.05, 0.0, 0.05, 0.0]]) + 1e-12)
    got = span_confidences(g, log_softmax(logits), [(0, 2, "PER"), (2, 3, "LOC")])
    assert got == pytest.approx([0.6, 0.05], abs=1e-6)


def test_score_map_matches_quantiles_and_rises():
    rng = np.random.default_rng(0)
    raw = 1 - rng.exponential(0.01, 5000).clip(0, 0.5)  # a student's raw confidences crowd near 1
    target = rng.uniform(0.2, 1.0, 3000)
    knots = fit_score_map(raw, target)
    xs, ys = map(np.array, zip(*knots))
    assert np.all(np.diff(xs) > 0) and np.all(np.diff(ys) >= 0)
    mapped = np.interp(raw, xs, ys)
    for q in (0.1, 0.5, 0.9):  # the same share of either engine's entities falls below any score
        assert abs(np.mean(mapped < np.quantile(target, q)) - q) < 0.03
    assert fit_score_map([0.9] * 10, [0.3, 0.5])[-1][1] == 0.5  # all raw equal: still a valid map
    with pytest.raises(ValueError):
        fit_score_map([], [0.5])


def test_calibrated_student_scores_on_the_teachers_scale_and_min_score_filters(tmp_path):
    folder = tmp_path / "student"
    shutil.copytree(student_dir(), folder)
    teacher = tmp_path / "teacher.jsonl"  # a teacher's output: only its scores and texts are read
    scores = iter(np.linspace(0.25, 0.95, 12))
    teacher.write_text("".join(json.dumps({"id": str(i), "text": t, "entities": [
        {"text": "x", "start": 0, "end": 1, "type": "PERSON", "subtype": None, "score": float(next(scores))}
        for _ in range(4)]}) + "\n" for i, t in enumerate(TEXTS)))
    knots = calibrate_student(folder, teacher)
    assert LabelsFolder(folder).score_map() == knots and LabelsFolder(folder).default_domain() == "general"
    ents = [e for doc in Student.from_pretrained(folder).tag(TEXTS) for e in doc]
    assert len(ents) >= 8 and all(0.25 <= e.score <= 0.95 for e in ents)
    cut = float(np.median([e.score for e in ents]))
    kept = [e for doc in Student.from_pretrained(folder, min_score=cut).tag(TEXTS) for e in doc]
    assert kept == [e for e in ents if e.score > cut] and 0 < len(kept) < len(ents)
    res = uner("tag", "-", "--engine", "student", "--model", str(folder), "--min-score", str(cut), stdin="\n".join(TEXTS))
    assert res.returncode == 0, res.stderr
    assert [e["text"] for line in res.stdout.splitlines() for e in json.loads(line)["entities"]] == [e.text for e in kept]


def test_shipped_student_scores_every_entity():
    ents = [e for doc in Student.from_pretrained().tag(TEXTS) for e in doc]
    assert ents and all(e.score is not None and 0 < e.score <= 1 for e in ents)


def test_a_malformed_score_map_names_the_file(tmp_path):
    (tmp_path / "tagger.yaml").write_text(yaml.safe_dump({"domain": "general", "score_map": [[0.9, 0.5], [0.5, 0.6]]}))
    with pytest.raises(LabelError, match="tagger.yaml: score_map"):
        LabelsFolder(tmp_path).score_map()
