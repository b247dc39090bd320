"""A tagger saved with its settings (``Tagger.save_pretrained``) loads back identically."""

from __future__ import annotations

import pytest
import yaml

from uner.tagger import Tagger, TaggerConfig

from tests.helpers import BIO_STAGES, STUDENT_BIO_STAGES

TEXTS = ["Paris is the capital of France .", "Obama visited Tokyo with executives of Toyota ."]


def _records(tagger):
    return [[e.to_dict(explain=True) for e in ents] for ents in tagger.tag(TEXTS, explain=True)]


def test_a_saved_tagger_loads_back_with_its_model_settings_and_stop_descriptors(tiny, tmp_path):
    stops = tmp_path / "stops.txt"
    stops.write_text("paris capital\n")
    config = TaggerConfig.for_domain("biomedical", top_k=3, min_score=0.25, stages=("person_titles",))
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], config=config, stop_descriptors=stops, device="cpu")
    folder = tagger.save_pretrained(tmp_path / "saved")
    saved = yaml.safe_load((folder / "tagger.yaml").read_text())
    assert saved["domain"] == "biomedical" and saved["settings"] == {"top_k": 3, "min_score": 0.25}
    back = Tagger.from_pretrained(labels=folder, device="cpu")
    assert back.config == tagger.config and back.stop_descriptors == ("paris", "capital")
    assert back.mlm.name == tagger.mlm.name and _records(back) == _records(tagger)
    default = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu")
    assert default.config != back.config  # (the saved settings are what made it equal)


def test_the_shipped_biomedical_tagger_round_trips_with_its_expert_types(tmp_path):
    bio = Tagger.from_pretrained("uner-bio", device="cpu")
    back = Tagger.from_pretrained(labels=bio.save_pretrained(tmp_path / "bio"), device="cpu")
    assert back.config == bio.config and back.config.domain == "biomedical"
    assert back.config.stages == BIO_STAGES
    assert back.expert_types == bio.expert_types and "DRUG" in back.expert_types


def test_settings_from_a_labels_folder_are_checked(tiny, tmp_path):
    folder = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu").save_pretrained(tmp_path / "t")
    (folder / "tagger.yaml").write_text("domain: general\nsettings: {top_kk: 3}\n")
    with pytest.raises(ValueError, match=r"tagger\.yaml: settings: unknown tagger setting 'top_kk'"):
        Tagger.from_pretrained(str(tiny[0]), folder, device="cpu")


def test_every_engine_saves_and_loads_back_identically(tiny, tmp_path):
    from uner.tagger import Ensemble, EntityTagger, Student

    member = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", config=TaggerConfig(top_k=4))
    ensemble = Ensemble([member, member], [1.0, 0.5])
    back = Ensemble.from_pretrained(ensemble.save_pretrained(tmp_path / "ens"), device="cpu")
    assert back.weights == [1.0, 0.5] and [m.config for m in back.members] == [member.config] * 2
    assert _records(back) == _records(ensemble)
    student = Student.from_pretrained("uner-student-bio")
    again = Student.from_pretrained(student.save_pretrained(tmp_path / "student"))
    assert again.domain == "biomedical" and again.stages == student.stages == STUDENT_BIO_STAGES
    assert _records(again) == _records(student)
    assert all(isinstance(t, EntityTagger) for t in (member, ensemble, student))
