"""The typed lexicon learned from a tagged corpus (``uner.vocab.lexicon_table``, ``uner lexicon``) and the ``lexicon``
stage that finds its terms where one sentence missed them."""

from __future__ import annotations

import json

import pytest

from tests.helpers import tagged_record, uner
from uner.tagger import Entity, run_stages
from uner.vocab.lexicon_table import Lexicon


CORPUS = [
    tagged_record("Dobutamine was infused .", ("Dobutamine", "DRUG")),
    tagged_record("After dobutamine , heart failure improved .", ("dobutamine", "DRUG"), ("heart failure", "DISEASE")),
    tagged_record("Heart failure and dobutamine - 5 levels .", ("Heart failure", "DISEASE"), ("dobutamine", "DRUG")),
    tagged_record("The dose was low ; the dose was high .", ("dose", "DRUG")),  # tagged in 1 of its 2 occurrences
    tagged_record("A dose of dobutamine .", ("dose", "DISEASE"), ("dobutamine", "DISEASE")),
]


def _lexicon(records=CORPUS, **kw) -> Lexicon:
    return Lexicon.build(lambda: ((r["text"], r["entities"]) for r in records), **kw)


def test_counts_tags_occurrences_and_the_type_share():
    terms = _lexicon().terms
    dob = terms[("dobutamine",)]  # cased or not, one term: its most frequent written form
    assert (dob.type, dob.tagged, dob.seen, dob.share) == ("DRUG", 4, 4, 0.75) and dob.rate == 1.0
    assert terms[("heart", "failure")].rate == 1.0 and terms[("heart", "failure")].type == "DISEASE"
    dose = terms[("dose",)]
    assert (dose.tagged, dose.seen, dose.share) == (2, 3, 0.5) and dose.rate == 2 / 3
    assert ("dose",) not in _lexicon(min_tagged=3).terms
    sure = _lexicon().select(min_tagged=2, min_rate=0.6, min_share=0.7).terms  # "dose": its tags disagree
    assert set(sure) == {("dobutamine",), ("heart", "failure")}


def test_finds_the_longest_terms_left_to_right():
    chf = tagged_record("Congestive heart failure .", ("Congestive heart failure", "DISEASE"))
    table = _lexicon(CORPUS + [chf] * 2)
    text = "In congestive heart failure , Dobutamine and heart failure ."
    assert [(text[s:e], t.type) for s, e, t in table.find(text)] == [
        ("congestive heart failure", "DISEASE"), ("Dobutamine", "DRUG"), ("heart failure", "DISEASE")]


def test_table_round_trip_and_bad_rows(tmp_path):
    table = _lexicon()
    path = tmp_path / "lexicon.tsv"
    table.save(path)
    assert Lexicon.load(path) == table
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines[:2], "cisplatin\tDRUG\t\tmany\t3\t1.0", *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lexicon.tsv:3: expected counts in 'tagged' and 'seen'"):
        Lexicon.load(path)
    path.write_text("\n".join([*lines[:2], "cisplatin\tDRUG\t3\t3\t1.0"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lexicon.tsv:3: expected 6 tab-separated fields"):
        Lexicon.load(path)
    path.write_text("term\ttype\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lexicon.tsv:1: expected the header"):
        Lexicon.load(path)


def _stage_folder(tmp_path, min_share: float = 0.7) -> str:
    (tmp_path / "stages").mkdir(parents=True)
    _lexicon().save(tmp_path / "stages" / "lexicon.tsv")
    (tmp_path / "stages" / "lexicon.yaml").write_text(
        f"table: lexicon.tsv\nmin_tagged: 2\nmin_rate: 0.6\nmin_share: {min_share}\n", encoding="utf-8")
    return str(tmp_path)


def test_the_stage_adds_the_terms_no_entity_holds(tmp_path):
    folder = _stage_folder(tmp_path)
    text = "Dobutamine in severe heart failure at a low dose ."
    held = Entity("severe heart failure", 14, 34, "DISEASE", None, 0.6)
    out = run_stages(text, [held], ["lexicon"], folder)
    assert [(e.text, e.type, e.stages) for e in out] == [
        ("Dobutamine", "DRUG", ("lexicon",)), ("severe heart failure", "DISEASE", ())]  # "dose": typed two ways
    assert out[0].score == 0.75
    assert run_stages(text, [held], ["lexicon"], _stage_folder(tmp_path / "b", min_share=0.5))[-1].text == "dose"


def test_the_stage_drops_the_strings_its_corpus_rarely_tags(tmp_path):
    """"protein" is tagged in 1 of its 4 occurrences (a common word), "p53" in both of its: with ``below`` 0.4 a
    gene "protein" goes, "p53" stays, and so does a "protein" of a type not listed; with ``below`` 0.2 all stay."""
    records = [tagged_record("The protein binds p53 .", ("protein", "GENE"), ("p53", "GENE")),
               tagged_record("This protein and that protein bind a protein ."),
               tagged_record("p53 rose .", ("p53", "GENE"))]
    (tmp_path / "stages").mkdir()
    _lexicon(records, min_tagged=1).save(tmp_path / "stages" / "lexicon.tsv")
    (tmp_path / "stages" / "rarely_tagged.yaml").write_text("table: lexicon.tsv\nbelow: 0.4\ntypes: [GENE]\n",
                                                            encoding="utf-8")
    text = "The protein and p53 and a protein ."
    ents = [Entity("protein", 4, 11, "GENE", None, 0.5), Entity("p53", 16, 19, "GENE", None, 0.5),
            Entity("protein", 26, 33, "DRUG", None, 0.5)]
    out = run_stages(text, ents, ["rarely_tagged"], str(tmp_path))
    assert [(e.text, e.type) for e in out] == [("p53", "GENE"), ("protein", "DRUG")]
    keep = tmp_path / "keep" / "stages"
    keep.mkdir(parents=True)
    (keep / "lexicon.tsv").write_bytes((tmp_path / "stages" / "lexicon.tsv").read_bytes())
    (keep / "rarely_tagged.yaml").write_text("table: lexicon.tsv\nbelow: 0.2\ntypes: [GENE]\n", encoding="utf-8")
    assert run_stages(text, ents, ["rarely_tagged"], str(keep.parent)) == ents  # (1 of 4 is not below 0.2)


def test_a_symbol_written_with_a_capital_is_no_common_word():
    """"IgG" is tagged in 1 of its 3 occurrences (the others inside "IgG antibodies"), as rarely as "protein": with
    ``name_letters`` 3 the symbol is not judged and stays, while "protein" and the one-letter piece "B" (1 of 3) go;
    without ``name_letters`` all three are judged."""
    records = [tagged_record("IgG and protein and B rose .", ("IgG", "GENE"), ("protein", "GENE"), ("B", "GENE")),
               tagged_record("IgG antibodies bind protein , B and protein ; IgG antibodies bind B .",
                             ("IgG antibodies", "GENE")),
               tagged_record("The protein .")]
    table = _lexicon(records, min_tagged=1)
    assert [table.terms[k].rate < 0.4 for k in [("igg",), ("protein",), ("b",)]] == [True, True, True]
    assert set(table.rarely_tagged(0.4, name_letters=3).terms) == {("protein",), ("b",)}
    assert set(table.rarely_tagged(0.4).terms) == {("igg",), ("protein",), ("b",)}


def test_the_biomedical_teacher_keeps_a_symbol_its_corpus_tags_inside_longer_names():
    """End to end with the shipped teacher and table: "Ras" (tagged in 39 % of its corpus occurrences, often inside
    "Ras protein") is the gene of "Ras activation", and "IgG", "IgM" (28 %, 22 %) genes of a list; judged as common
    words by ``rarely_tagged`` they went."""
    from uner.tagger import Tagger

    texts = ["Both carbachol ( 100 microM ) and EGF ( 10 nM ) induced Ras activation .",
             "The content of IgA , IgG and IgM was lower in these patients ."]
    ents = list(Tagger.from_pretrained("uner-bio").tag(texts))
    assert ("Ras", "GENE") in [(e.text, e.type) for e in ents[0]]
    assert {("IgG", "GENE"), ("IgM", "GENE")} <= {(e.text, e.type) for e in ents[1]}


def test_the_biomedical_student_leaves_out_the_words_its_corpus_rarely_tags():
    """End to end with the shipped student and table: "protein", "promoter" and "transcription" are no genes, "p53
    gene" is; the student, taught on the output of ``rarely_tagged`` and ``bare_heads``, leaves them out itself, and
    the stages leave it so."""
    from tests.helpers import BIO_STAGES
    from uner.tagger import Student

    text = "The protein binds to the promoter of the p53 gene and activates transcription ."
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in BIO_STAGES
                                                                        if s not in ("rarely_tagged", "bare_heads")))
    on = next(Student.from_pretrained("uner-student-bio").tag([text]))
    assert [(e.text, e.type) for e in next(without.tag([text]))] == [(e.text, e.type) for e in on] == [
        ("p53 gene", "GENE")]


def test_cli_builds_the_table_and_names_a_bad_line(tmp_path):
    tagged = tmp_path / "tagged.jsonl"
    tagged.write_text("".join(json.dumps(r) + "\n" for r in CORPUS) + '{"id": "x", "error": "too long"}\n',
                      encoding="utf-8")
    out = tmp_path / "lexicon.tsv"
    res = uner("lexicon", str(tagged), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert Lexicon.load(out) == _lexicon()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CORPUS[0]) + "\n" + '{"text": "x", "entities": [{"start": 0}]}\n', encoding="utf-8")
    res = uner("lexicon", str(bad), "--out", str(tmp_path / "other.tsv"))
    assert res.returncode == 2 and f"{bad}:2: expected a record of uner tag's JSONL output" in res.stderr
    assert not (tmp_path / "other.tsv").exists()


def test_the_biomedical_student_finds_a_disease_its_sentence_missed():
    """The shipped biomedical student misses "SAH" in this sentence; its corpus tagged it as a disease often
    enough (the shipped table) for the ``lexicon`` stage to add it."""
    from tests.helpers import STUDENT_BIO_STAGES
    from uner.tagger import Student

    text = "Ketoprofen but not acetaminophen impaired platelet function in patients with SAH ."
    student = Student.from_pretrained("uner-student-bio")
    assert student.stages == STUDENT_BIO_STAGES
    ents = {e.text: e for e in next(student.tag([text]))}
    assert ents["SAH"].type == "DISEASE" and ents["SAH"].stages == ("lexicon",)
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in STUDENT_BIO_STAGES if s != "lexicon"))
    assert "SAH" not in {e.text for e in next(without.tag([text]))}


def test_a_term_near_the_end_of_a_text_is_seen_once():
    records = [tagged_record("Heart failure and shock .", ("Heart failure and shock", "DISEASE")),
               tagged_record("Heart failure and shock .", ("Heart failure and shock", "DISEASE")),
               tagged_record("It was heart failure", ("heart failure", "DISEASE")),
               tagged_record("Again heart failure", ("heart failure", "DISEASE"))]
    terms = _lexicon(records).terms
    assert terms[("heart", "failure")].seen == 4 and terms[("heart", "failure", "and", "shock")].seen == 2
