"""phrase_bounds' trimming of a substance's modifiers: only the listed labels (a substance, not a therapy or a
disease), and never a first word that the domain's tagged corpus knows as a name of the entity's type."""

from __future__ import annotations

from dataclasses import replace

import pytest

from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages import check_stage_types, load_stages
from uner.tagger.stages.phrases import PhraseWords, phrase_bounds
from uner.vocab.lexicon_table import Lexicon, Term
from uner.vocab.phrase_counts import PhraseCounts

# "intravenous" and "calcium" open many phrases and "morphine", "chloride" stand alone: the corpus ties neither pair
CORPUS = (["Intravenous fluids were given."] * 10 + ["Intravenous access failed."] * 10 + ["Morphine was given."] * 20
          + ["Calcium levels rose."] * 20 + ["Chloride was low."] * 20 + ["Calcium chloride was given."] * 1)
NAMES = Lexicon({("calcium",): Term("calcium", "DRUG", "CHEMICAL_SUBSTANCE", 209, 461, 1.0),
                 ("intravenous",): Term("intravenous", "DRUG", "DRUG_ADJECTIVE", 28, 248, 1.0)})


@pytest.fixture(scope="module")
def words() -> PhraseWords:
    counts = PhraseCounts.mine(CORPUS, max_n=3, min_count=1, n_frequent=0)
    return PhraseWords(counts, trim_below=0.1, extend_from=0.9, min_modifier_count=2,
                       trim_labels=frozenset({"DRUG", "DRUG/CHEMICAL_SUBSTANCE"}), names=NAMES,
                       modifier_subtypes=frozenset({"DRUG_ADJECTIVE"}))


def _trimmed(words: PhraseWords, span: str, type_: str, subtype: str | None = None) -> str:
    text = f"Patients received {span} ."
    ent = Entity(span, text.index(span), text.index(span) + len(span), type_, subtype, 0.5)
    [out] = phrase_bounds(text, [ent], words=words)
    assert text[out.start : out.end] == out.text
    return out.text


def test_only_the_listed_labels_lose_their_modifiers(words):
    assert _trimmed(words, "intravenous morphine", "DRUG") == "morphine"  # a substance: its route goes
    assert _trimmed(words, "intravenous morphine", "DRUG", "THERAPEUTIC_OR_PREVENTIVE_PROCEDURE") == \
        "intravenous morphine"  # a therapy is not listed
    assert _trimmed(words, "intravenous morphine", "DISEASE") == "intravenous morphine"
    assert _trimmed(replace(words, trim_labels=frozenset()), "intravenous morphine", "DISEASE") == "morphine"  # all


def test_a_name_the_corpus_knows_stays_and_its_modifiers_do_not(words):
    assert _trimmed(words, "calcium chloride", "DRUG", "CHEMICAL_SUBSTANCE") == "calcium chloride"
    assert _trimmed(replace(words, names=Lexicon({})), "calcium chloride", "DRUG", "CHEMICAL_SUBSTANCE") == "chloride"
    # "intravenous" is known as a drug adjective: a modifier, so it goes; counted as a name it would stay
    assert _trimmed(replace(words, modifier_subtypes=frozenset()), "intravenous morphine", "DRUG") == \
        "intravenous morphine"


def test_the_labels_to_trim_must_be_the_labels_types(tmp_path):
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "phrase_bounds.yaml").write_text(
        "counts: biomedical_phrases.npz\ntrim_below: 0.1\nextend_from: 0.3\nmin_modifier_count: 50\n"
        "trim_labels: [DRUG, MEDICINE/PILL]\n")
    stages = load_stages(("phrase_bounds",), str(tmp_path))
    check_stage_types(stages, ["DRUG", "MEDICINE"])  # (the type of a TYPE/SUBTYPE label is what must be known)
    with pytest.raises(ValueError, match=r"'phrase_bounds' needs the type\(s\) MEDICINE"):
        check_stage_types(stages, ["DRUG"])


def test_the_biomedical_student_names_substances_without_their_route():
    """End to end with the shipped student, table and lexicon: the routes go, "calcium" stays in its salt's name (the
    student, taught on the stage's output, draws these edges itself, and the stages leave them so)."""
    text = "Patients received intravenous morphine and oral calcium chloride after surgery ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    stages = TaggerConfig.for_domain("biomedical").stages
    off = {e.text for e in run_stages(text, ents, [s for s in stages if s != "phrase_bounds"]) if e.kept}
    on = {e.text: (e.type, e.stages) for e in run_stages(text, ents, stages) if e.kept}
    assert off == set(on)
    assert on["morphine"][0] == on["calcium chloride"][0] == "DRUG"
    assert "intravenous morphine" not in on and "chloride" not in on


@pytest.mark.parametrize("settings, field", [
    ("counts: biomedical_phrases.npz\ntrim_below: 0.1\nmin_modifier_count: 50\n", "extend_from"),
    ("counts: biomedical_phrases.npz\ntrim_below: 0.1\nextend_from: 0.3\nmin_modifier_count: 50\n"
     "names: {table: biomedical_lexicon.tsv, min_tagged: 5}\n", "names.min_share"),
])
def test_a_missing_setting_is_named_with_its_file(tmp_path, settings, field):
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "phrase_bounds.yaml").write_text(settings)
    with pytest.raises(ValueError, match=rf"phrase_bounds\.yaml: no '{field}' entry"):
        load_stages(("phrase_bounds",), str(tmp_path))
