"""The ``contained_names`` stage: an entity that holds a name (a treatment, a group, a dose) gives way to the names
of the domain's tagged corpus inside it."""

from __future__ import annotations

from tests.helpers import BIO_STAGES, tagged_record
from uner.tagger import Entity, run_stages
from uner.vocab.lexicon import Lexicon


# "olanzapine" a drug in 4 of its 5 occurrences, "chemotherapy" a drug's procedure, "intravenous" a drug's adjective;
# "dose" a drug in 1 of its 4 occurrences
CORPUS = [tagged_record("Olanzapine was given .", ("Olanzapine", "DRUG")),
          tagged_record("olanzapine and chemotherapy .", ("olanzapine", "DRUG"), ("chemotherapy", "DRUG")),
          tagged_record("After olanzapine , chemotherapy .", ("olanzapine", "DRUG"), ("chemotherapy", "DRUG")),
          tagged_record("Olanzapine alone .", ("Olanzapine", "DRUG")),
          tagged_record("Olanzapine or placebo ."),
          tagged_record("intravenous route , intravenous use .", ("intravenous", "DRUG"), ("intravenous", "DRUG")),
          tagged_record("The dose , a dose , one dose , the dose .", ("dose", "DRUG"))]


def _folder(tmp_path, min_rate: float = 0.5, skip: str = "[DRUG_ADJECTIVE]") -> str:
    stages = tmp_path / "stages"
    stages.mkdir(parents=True)
    records = [dict(r, entities=[dict(e, subtype={"chemotherapy": "THERAPY", "intravenous": "DRUG_ADJECTIVE"}.get(
        e["text"])) for e in r["entities"]]) for r in CORPUS]
    Lexicon.build(lambda: ((r["text"], r["entities"]) for r in records)).save(stages / "lexicon.tsv")
    (stages / "contained_names.yaml").write_text(
        f"table: lexicon.tsv\ncontainers: {{same_as: inner_names.containers}}\nmodifier_subtypes: {skip}\n"
        f"types: [DRUG]\nmin_tagged: 1\nmin_rate: {min_rate}\nmin_share: 0.8\n", encoding="utf-8")
    (stages / "inner_names.yaml").write_text("containers: [THERAPY, PERSON]\n", encoding="utf-8")
    return str(tmp_path)


TEXT = "Olanzapine treatment and intravenous chemotherapy in the dose group of olanzapine users ."
ENTS = [Entity("Olanzapine treatment", 0, 20, "DRUG", "THERAPY", 0.5),
        Entity("intravenous chemotherapy", 25, 49, "DRUG", "THERAPY", 0.5),
        Entity("dose group", 57, 67, "ORGANIZATION", None, 0.5),
        Entity("olanzapine users", 71, 87, "PERSON", None, 0.5)]


def test_a_container_gives_way_to_the_names_inside_it(tmp_path):
    """A therapy and a group of people (containers) give way to "olanzapine"; "chemotherapy" is itself a container
    and "intravenous" an adjective, so that therapy stays; "dose group" is no container here, and "dose" too rarely
    tagged."""
    out = run_stages(TEXT, ENTS, ["contained_names"], _folder(tmp_path))
    assert [(e.text, e.type, e.subtype, e.stages) for e in out] == [
        ("Olanzapine", "DRUG", None, ("contained_names",)),
        ("intravenous chemotherapy", "DRUG", "THERAPY", ()),
        ("dose group", "ORGANIZATION", None, ()),
        ("olanzapine", "DRUG", None, ("contained_names",))]
    assert out[0].score == 1.0 and (out[0].start, out[0].end) == (0, 10) and (out[3].start, out[3].end) == (71, 81)
    assert [e.text for e in run_stages(TEXT, ENTS, ["contained_names"], _folder(tmp_path / "all", skip="[]"))][:2] \
        == ["Olanzapine", "intravenous"]  # (adjectives not skipped)


def test_the_rate_asked_decides_which_terms_count(tmp_path):
    """"olanzapine" is tagged in 4 of its 5 occurrences: asked for 0.9 of them, nothing comes out."""
    assert run_stages(TEXT, ENTS, ["contained_names"], _folder(tmp_path, min_rate=0.9)) == ENTS


def test_the_biomedical_student_finds_the_drug_its_treatment_holds():
    """End to end with the shipped student and table: "olanzapine" is a drug, not "olanzapine treatment" a
    procedure; the student, taught on the stage's output, draws that edge itself, and the stage leaves it so."""
    from uner.tagger import Student

    text = "Two patients developed diabetes during olanzapine treatment ."
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in BIO_STAGES if s != "contained_names"))
    found = [{e.text: e.type for e in ents} for ents in (next(without.tag([text])),
                                                         next(Student.from_pretrained("uner-student-bio").tag([text])))]
    assert found[0] == found[1] == {"diabetes": "DISEASE", "olanzapine": "DRUG"}


def test_the_biomedical_student_finds_the_gene_its_transcription_holds():
    """End to end with the shipped student and table: a gene's transcription is what the gene undergoes, so
    "VEGF transcription" (typed as gene expression) gives way to "VEGF", a gene; and a group of mice named by their
    gene gives way to it too ("p53-/- mice")."""
    from uner.tagger import Student

    texts = ["Hypoxia increased VEGF transcription in these cells .", "We crossed p53-/- mice with them ."]
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in BIO_STAGES if s != "contained_names"))
    before, after = ([[(e.text, e.type, e.subtype) for e in ents if e.text != "Hypoxia"] for ents in s.tag(texts)]
                     for s in (without, Student.from_pretrained("uner-student-bio")))
    assert before == [[("VEGF transcription", "GENE", "GENE_EXPRESSION_ADJECTIVE")], [("p53-/- mice", "BIO", "SPECIES")]]
    assert [[(t, ty) for t, ty, _ in ents] for ents in after] == [[("VEGF", "GENE")], [("p53", "GENE")]]


def test_adjectives_are_derived_from_one_word_nouns_by_their_endings():
    records = [tagged_record("Hypertension , epilepsy , diabetes and heart failure .", ("Hypertension", "DISEASE"),
                             ("epilepsy", "DISEASE"), ("diabetes", "DISEASE"), ("heart failure", "DISEASE")),
               tagged_record("Sepsis and the diabetic .", ("Sepsis", "DISEASE"), ("diabetic", "DISEASE"))]
    nouns = Lexicon.build(lambda: ((r["text"], r["entities"]) for r in records), min_tagged=1)
    derived = nouns.adjectives([("ive", "ion"), ("tic", "sy"), ("ic", "es"), ("ic", "is")], "ADJ", min_stem=5)
    assert {k: (t.text, t.type, t.subtype) for k, t in derived.terms.items()} == {
        ("hypertensive",): ("hypertensive", "DISEASE", "ADJ"), ("epileptic",): ("epileptic", "DISEASE", "ADJ")}
    # (not "diabetic": a term already; not "heart failure": two words; not "sepsic": "seps" is too short a stem)
    assert nouns.adjectives([("ic", "is")], None, min_stem=4).terms[("sepsic",)].type == "DISEASE"


def _adjective_folder(tmp_path) -> str:
    stages = tmp_path / "stages"
    stages.mkdir(parents=True)
    Lexicon.build(lambda: ((r["text"], r["entities"]) for r in [
        tagged_record("Hypertension and aggression .", ("Hypertension", "DISEASE"), ("aggression", "OTHER"))] * 5)
    ).save(stages / "lexicon.tsv")
    (stages / "derived_adjectives.yaml").write_text(
        "table: lexicon.tsv\ntypes: [DISEASE]\nmin_tagged: 5\nmin_rate: 0.5\nmin_share: 0.8\n"
        "suffixes: [[ive, ion]]\nmin_stem: 4\nsubtype: DISEASE_ADJECTIVE\nholders: [PERSON, BIO]\n", encoding="utf-8")
    return str(tmp_path)


def test_people_and_animals_give_way_to_the_adjective_of_a_disease(tmp_path):
    """"Hypertensive patients" (people) gives way to "Hypertensive" (of a disease); "aggressive rats" stays
    ("aggression" is no disease), so does the disease that holds "hypertensive", and "hypertensive" said of tumours
    (no entity of people or animals) is not added."""
    text = "Hypertensive patients , aggressive rats , hypertensive heart disease and hypertensive tumours ."
    ents = [Entity("Hypertensive patients", 0, 21, "PERSON", None, 0.5),
            Entity("aggressive rats", 24, 39, "BIO", None, 0.5),
            Entity("hypertensive heart disease", 42, 68, "DISEASE", None, 0.5)]
    out = run_stages(text, ents, ["derived_adjectives"], _adjective_folder(tmp_path))
    assert [(e.text, e.start, e.type, e.subtype, e.stages) for e in out] == [
        ("Hypertensive", 0, "DISEASE", "DISEASE_ADJECTIVE", ("derived_adjectives",)), *[
            (e.text, e.start, e.type, None, ()) for e in ents[1:]]]


def test_the_biomedical_student_types_the_adjective_of_a_disease():
    """End to end with the shipped student and table: "hypertensive" (of "hypertension") and "epileptic" (of
    "epilepsy") come out of the people they describe as diseases by ``derived_adjectives``, neither without it."""
    from uner.tagger import Student

    text = "Ten hypertensive women and two epileptic women received the drug ."
    without = Student.from_pretrained("uner-student-bio",
                                      stages=tuple(s for s in BIO_STAGES if s != "derived_adjectives"))
    assert not {"hypertensive", "epileptic"} & {e.text for e in next(without.tag([text])) if e.type == "DISEASE"}
    found = {e.text: e for e in next(Student.from_pretrained("uner-student-bio").tag([text]))}
    assert all(found[w].type == "DISEASE" and "derived_adjectives" in found[w].stages
               for w in ("hypertensive", "epileptic"))
