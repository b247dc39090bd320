"""The ``abbreviations`` stage: Schwartz–Hearst definitions, "long form (SF)", and the short form typed as its long
form's entity — retyped, made whole or added — in every engine; ``run_stages`` with a stage that adds entities."""

from __future__ import annotations

import pytest

from uner.tagger import Entity, Student, Tagger, TaggerConfig, run_in_context, run_stages
from uner.tagger.stages.abbreviations import abbreviations, find_definitions


def _defs(text: str) -> list[tuple[str, str]]:
    out = []
    for d in find_definitions(text):
        assert text[d.short_start : d.short_end] == d.short
        out.append((d.short, text[d.long_start : d.long_end]))
    return out


@pytest.mark.parametrize("text, expected", [
    ("Treatment with 5-fluorouracil (5-FU) was stopped.", [("5-FU", "5-fluorouracil")]),
    ("Serum tumour necrosis factor (TNF) rose.", [("TNF", "tumour necrosis factor")]),
    # the shortest long form that holds the letters in order, each whole word
    ("5-fluorouracil (5-FU) and leucovorin (LV) were given.", [("5-FU", "5-fluorouracil"), ("LV", "leucovorin")]),
    ("patients given sodium valproate (VPA) daily", [("VPA", "valproate")]),
    # tokenized text: spaced hyphens and brackets; the short form's digits and hyphens
    ("treated with 5 - fluorouracil ( 5 - FU ) daily", [("5 - FU", "5 - fluorouracil")]),
    ("with interleukin-2 (IL-2) and tumor growth factor - beta1 ( TGF - beta1 )",
     [("IL-2", "interleukin-2"), ("TGF - beta1", "tumor growth factor - beta1")]),
    ("Wiskott - Aldrich syndrome ( WAS ) and ataxia - telangiectasia ( A - T )",
     [("WAS", "Wiskott - Aldrich syndrome"), ("A - T", "ataxia - telangiectasia")]),
    # nested brackets: the short form stops at an inner bracket, ";" or ","; a long form may hold a bracket pair
    ("interleukin 6 (IL-6 (human)) and interleukin-2 (IL-2; ref. 3)", [("IL-6", "interleukin 6"),
                                                                      ("IL-2", "interleukin-2")]),
    ("( insulin - dependent ) diabetes mellitus ( IDDM ) ( 5 )",
     [("IDDM", "( insulin - dependent ) diabetes mellitus")]),
    ("cyclosporin A [CsA] was stopped", [("CsA", "cyclosporin A")]),
    # not definitions: letters not found in order, the first not opening a word
    ("the dose (FU) was high", []),
    ("in the liver (FU) today", []),
    ("blood flow (FU) was measured", []),
    # not short forms: numbers, formulas, more than two words, too long, lower case, a name or country in brackets
    ("ketoprofen , 100 mg ( n = 9 ) and ( P < 0.05 ) with 20 ( 15 %)", []),
    ("given ketoprofen ( ketoprofen group , n = 9 )", []),
    ("items (i) and (ii) of the intraperitoneal injection (ip)", []),
    ("Armen Martirosyan ( Armenia ) 16.57 ; Al Unser Jr ( U.S. ) 54.683", []),
    ("a very long abbreviation form (AVERYLONGABBR)", []),
    # the long form stays in the short form's sentence
    ("Tumours were necrotic. Factor X (TNF) rose.", []),
    # the short form is no word of its long form
    ("the HIV virus (HIV) spread", []),
])
def test_definitions(text, expected):
    assert _defs(text) == expected


def _ent(text: str, part: str, type_: str, nth: int = 0, **kw) -> Entity:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return Entity(part, start, start + len(part), type_, kw.pop("subtype", None), kw.pop("score", 0.5), **kw)


CHF = "Patients with congestive heart failure ( CHF ) took digoxin ; CHF worsened in 5-CHF-treated rats ."


def test_the_short_form_takes_the_long_forms_type_and_subtype_everywhere_and_missed_ones_are_added():
    lf = _ent(CHF, "congestive heart failure", "DISEASE", subtype="HEART_DISEASE", score=0.8)
    wrong = _ent(CHF, "CHF", "GENE", score=0.4)
    other = _ent(CHF, "digoxin", "DRUG")
    out = run_stages(CHF, [lf, wrong, other], ("abbreviations",))
    assert [(e.text, e.type, e.subtype) for e in out] == [
        ("congestive heart failure", "DISEASE", "HEART_DISEASE"), ("CHF", "DISEASE", "HEART_DISEASE"),
        ("digoxin", "DRUG", None), ("CHF", "DISEASE", "HEART_DISEASE")]  # (not in "5-CHF-treated")
    assert out[0] is lf and out[2] is other and out[1].start == wrong.start
    assert out[1].stages == ("abbreviations",) and out[3].stages == ("abbreviations",)
    assert out[3].score == 0.8 and CHF[out[3].start : out[3].end] == "CHF" and out[3].start > other.start


def test_the_long_forms_head_types_it_unless_a_preposition_comes_before():
    text = "levodopa - induced dyskinesias ( LID ) ; Organisation for Security and Cooperation in Europe ( OSCE )"
    ents = [_ent(text, "levodopa", "DRUG"), _ent(text, "dyskinesias", "DISEASE"), _ent(text, "LID", "GENE"),
            _ent(text, "Europe", "LOCATION"), _ent(text, "OSCE", "ORGANIZATION")]
    out = abbreviations(text, ents)
    assert [(e.text, e.type) for e in out] == [("levodopa", "DRUG"), ("dyskinesias", "DISEASE"), ("LID", "DISEASE"),
                                               ("Europe", "LOCATION"), ("OSCE", "ORGANIZATION")]
    assert out[4] is ents[4]


def test_a_short_form_is_left_as_tagged_when_its_long_form_is_no_entity():
    text = "electrocardiographic ( ECG ) monitoring showed ECG changes"
    ecg = [_ent(text, "ECG", "GENE"), _ent(text, "ECG", "GENE", nth=1)]
    assert abbreviations(text, ecg) == ecg and all(a is b for a, b in zip(abbreviations(text, ecg), ecg))
    assert abbreviations("no definitions here", []) == []


def test_pieces_of_a_short_form_become_the_whole_and_entities_holding_it_stay():
    text = "5 - fluorouracil ( 5 - FU ) then 5 - FU doses and Tac ( tacrolimus ) with FU"
    fu = _ent(text, "FU", "DRUG")  # the "FU" of "( 5 - FU )"
    ents = [_ent(text, "fluorouracil", "DRUG"), fu, _ent(text, "FU doses", "GENE"), _ent(text, "FU", "GENE", nth=2)]
    out = abbreviations(text, ents)
    assert [(e.text, e.type) for e in out] == [("fluorouracil", "DRUG"), ("5 - FU", "DRUG"), ("FU doses", "GENE"),
                                               ("FU", "GENE")]
    assert text[out[1].start : out[1].end] == "5 - FU"


def test_a_short_form_defined_twice_takes_the_nearest_definition_before_it():
    text = "Cyclophosphamide ( CP ) is given ; CP rats ; later cold - pressor ( CP ) pain , CP again"
    ents = [_ent(text, "Cyclophosphamide", "DRUG"), _ent(text, "pressor", "DISEASE")]
    out = abbreviations(text, ents)
    assert [(e.text, e.type) for e in out if e.text == "CP"] == [("CP", "DRUG"), ("CP", "DRUG"), ("CP", "DISEASE"),
                                                                 ("CP", "DISEASE")]


def test_run_stages_merges_a_stage_that_adds_or_drops_with_the_rejected_candidates():
    text = "sodium valproate ( VPA ) in children ; VPA levels"
    lf = _ent(text, "sodium valproate", "DRUG")
    rejected_vpa = _ent(text, "VPA", "PERSON", score=0.1, kept=False)  # a candidate the tagger rejected
    rejected_kids = _ent(text, "children", "PERSON", score=0.1, kept=False)
    out = run_stages(text, [lf, rejected_vpa, rejected_kids], ("abbreviations",))
    assert [(e.text, e.type, e.kept) for e in out] == [("sodium valproate", "DRUG", True), ("VPA", "DRUG", True),
                                                       ("children", "PERSON", False), ("VPA", "DRUG", True)]
    assert out[0] is lf and out[2] is rejected_kids
    assert [e.stages for e in out] == [(), ("abbreviations",), (), ("abbreviations",)]

    def drop_second(_text, ents):
        return [ents[0]]
    from uner.tagger.stages import Stage
    from uner.tagger.stages.registry import STAGES
    STAGES["drop_second"] = Stage("drop_second", drop_second)
    try:
        assert run_stages(text, out, ("drop_second",)) == [lf, rejected_kids]
    finally:
        del STAGES["drop_second"]


DOC = ("Sodium valproate (VPA) was given to children with epilepsy, and VPA levels were measured. "
       "Patients with congestive heart failure (CHF) were enrolled. CHF was treated with digoxin.")


@pytest.fixture(scope="module")
def bio_teacher():
    return Tagger.from_pretrained("uner-bio", device="cpu")


def _types(ents) -> dict[tuple[str, int], str]:
    return {(e.text, e.start): e.type for e in ents}


def test_the_biomedical_domain_runs_the_stage(bio_teacher):
    assert TaggerConfig.for_domain("biomedical").stages[0] == "abbreviations"
    assert bio_teacher.config.stages[0] == "abbreviations"
    assert Student.from_pretrained("uner-student-bio").stages[0] == "abbreviations"


def test_a_defined_short_form_takes_its_long_forms_type_in_the_bio_teacher(bio_teacher):
    [on] = bio_teacher.tag([DOC], explain=True)  # (the biomedical domain's stages)
    got = _types(on)
    vpa = [DOC.index("VPA"), DOC.index("VPA levels")]
    chf = [DOC.index("CHF"), DOC.index("CHF was")]
    assert got[("Sodium valproate", 0)] == "DRUG" and [got.get(("VPA", i)) for i in vpa] == ["DRUG", "DRUG"]
    assert got[("congestive heart failure", DOC.index("congestive"))] == "DISEASE"
    assert [got.get(("CHF", i)) for i in chf] == ["DISEASE", "DISEASE"]
    assert all("abbreviations" in e.stages for e in on if e.text in ("VPA", "CHF"))
    old, bio_teacher.config = bio_teacher.config, TaggerConfig.for_domain("biomedical", stages=())
    try:  # without the stage the masked LM types the short forms by their shapes
        [off] = bio_teacher.tag([DOC])
    finally:
        bio_teacher.config = old
    off = _types(off)
    assert [off.get(("VPA", i)) for i in vpa] != ["DRUG", "DRUG"]
    assert [off.get(("CHF", i)) for i in chf] != ["DISEASE", "DISEASE"]


def test_a_defined_short_form_takes_its_long_forms_type_in_the_bio_student():
    """With the stage both short forms are typed as their long forms; without it the student types the second "CHF"
    otherwise ("VPA" it now types a drug on its own, taught by a teacher that runs the stage)."""
    [on] = Student.from_pretrained("uner-student-bio").tag([DOC])
    [off] = Student.from_pretrained("uner-student-bio", stages=()).tag([DOC])
    on, off = _types(on), _types(off)
    chf = [DOC.index("CHF"), DOC.index("CHF was")]
    assert [on.get(("CHF", i)) for i in chf] == ["DISEASE", "DISEASE"] and on[("VPA", DOC.index("VPA"))] == "DRUG"
    assert [off.get(("CHF", i)) for i in chf] != ["DISEASE", "DISEASE"]


SENTENCES = ["Patients with congestive heart failure ( CHF ) took digoxin .", "CHF worsened .", "Then CHF eased ."]


def _in_context(context: int, starts=frozenset()) -> list[list[tuple[str, str, str]]]:
    lf = _ent(SENTENCES[0], "congestive heart failure", "DISEASE")
    wrong = _ent(SENTENCES[1], "CHF", "GENE")
    out = run_in_context(SENTENCES, [[lf], [wrong], []], ("abbreviations", "person_titles"), None, context, starts)
    return [[(text[e.start : e.end], e.text, e.type) for e in ents] for text, ents in zip(SENTENCES, out)]


def test_a_definition_types_the_next_sentences_of_its_document_within_the_context():
    """A file of sentences: the short form defined in the first is retyped in the second and added in the third, at
    offsets into their own texts — within ``context`` sentences and the same document only."""
    first = [("congestive heart failure", "congestive heart failure", "DISEASE")]
    assert _in_context(20) == [first, [("CHF", "CHF", "DISEASE")], [("CHF", "CHF", "DISEASE")]]
    assert _in_context(1) == [first, [("CHF", "CHF", "DISEASE")], []]  # (two sentences back: out of reach)
    assert _in_context(0) == [first, [("CHF", "CHF", "GENE")], []]
    assert _in_context(20, starts={1}) == [first, [("CHF", "CHF", "GENE")], []]  # (a new document)
    given = [[_ent(SENTENCES[0], "congestive heart failure", "DISEASE")], [_ent(SENTENCES[1], "CHF", "GENE")], []]
    out = list(run_in_context(SENTENCES, given, ("person_titles", "sports_teams"), None, 20))
    assert all(a is b for got, ents in zip(out, given) for a, b in zip(got, ents))  # (no document stage: as given)


def _last_sentence(texts: list[str], given: list[list[Entity]], stages=("abbreviations",)) -> list[tuple[str, str]]:
    *_, last = run_in_context(texts, given, stages, None, 20)
    return [(e.text, e.type) for e in last if e.kept]


def test_a_short_form_defined_twice_takes_the_nearer_typed_definition_in_the_next_sentences():
    """Of two earlier sentences that define "CHF", the later one types it; a later definition whose long form the
    tagger did not tag types nothing and leaves the earlier one in force."""
    texts = ["Patients with congestive heart failure ( CHF ) took digoxin .",
             "We cloned the chicken heart factor ( CHF ) gene .", "CHF worsened ."]
    given = [[_ent(texts[0], "congestive heart failure", "DISEASE")], [_ent(texts[1], "chicken heart factor", "GENE")],
             []]
    assert _last_sentence(texts, given) == [("CHF", "GENE")]
    texts[1] = "Rats with chronic heart failure ( CHF ) were seen ."
    given = [given[0], [], [_ent(texts[2], "CHF", "GENE")]]
    assert _last_sentence(texts, given) == [("CHF", "DISEASE")]
    assert _last_sentence(texts, given, ("abbreviations", "repeated_names")) == [("CHF", "DISEASE")]


NCBI_LIKE = ("Boys\tO\nwith\tO\nadrenoleukodystrophy\tB-Disease\n(\tO\nALD\tB-Disease\n)\tO\nlose\tO\nmyelin\tO\n"
             ".\tO\n\n" + "ALD\tB-Disease\nis\tO\ndue\tO\nto\tO\na\tO\ngene\tO\nin\tO\nXq28\tO\n.\tO\n\n")


@pytest.mark.parametrize("context, marks, found", [(None, "", 2), ("20", "top", 3), ("20", "between", 2)])
def test_uner_eval_reads_a_sentence_alone_unless_told_where_its_document_begins(tmp_path, context, marks, found):
    """The bio student misses "ALD" in a sentence of its own. ``uner eval`` scores each sentence alone by default
    (issue 76: published taggers are scored so); with ``--context`` it reads it after the sentence that defines it,
    where ``-DOCSTART-`` lines mark the document, and not across one."""
    import json

    from tests.helpers import uner

    head, tail = NCBI_LIKE.split("\n\n", 1)
    gold = tmp_path / "ncbi-disease-dev.tsv"
    mark = "-DOCSTART-\tO\n\n"
    gold.write_text((mark if marks == "top" else "") + head + "\n\n" + (mark if marks == "between" else "") + tail)
    res = uner("eval", str(gold), "--engine", "student", "--model", "uner-student-bio", "--mode", "end-to-end",
               "--report", str(tmp_path / "r.json"), *(("--context", context) if context else ()))
    assert res.returncode == 0, res.stderr
    errors = json.loads((tmp_path / "r.json").read_text())["end_to_end"]["errors"]
    assert (errors["correct"], errors["missed"]) == (found, 3 - found)


@pytest.mark.parametrize("context, message", [("-1", "--context: must be 0 or more sentences, not -1"),
                                              ("20", "context 20: {gold} marks no documents (no -DOCSTART- line)")])
def test_uner_eval_rejects_a_negative_context_or_one_that_would_cross_documents(tmp_path, context, message):
    """A gold file without -DOCSTART- lines (BC5CDR, NCBI-disease) cannot say where an abstract ends: ``--context``
    would read the abstract before it (issue 76: NCBI-disease 0.636, each sentence alone 0.541), so it is refused."""
    from typer.testing import CliRunner

    from uner.cli import app

    gold = tmp_path / "ncbi-disease-dev.tsv"
    gold.write_text(NCBI_LIKE)
    res = CliRunner().invoke(app, ["eval", str(gold), "--engine", "student", "--model", "uner-student-bio",
                                   "--context", context])
    assert res.exit_code == 2 and res.stderr.startswith("uner: error: " + message.format(gold=gold))
    assert res.stderr.count("\n") == 1
