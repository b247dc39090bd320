"""Phrase statistics (uner.vocab.phrase_counts) and the stages that read them: phrase_bounds that moves entity edges,
degree_modifiers that drops the gradable words opening an entity, and class_nouns that drops the entities naming a
class."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from tests.helpers import BIO_STAGES, uner
from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages.phrases import (ClassWords, CompoundWords, DegreeWords, PhraseDoc, PhraseWords, bounds,
                                        class_nouns, degree_modifiers, hyphen_compounds, phrase_bounds)
from uner.vocab.phrase_counts import PhraseCounts, ngram_hash, tokens


# a small "domain corpus": "heart failure" stands alone and after many modifiers; "dilated" nearly always goes
# with "cardiomyopathy"; "5-FU" is written joined or spaced
CORPUS = (["Patients with heart failure were treated."] * 12 + ["Severe pain and severe fever were seen."] * 20
          + ["Severe heart failure was rare."] * 2 + ["Dilated cardiomyopathy was found."] * 9
          + ["The cardiomyopathy was mild."] * 3 + ["5-FU was given."] * 3 + ["They stopped 5 - FU."] * 4
          + ["5-FU and cisplatin."] * 3 + ["FU was given."] * 1)


NO_CLASS_NOUNS = tuple(s for s in BIO_STAGES if s != "class_nouns")


@pytest.fixture(scope="module")
def counts() -> PhraseCounts:
    return PhraseCounts.mine(CORPUS, max_n=4, min_count=2, n_frequent=2)


def test_counts_are_the_corpus_ngrams_within_a_phrase(counts):
    assert counts.count(["heart", "failure"]) == 14
    assert counts.count(["severe", "heart", "failure"]) == 2
    assert counts.count(["5", "-", "fu"]) == 10  # joined and spaced hyphens count alike
    assert counts.count(["fu"]) == 11
    assert counts.count(["failure", "were"]) == 12
    assert counts.count(["failure", "was"]) == 2
    assert counts.count(["failure", ".", "dilated"]) == 0  # no n-gram crosses a full stop
    assert counts.count(["rare", "dilated"]) == 0  # nor the end of a text
    assert counts.count(["5", "-", "fu", "was", "given"]) == 0  # longer than max_n
    assert counts.count(["-", "fu"]) == 0  # an n-gram starts and ends with a word
    assert counts.frequent == {"were", "severe"}  # (32 and 42 times; then "was" 18)


def test_counts_keep_how_often_a_word_follows_a_content_word(counts, tmp_path):
    """"heart failure" 14 times ("heart" a content word); "heart" after "with" 12 times and after "severe", one of the
    corpus's most frequent words, twice; "pain" only after "severe"; "fu" after a hyphen or opening a text."""
    assert counts.modified("failure") == (14, 1.0)
    assert counts.modified("heart") == (14, 12 / 14)
    assert counts.modified("pain") == (20, 0.0) and counts.modified("fu") == (11, 0.0)
    assert counts.modified("unseen") == (0, 0.0)
    counts.save(tmp_path / "phrases.npz")
    assert PhraseCounts.load(tmp_path / "phrases.npz").modified("heart") == (14, 12 / 14)
    assert replace(counts, after_words=None).modified("failure") == (14, 0.0)  # (a table mined before these counts)


def test_a_table_saves_and_loads_back_and_a_bad_file_is_named(counts, tmp_path):
    path = tmp_path / "phrases.npz"
    counts.save(path)
    back = PhraseCounts.load(path)
    assert back.count(["dilated", "cardiomyopathy"]) == 9 and back.frequent == counts.frequent
    assert back.connectors == {"-"} and back.min_count == 2
    assert all(np.array_equal(a, b) for a, b in zip(back.hashes, counts.hashes))
    (tmp_path / "bad.npz").write_text("not a table")
    with pytest.raises(ValueError, match=r"bad\.npz: not a phrase-count table"):
        PhraseCounts.load(tmp_path / "bad.npz")


def test_hashes_are_stable_across_processes():
    """The table is written once and read on other machines: the hash may not depend on Python's hash seed."""
    code = "from uner.vocab.phrase_counts import ngram_hash; print(ngram_hash(['heart', 'failure']))"
    for seed in ("1", "7"):
        other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env={**os.environ, "PYTHONHASHSEED": seed})
        assert int(other.stdout) == ngram_hash(["heart", "failure"])


def _moved(text: str, span: str, counts: PhraseCounts, others: tuple[str, ...] = ()) -> str:
    words = PhraseWords(counts, trim_below=0.2, extend_from=0.5, min_modifier_count=2)
    ents = [Entity(s, text.index(s), text.index(s) + len(s), "DISEASE", None, 0.5) for s in (span, *others)]
    return phrase_bounds(text, ents, words=words)[0].text


@pytest.mark.parametrize("text, span, expected", [
    ("He had severe heart failure .", "severe heart failure", "heart failure"),  # a modifier the corpus knows
    ("He had dilated cardiomyopathy .", "dilated cardiomyopathy", "dilated cardiomyopathy"),  # part of the name
    ("He had dilated cardiomyopathy .", "cardiomyopathy", "dilated cardiomyopathy"),  # the name completed
    ("Then 5 - FU was given .", "FU", "5 - FU"),  # across a hyphen
    ("Then 5-FU was given .", "FU", "5-FU"),
    ("He had chronic heart failure .", "chronic heart failure", "chronic heart failure"),  # no evidence: kept
])
def test_edges_move_where_the_corpus_has_its_phrases(counts, text, span, expected):
    assert _moved(text, span, counts) == expected


def test_an_edge_never_moves_onto_another_entity(counts):
    text = "Then 5 - FU was given ."
    assert _moved(text, "FU", counts, others=("5",)) == "FU"


def test_two_entities_never_grow_onto_the_same_word():
    """"X receive Y": both entities may join "receive" by the corpus's counts; the first takes it, and the second
    stops where the first now ends (they grew into each other before, and a student's training data broke)."""
    corpus = ["Patients receive pyrazoloacridine daily."] * 6 + ["Patients receive it."] * 3
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    text = "Patients receive pyrazoloacridine daily ."
    ents = [Entity(s, text.index(s), text.index(s) + len(s), "DRUG", None, 0.5) for s in ("Patients", "pyrazoloacridine")]
    out = phrase_bounds(text, ents, PhraseWords(counts, trim_below=0.0, extend_from=0.3, min_modifier_count=2))
    assert out[0].text == "Patients receive"
    assert out[1].start >= out[0].end and "pyrazoloacridine" in out[1].text


def test_a_frequent_word_never_joins(counts):
    doc = PhraseDoc("heart failure were", counts)
    words = PhraseWords(counts, trim_below=0.2, extend_from=0.01, min_modifier_count=2)
    assert bounds(doc, 0, 2, words) == (0, 2)  # "were" follows "heart failure" 12 times of 14: a function word


def test_tokens_keep_offsets():
    assert tokens("5-FU, given") == [("5", 0, 1), ("-", 1, 2), ("fu", 2, 4), (",", 4, 5), ("given", 6, 11)]


def test_the_stage_is_listed_for_the_biomedical_domain_and_switches_off():
    assert TaggerConfig.for_domain("biomedical").stages == BIO_STAGES
    assert "phrase_bounds" not in TaggerConfig.for_domain("general").stages
    text = "He developed dilated cardiomyopathy ."
    ent = Entity("cardiomyopathy", 21, 35, "DISEASE", None, 0.5)
    assert [e.text for e in run_stages(text, [ent], ("phrase_bounds",))] == ["dilated cardiomyopathy"]
    assert [e.text for e in run_stages(text, [ent], ())] == ["cardiomyopathy"]


def test_a_labels_folder_can_switch_trimming_on_over_the_shipped_table(tmp_path):
    """Trimming is off for diseases in the shipped settings (the datasets draw their modifiers differently); a
    folder's own settings turn it on, with the shipped biomedical table found by name."""
    text = "Patients with severe heart failure were treated ."
    ent = Entity("severe heart failure", 14, 34, "DISEASE", None, 0.5)
    assert [e.text for e in run_stages(text, [ent], ("phrase_bounds",))] == ["severe heart failure"]
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "phrase_bounds.yaml").write_text(
        "counts: biomedical_phrases.npz\ntrim_below: 0.02\nextend_from: 0.3\nmin_modifier_count: 50\n")
    assert [e.text for e in run_stages(text, [ent], ("phrase_bounds",), str(tmp_path))] == ["heart failure"]


def _degree(words: DegreeWords, *names: str) -> list[str]:
    text = "He had " + " and ".join(names) + " ."
    ents = [Entity(n, text.index(n), text.index(n) + len(n), "DISEASE", None, 0.5) for n in names]
    out = degree_modifiers(text, ents, words=words)
    assert all(text[e.start : e.end] == e.text for e in out)
    return [e.text for e in out]


def test_degree_modifiers_drop_the_words_the_corpus_grades():
    """"severe" follows "very" in 3 of its 45 uses: a degree, so it goes; "dilated" never does; "severe combined
    immunodeficiency" is tied as a name and stays whole; a one-word entity and a word before a connector stay."""
    corpus = CORPUS + ["The pain was very severe."] * 3 + ["Severe combined immunodeficiency was found."] * 10
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    words = DegreeWords(counts, ("very",), min_share=0.05, min_count=10, keep_tie=0.3)
    assert words.follows(("severe",)) and not words.follows(("dilated",)) and not words.follows(("heart",))
    assert _degree(words, "severe heart failure", "dilated cardiomyopathy", "severe combined immunodeficiency",
                   "severe", "severe - heart failure") == [
        "heart failure", "dilated cardiomyopathy", "severe combined immunodeficiency", "severe",
        "severe - heart failure"]
    stricter = DegreeWords(counts, ("very",), min_share=0.1, min_count=10, keep_tie=0.3)
    assert _degree(stricter, "severe heart failure") == ["severe heart failure"]  # (3 of 45 < 0.1)
    rarer = DegreeWords(counts, ("very",), min_share=0.05, min_count=100, keep_tie=0.3)
    assert _degree(rarer, "severe heart failure") == ["severe heart failure"]  # (seen too rarely to judge)


def test_degree_modifiers_with_the_shipped_table():
    """The biomedical corpus grades "severe" and "mild" but not "acute", "chronic" or "dilated" (which BC5CDR and
    NCBI-disease keep in names)."""
    text = "He had severe heart failure , mild hypertension , acute renal failure and dilated cardiomyopathy ."
    names = ("severe heart failure", "mild hypertension", "acute renal failure", "dilated cardiomyopathy")
    ents = [Entity(n, text.index(n), text.index(n) + len(n), "DISEASE", None, 0.5) for n in names]
    out = run_stages(text, ents, ("degree_modifiers",))
    assert [e.text for e in out] == ["heart failure", "hypertension", "acute renal failure", "dilated cardiomyopathy"]
    assert [e.stages for e in out] == [("degree_modifiers",)] * 2 + [()] * 2


@pytest.mark.parametrize("engine", [("--engine", "student", "--model", "uner-student-bio"),
                                    ("--engine", "teacher", "--model", "uner-bio", "--explain")])
def test_the_biomedical_taggers_complete_names_from_the_corpus(tmp_path, engine):
    """End to end with the shipped biomedical models and the shipped phrase table: "dilated cardiomyopathy" whole
    (the teacher tags "cardiomyopathy" alone without the stage), "5 - FU" whole, "heart failure" without "severe"
    (the teacher tags "severe heart failure" without ``degree_modifiers``); the student, taught on the stages'
    output, draws these edges itself."""
    src = tmp_path / "in.txt"
    src.write_text("Patients with severe heart failure received 5 - FU and developed dilated cardiomyopathy .\n")
    out = uner("tag", str(src), *engine)
    assert out.returncode == 0, out.stderr
    ents = {e["text"]: e for e in json.loads(out.stdout)["entities"]}
    assert ents["dilated cardiomyopathy"]["type"] == "DISEASE"
    assert ents["heart failure"]["type"] == "DISEASE" and "severe heart failure" not in ents
    if "student" in engine:
        assert ents["5 - FU"]["type"] == "DRUG" and "FU" not in ents
    else:
        assert "phrase_bounds" in ents["dilated cardiomyopathy"]["stages"]
        assert "degree_modifiers" in ents["heart failure"]["stages"]


def test_hyphen_compounds_join_what_the_corpus_writes_as_one_word():
    """"Wiskott" comes before "- Aldrich" in 4 of its 5 uses: one compound, typed as its head (the right-hand
    entity); "morphine" and "naloxone" are written side by side once in 10: two names; a word between the two, or a
    pair the corpus never writes, stays apart."""
    corpus = (["Wiskott-Aldrich syndrome was found."] * 4 + ["Wiskott was a doctor."] + ["Aldrich syndrome."] * 2
              + ["Morphine - naloxone was given."] + ["Morphine was given."] * 9 + ["Naloxone was given."] * 9)
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=1, n_frequent=0)
    text = "Wiskott - Aldrich syndrome , morphine - naloxone , Wiskott and Aldrich syndrome , ataxia - telangiectasia ."
    names = [("Wiskott", "PERSON"), ("Aldrich syndrome", "DISEASE"), ("morphine", "DRUG"), ("naloxone", "DRUG"),
             ("Wiskott", "PERSON"), ("Aldrich syndrome", "DISEASE"), ("ataxia", "DISEASE"),
             ("telangiectasia", "DISEASE")]
    ents, at = [], 0
    for name, type_ in names:
        at = text.index(name, at)
        ents.append(Entity(name, at, at + len(name), type_, None, 0.5))
        at += len(name)
    out = hyphen_compounds(text, ents, words=CompoundWords(counts, join_from=0.2))
    assert [(e.text, e.type) for e in out] == [
        ("Wiskott - Aldrich syndrome", "DISEASE"), ("morphine", "DRUG"), ("naloxone", "DRUG"), ("Wiskott", "PERSON"),
        ("Aldrich syndrome", "DISEASE"), ("ataxia", "DISEASE"), ("telangiectasia", "DISEASE")]
    assert all(text[e.start : e.end] == e.text for e in out)
    assert len(hyphen_compounds(text, ents, words=CompoundWords(counts, join_from=0.05))) == 6  # (1 of 10 ≥ 0.05)
    assert len(hyphen_compounds(text, ents, words=CompoundWords(counts, join_from=0.9))) == 8  # (4 of 5 < 0.9)


def test_the_biomedical_student_joins_hyphenated_compounds():
    """End to end with the shipped student and phrase table: the two diseases whole (the student, taught on the
    stage's output, no longer tags "ataxia", "Wiskott" or "Aldrich syndrome" alone, and the stage leaves them so)."""
    text = ("The gene defective in ataxia - telangiectasia and in Wiskott - Aldrich syndrome ; patients received "
            "prostigmine - morphine .")
    without = Student.from_pretrained("uner-student-bio", stages=[s for s in BIO_STAGES if s != "hyphen_compounds"])
    [off], [on] = without.tag([text]), Student.from_pretrained("uner-student-bio").tag([text])
    assert [e.text for e in off] == [e.text for e in on]
    on = {e.text: e for e in on}
    assert on["ataxia - telangiectasia"].type == on["Wiskott - Aldrich syndrome"].type == "DISEASE"
    assert not {"ataxia", "Wiskott", "Aldrich syndrome"} & on.keys()


def test_class_nouns_drop_what_the_corpus_writes_after_a_determiner():
    """"dose" follows "a" or "the" in 8 of its 14 uses: a class, so it goes; "morphine" never does; an entity of a
    type the stage does not judge stays, and so does a term seen too rarely to judge."""
    corpus = ["A dose of morphine was given."] * 5 + ["The dose was high."] * 3 + ["Morphine dose was low."] * 6
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    text = "The dose of morphine and the dose ."
    ents = [Entity("dose", 4, 8, "DRUG", None, 0.5), Entity("morphine", 12, 20, "DRUG", None, 0.5),
            Entity("dose", 29, 33, "GENE", None, 0.5)]
    words = ClassWords(counts, ("a", "the"), min_share=0.5, min_count=10, types=("DRUG",))
    assert words.follows(("dose",)) and not words.follows(("morphine",))
    assert [(e.text, e.type) for e in class_nouns(text, ents, words=words)] == [("morphine", "DRUG"), ("dose", "GENE")]
    stricter = ClassWords(counts, ("a", "the"), min_share=0.6, min_count=10, types=("DRUG",))
    assert len(class_nouns(text, ents, words=stricter)) == 3  # (8 of 14 < 0.6)
    rarer = ClassWords(counts, ("a", "the"), min_share=0.5, min_count=20, types=("DRUG",))
    assert len(class_nouns(text, ents, words=rarer)) == 3  # (seen too rarely to judge)


def test_class_nouns_drop_a_one_word_substance_the_corpus_writes_after_its_members_names():
    """"inhibitor" follows a content word ("aromatase", "ace") in all its 10 uses, "morphine" in 2 of 12: with DRUG
    among the modified types the first goes; a disease and a name of two words are not judged so."""
    corpus = (["An aromatase inhibitor was given."] * 6 + ["The ACE inhibitor helped."] * 4
              + ["Morphine was given."] * 10 + ["Oral morphine helped."] * 2)
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    text = "The inhibitor , morphine , the inhibitor and aromatase inhibitor ."
    ents = [Entity("inhibitor", 4, 13, "DRUG", None, 0.5), Entity("morphine", 16, 24, "DRUG", None, 0.5),
            Entity("inhibitor", 31, 40, "DISEASE", None, 0.5), Entity("aromatase inhibitor", 45, 64, "DRUG", None, 0.5)]
    words = ClassWords(counts, ("a", "the"), 0.5, 5, ("DRUG", "DISEASE"), modified_types=("DRUG",), min_modified=0.7)
    assert [e.start for e in class_nouns(text, ents, words=words)] == [16, 31, 45]
    assert len(class_nouns(text, ents, words=replace(words, modified_types=()))) == 4
    assert len(class_nouns(text, ents, words=replace(words, min_count=20))) == 4  # (seen too rarely to judge)


def test_class_nouns_at_the_edges_of_a_substance_go():
    """"dose" is a class noun (10 of 12 uses after "a" or "the"): "dose methylprednisolone" and "morphine dose" keep
    the substance (tie 2 / 12 < 0.2); a disease keeps it (not an edge type); where the corpus ties the edge word to the
    rest as a name (tie ≥ keep_tie) it stays."""
    corpus = (["A dose of methylprednisolone was given."] * 5 + ["The dose was high."] * 5
              + ["Morphine dose was low."] * 2 + ["Morphine was given."] * 20)
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    text = "High dose methylprednisolone , morphine dose and dose toxicity ."
    ents = [Entity("dose methylprednisolone", 5, 28, "DRUG", None, 0.5), Entity("morphine dose", 31, 44, "DRUG", None, 0.5),
            Entity("dose toxicity", 49, 62, "DISEASE", None, 0.5)]
    words = ClassWords(counts, ("a", "the"), 0.5, 10, ("DRUG", "DISEASE"), edge_types=("DRUG",), keep_tie=0.2)
    out = class_nouns(text, ents, words=words)
    assert [(e.text, e.start, e.end) for e in out] == [("methylprednisolone", 10, 28), ("morphine", 31, 39),
                                                      ("dose toxicity", 49, 62)]
    assert all(text[e.start : e.end] == e.text for e in out)
    tied = replace(words, keep_tie=0.1)
    assert [e.text for e in class_nouns(text, ents[:2], words=tied)] == ["methylprednisolone", "morphine dose"]
    assert [e.text for e in class_nouns(text, ents[:2], words=replace(words, edge_types=()))] == \
        ["dose methylprednisolone", "morphine dose"]


def test_class_nouns_judge_a_plural_by_its_singular():
    """"dose" follows an article in 8 of its 10 uses, "doses" never (a plural needs none): with DRUG among the
    plural types "doses" goes as "dose" would; a disease plural stays (not a plural type), and so does a plural whose
    singular the corpus does not know."""
    corpus = ["A dose was given."] * 5 + ["The dose was high."] * 3 + ["Dose matters."] * 2 + ["Doses were high."] * 10
    counts = PhraseCounts.mine(corpus, max_n=4, min_count=2, n_frequent=0)
    text = "Doses , doses , tumors and morphines ."
    ents = [Entity("Doses", 0, 5, "DRUG", None, 0.5), Entity("doses", 8, 13, "DISEASE", None, 0.5),
            Entity("tumors", 16, 22, "DRUG", None, 0.5), Entity("morphines", 27, 36, "DRUG", None, 0.5)]
    words = ClassWords(counts, ("a", "the"), 0.5, 5, ("DRUG", "DISEASE"), plural_types=("DRUG",),
                       plural_endings=(("ies", "y"), ("ss", "ss"), ("s", "")))
    assert not words.follows(("doses",)) and words.follows(("dose",))
    assert [e.text for e in class_nouns(text, ents, words=words)] == ["doses", "tumors", "morphines"]
    assert len(class_nouns(text, ents, words=replace(words, plural_types=()))) == 4
    assert [words.singular(t) for t in (("doses",), ("therapies",), ("class",), ("high", "doses"), ("5s",))] == [
        ("dose",), ("therapy",), ("class",), ("high", "dose"), ("5s",)]


def test_the_biomedical_student_leaves_out_class_nouns_itself():
    """End to end with the shipped student and tables: the student, taught on the teacher's output with
    ``class_nouns``, no longer runs the stage (issue 77) and tags no class noun itself ("Higher doses", "drugs",
    "single dose", "the drug"; "antagonist", which the corpus writes after a content word in 75 % of its uses), while
    "morphine", "seizures" and "cocaine" stay."""
    student = Student.from_pretrained("uner-student-bio")
    assert "class_nouns" not in student.stages and "class_nouns" in BIO_STAGES
    texts = ["Higher doses of these drugs increased the risk of seizures in patients given morphine .",
             "A single dose of the drug reduced the risk of seizures in patients treated with morphine .",
             "The inhibitor blocked morphine analgesia in rats .", "This antagonist reversed the effect of cocaine ."]
    found = [{e.text: e.type for e in ents} for ents in student.tag(texts)]
    for tagged in found[:2]:
        assert tagged["morphine"] == "DRUG" and tagged["seizures"] == "DISEASE"
    assert not {"drugs", "Higher doses", "single dose", "dose", "drug", "inhibitor", "antagonist"} & set().union(*found)
    assert found[3]["cocaine"] == "DRUG"


def test_a_verdict_on_words_and_one_on_an_entity_are_kept_apart():
    """A labels folder's own types may be lower-case: an entity's verdict ("morphine" of the type "dose": a
    member, kept whole) must not answer for the word sequence "dose morphine" (never written after "a")."""
    counts = PhraseCounts.mine(["A dose of morphine was given."] * 12, max_n=4, min_count=2, n_frequent=0)
    words = ClassWords(counts, ("a",), min_share=0.5, min_count=10, types=("dose",))
    assert words.member("dose", "morphine") == (0, 8)
    assert words.follows(("dose", "morphine")) is False


def test_the_verdicts_kept_are_bounded(monkeypatch):
    """A long run meets ever more entity texts: the verdicts kept stay few, and a verdict dropped is found again."""
    monkeypatch.setattr("uner.vocab.memo.LIMIT", 2)
    counts = PhraseCounts.mine(["A dose of morphine was given."] * 12, max_n=4, min_count=2, n_frequent=0)
    words = ClassWords(counts, ("a",), min_share=0.5, min_count=10, types=("DRUG",))
    verdicts = [words.follows((w,)) for w in ("dose", "morphine", "was", "given", "dose", "of", "dose")]
    assert verdicts == [True, False, False, False, True, False, True] and len(words._judged) <= 2


def test_the_biomedical_teacher_leaves_out_class_nouns(tmp_path):
    """End to end with the shipped biomedical model and table: "(single) dose" and "drug" are no drugs, "risk" no
    disease; "morphine" and "seizures" stay. Without the stage the teacher tags them."""
    engine = ("--engine", "teacher", "--model", "uner-bio", "--explain")
    src = tmp_path / "in.txt"
    src.write_text("A single dose of the drug reduced the risk of seizures in patients treated with morphine .\n")
    found = {}
    assert "class_nouns" in BIO_STAGES
    for stages in (("--stages", ",".join(NO_CLASS_NOUNS)), ()):
        out = uner("tag", str(src), *engine, *stages)
        assert out.returncode == 0, out.stderr
        found[stages] = {e["text"]: e["type"] for e in json.loads(out.stdout)["entities"]}
    before, after = found.values()
    # ("single dose" or, its modifier trimmed by phrase_bounds, "dose")
    assert before.keys() & {"single dose", "dose"}
    assert not after.keys() & {"single dose", "dose", "drug"}
    assert after["morphine"] == "DRUG" and after["seizures"] == "DISEASE"
    assert after.keys() == before.keys() - {"single dose", "dose", "drug", "risk"}


def test_the_biomedical_student_names_a_substance_without_its_dose():
    """End to end with the shipped student and table: "dose methylprednisolone" and "tacrolimus dose" are the drugs
    alone (the student, taught on the output of ``class_nouns``, leaves the dose out itself)."""
    text = "Patients received high dose methylprednisolone and the tacrolimus dose was lowered ."
    without = Student.from_pretrained("uner-student-bio", stages=NO_CLASS_NOUNS)
    [off], [on] = without.tag([text]), Student.from_pretrained("uner-student-bio").tag([text])
    assert [e.text for e in off] == [e.text for e in on] == ["methylprednisolone", "tacrolimus"]
    assert all(e.type == "DRUG" for e in on)


def test_uner_phrases_writes_the_table_the_stage_reads(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    out = uner("phrases", str(corpus), "-o", str(tmp_path / "t.npz"), "--max-n", "4", "--min-count", "2")
    assert out.returncode == 0, out.stderr
    assert "2-grams" in out.stdout
    assert PhraseCounts.load(tmp_path / "t.npz").count(["heart", "failure"]) == 14


@pytest.mark.parametrize("args, message", [
    (["missing.txt", "-o", "t.npz"], "missing.txt: no such corpus file"),
    (["CORPUS", "-o", "no/such/folder/t.npz"], "no/such/folder: no such folder for --out"),
])
def test_uner_phrases_reports_bad_paths_in_one_line(tmp_path, args, message):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("heart failure\n")
    args = [str(corpus) if a == "CORPUS" else str(tmp_path / a) if a.endswith(".npz") else a for a in args]
    out = uner("phrases", *args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
