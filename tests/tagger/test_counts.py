"""The leading_counts stage: the cardinal numbers (and the quantifiers) that open an entity count it and are cut."""

from __future__ import annotations

import pytest

from tests.helpers import BIO_STAGES
from uner.tagger import Entity, Student, TaggerConfig
from uner.tagger.stages.counts import CountWords, count_end, leading_counts
from uner.tagger.stages.registry import Words

WORDS = CountWords(frozenset({"two", "hundred", "ninety", "seven", "several", "other"}))


@pytest.mark.parametrize("text, name", [
    ("15 papillary renal cell tumours", "papillary renal cell tumours"),
    ("Two familial aniridia", "familial aniridia"),
    ("2016 Summer Olympics", "2016 Summer Olympics"),  # before a capitalised word: part of a name
    ("4 Vesta", "4 Vesta"),
    ("two hundred ninety seven patients", "patients"),  # (each count word in turn)
    ("5 - FU", "5 - FU"),  # a hyphen joins the number to the name
    ("1 , 25 - dihydroxyvitamin D3", "1 , 25 - dihydroxyvitamin D3"),
    ("26 S proteasome", "26 S proteasome"),  # a single letter after it: part of the name
    ("22", "22"),  # a number alone stays (what it is, the types say)
    ("15 34", "15 34"),  # nothing but numbers: nothing to cut down to
    ("seventy patients", "seventy patients"),  # a word the list does not have
    ("tumours 15", "tumours 15"),  # only at the start
    ("several transcription factors", "transcription factors"),  # a quantifier stands where a count does
    ("Other cancers", "cancers"),
    ("several other genes", "genes"),
    ("other HLA genes", "other HLA genes"),  # before a capitalised word, as a number
])
def test_a_count_is_cut_before_a_word(text, name):
    assert text[count_end(text, WORDS):] == name


def test_the_shipped_counts_hold_the_quantifiers_and_an_older_folder_its_numbers(tmp_path):
    """The shipped file's quantifiers count beside its number words; a folder saved before them (no
    ``quantifier_words`` entry) still loads, with its numbers only."""
    shipped = CountWords.read(Words())
    assert {"two", "several", "other"} <= shipped.count_words and "multiple" not in shipped.count_words
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "leading_counts.yaml").write_text("number_words: [Two]\nmin_letters: 2\n", encoding="utf-8")
    older = CountWords.read(Words(str(tmp_path)))
    assert older.count_words == {"two"}
    assert count_end("several genes", older) == 0 and count_end("two genes", older) == 4


def test_a_measure_keeps_its_number():
    """Only the entities of the listed types lose their counts: a measure is its number ("2 years"); the shipped file
    lists the domain's own types, no measure; without a list every type loses them (an older folder)."""
    text = "Two familial aniridia for 2 years ."
    ents = [Entity("Two familial aniridia", 0, 21, "DISEASE", None, 0.5),
            Entity("2 years", 26, 33, "MEASURE", None, 0.5)]
    listed = CountWords(frozenset({"two"}), cut_types=frozenset({"DISEASE"}))
    assert [e.text for e in leading_counts(text, ents, words=listed)] == ["familial aniridia", "2 years"]
    assert [e.text for e in leading_counts(text, ents, words=CountWords(frozenset({"two"})))] == [
        "familial aniridia", "years"]
    shipped = CountWords.read(Words()).types
    assert {"DRUG", "DISEASE", "GENE"} <= set(shipped) and "MEASURE" not in shipped


def test_the_stage_moves_the_start_and_keeps_type_and_score():
    text = "Mutations in 15 renal tumours and 5 - FU ."
    ents = [Entity("15 renal tumours", 13, 29, "DISEASE", None, 0.7), Entity("5 - FU", 34, 40, "DRUG", None, 0.4)]
    out = leading_counts(text, ents, words=WORDS)
    assert [(e.text, e.start, e.end, e.type, e.score) for e in out] == [
        ("renal tumours", 16, 29, "DISEASE", 0.7), ("5 - FU", 34, 40, "DRUG", 0.4)]
    assert all(text[e.start : e.end] == e.text for e in out)


def test_the_biomedical_student_leaves_out_counts():
    """End to end with the shipped student and the shipped number words: the names without their counts; the
    student, taught on the stage's output, leaves the counts out itself, and the stages leave the names so."""
    assert "leading_counts" in TaggerConfig.for_domain("biomedical").stages
    assert "leading_counts" not in TaggerConfig.for_domain("general").stages
    text = ("Mutations were found in 15 papillary renal cell tumours and in two familial aniridia patients ; nine "
            "tobramycin patients and the 26 S proteasome .")
    # (phrase_bounds trims a drug's loosely tied first words, a count among them: both off, then both on)
    without = Student.from_pretrained("uner-student-bio",
                                      stages=[s for s in BIO_STAGES if s not in ("leading_counts", "phrase_bounds")])
    [off], [on] = without.tag([text]), Student.from_pretrained("uner-student-bio").tag([text])
    assert [e.text for e in off] == [e.text for e in on]
    on = {e.text: e for e in on}
    assert on["papillary renal cell tumours"].type == on["familial aniridia"].type == "DISEASE"
    assert on["tobramycin"].type == "DRUG"


def test_the_biomedical_student_leaves_out_the_quantifiers():
    """End to end with the shipped student and the shipped quantifier words: "cancers" and "transcription factors"
    without "other" and "several" (the student, taught on the stage's output, leaves the quantifiers out itself);
    the measure "2 years" keeps its number."""
    text = "Mutations were found in other cancers and in several transcription factors over 2 years ."
    without = Student.from_pretrained("uner-student-bio", stages=[s for s in BIO_STAGES if s != "leading_counts"])
    off = [e.text for e in next(without.tag([text]))]
    on = {e.text: e for e in next(Student.from_pretrained("uner-student-bio").tag([text]))}
    assert off == list(on) and (on["cancers"].type, on["transcription factors"].type) == ("DISEASE", "GENE")
    assert on["2 years"].type == "MEASURE" and "years" not in on  # (a measure keeps its number)
