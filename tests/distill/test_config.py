"""DistillConfig and its SelectConfig / TrainConfig validate their own fields; the teacher's domain defaults to the
one its labels were made for (``--model uner-bio`` teaches biomedical), the student records it in tagger.yaml;
`uner distill` builds on the configs and reports a bad option as one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from uner.cli import app
from uner.distill import DistillConfig, SelectConfig, TrainConfig, distill
from uner.distill.pipeline import PRESETS
from uner.labels import LabelsFolder
from uner.tagger import TaggerConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("field, changes", [
    ("sentences", {"sentences": 0}), ("seed", {"seed": -1}), ("workers", {"workers": 0}), ("rounds", {"rounds": 0}),
    ("rounds", {"rounds": 2}), ("domain", {"domain": "bio"}), ("sources", {"sources": []}),
    ("select", {"select": {"min_score": 0.5}}), ("backend", {"backend": "tvm"}),
])
def test_bad_values_are_refused_in_one_line_naming_the_field(field, changes):
    with pytest.raises(ValueError) as exc:
        DistillConfig(**{"sources": ["corpus.txt"], **changes})
    assert re.match(rf"{field}\b", str(exc.value)) and "\n" not in str(exc.value), str(exc.value)


@pytest.mark.parametrize("cls, field, changes", [
    (SelectConfig, "min_score", {"min_score": 1.5}), (SelectConfig, "other_min_score", {"other_min_score": -0.1}),
    (SelectConfig, "type_min_scores[PERSON]", {"type_min_scores": {"PERSON": 2.0}}),
    (SelectConfig, "heldout_every", {"heldout_every": 1}), (SelectConfig, "rare_target", {"rare_target": -1}),
    (TrainConfig, "max_steps", {"max_steps": 0}),
    (TrainConfig, "eval_frequency", {"eval_frequency": 0}), (TrainConfig, "lowercase", {"lowercase": 0.6, "uppercase": 0.6}),
])
def test_the_stage_configs_name_the_bad_field(cls, field, changes):
    with pytest.raises(ValueError) as exc:
        cls(**changes)
    assert str(exc.value).startswith(field) and "\n" not in str(exc.value), str(exc.value)


def test_the_domain_defaults_to_the_one_the_labels_were_made_for(tmp_path):
    assert DistillConfig(["c.txt"]).domain == "general"  # the default model's labels have no tagger.yaml
    bio = DistillConfig(["c.txt"], model="uner-bio")
    assert bio.domain == "biomedical" and bio.tagger_config() == TaggerConfig.for_domain("biomedical")
    assert DistillConfig(["c.txt"], model=str(ROOT / "models" / "uner-bio")).domain == "biomedical"  # (a folder)
    assert DistillConfig(["c.txt"], model="uner-bio", domain="general").domain == "general"  # given: it wins
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "tagger.yaml").write_text("domain: biomedical\n")
    assert DistillConfig(["c.txt"], labels=str(labels)).domain == "biomedical"
    # an adapted folder teaches with its own spans and settings, as `uner tag --model FOLDER` tags
    (labels / "tagger.yaml").write_text("domain: general\nstages: [abbreviations]\n"
                                        "settings: {span_policy: named, common_types: [ALGORITHM]}\n")
    adapted = DistillConfig(["c.txt"], labels=str(labels)).tagger_config()
    assert (adapted.span_policy, adapted.common_types, adapted.stages) == ("named", ("ALGORITHM",), ("abbreviations",))
    # … and its student learns the common-noun entities of its lower-case types at the teacher's bar
    assert DistillConfig(["c.txt"], labels=str(labels)).select.common_min_score == adapted.common_min_score == 0.6
    assert DistillConfig(["c.txt"]).select.common_min_score is None  # (names only: "company" is never one)
    assert DistillConfig(["c.txt"], labels=str(labels), domain="biomedical").tagger_config() == \
        TaggerConfig.for_domain("biomedical")  # (another domain given: its defaults)
    (labels / "tagger.yaml").write_text("domain: chemistry\n")
    with pytest.raises(ValueError, match=r"tagger\.yaml: unknown value 'chemistry' \(general \| biomedical\)"):
        DistillConfig(["c.txt"], labels=str(labels))


def test_the_corpus_preset_follows_the_labels_domain(tmp_path):
    config = DistillConfig.preset(None, tmp_path, model="uner-bio")
    assert config.domain == "biomedical"
    assert config.sources == [f"{tmp_path / name}:{w}" for name, w in PRESETS["biomedical"]]
    with pytest.raises(ValueError, match="^domain must be one of general, biomedical for a corpus preset, not 'x'$"):
        DistillConfig.preset("x", tmp_path)


def test_uner_distill_with_the_bio_model_teaches_with_the_biomedical_settings(tmp_path, monkeypatch):
    for name, _ in PRESETS["biomedical"]:
        (tmp_path / name).write_text("")
    seen = []
    monkeypatch.setattr("uner.cli.distill.run_distill", lambda config, work, out, log: seen.append(config) or {})
    res = CliRunner().invoke(app, ["distill", "--model", "uner-bio", "--corpus-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    [config] = seen
    assert config.domain == "biomedical" and config.tagger_config() == TaggerConfig.for_domain("biomedical")
    assert config == DistillConfig.preset("biomedical", tmp_path, model="uner-bio")  # nothing else changed
    corpus = str(tmp_path / PRESETS["biomedical"][0][0])
    res = CliRunner().invoke(app, ["distill", corpus, "--model", "uner-bio", "--max-steps", "50", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert seen[1] == DistillConfig([corpus], model="uner-bio", seed=3, train=TrainConfig(max_steps=50, seed=3))
    assert seen[1].domain == "biomedical"


@pytest.mark.parametrize("args, message", [
    (["--min-score", "1.5"], "--min-score must be in [0, 1], not 1.5"),
    (["--rounds", "2"], "--rounds (2) after the first need --dev: a later round is kept only if its mean F1 on "
                        "those gold files rises"),
    (["--sentences", "5"], "--sentences must be an integer >= 10, not 5"),
    (["--domain", "bio"], "--domain must be one of general, biomedical, not 'bio'"),
])
def test_the_cli_reports_a_bad_option_as_one_line(tmp_path, args, message):
    res = CliRunner().invoke(app, ["distill", str(tmp_path / "c.txt"), "--work", str(tmp_path / "work"), *args])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [f"uner: error: {message}"]
    assert not (tmp_path / "work").exists()


def test_without_corpus_files_the_preset_needs_a_corpus_dir(tmp_path):
    res = CliRunner().invoke(app, ["distill", "--work", str(tmp_path / "work")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "uner: error: give CORPUS files, or --corpus-dir with the files of the domain's preset corpus mix"]
    assert not (tmp_path / "work").exists()


def test_the_student_folder_records_the_teachers_domain(tmp_path):
    """A work folder whose stages are all done: distill only ships the student, with its tagger.yaml."""
    corpus, work = tmp_path / "corpus.txt", tmp_path / "work"
    corpus.write_text("Aspirin treats headaches.\n")
    (work / "data").mkdir(parents=True)
    (work / "student").mkdir()
    (work / "sample.json").write_text(json.dumps([{"file": str(corpus), "weight": 1.0, "paragraphs": 1,
                                                   "paragraphs_sampled": 1, "sentences": 1}]))
    (work / "teach.jsonl").write_text('{"text": "Aspirin treats headaches.", "entities": []}\n')
    (work / "data" / "selection.json").write_text(json.dumps({"config": {}, "train": 1, "heldout": 0, "skipped": 0,
                                                              "missing": 0, "entities": {}}))
    (work / "student" / "meta.json").write_text("{}")
    (work / "student" / "config.cfg").write_text(f'[paths]\ntrain = "{work / "data" / "train.spacy"}"\n')
    config = DistillConfig([str(corpus)], model="uner-bio", vectors=False)
    distill(config, work, tmp_path / "student", log=lambda m: None)
    assert 'train = "WORK/data/train.spacy"' in (tmp_path / "student" / "config.cfg").read_text()
    for folder in (tmp_path / "student", work / "student"):  # (the work copy: later rounds and dev scoring load it)
        assert LabelsFolder(folder).default_domain() == "biomedical", folder
    assert "domain `biomedical`" in (tmp_path / "student" / "MODEL_CARD.md").read_text()
