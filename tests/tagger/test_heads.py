"""head_subtypes: a name's head noun says which kind of its type it is ("IL-2 gene" a gene's DNA, "IL-2 mRNA" an
RNA), for the types and nouns of the labels' stages/head_subtypes.yaml."""

from __future__ import annotations

from tests.helpers import BIO_STAGES
from uner.labels import LabelsFolder
from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages.heads import HeadWords, head_subtypes
from uner.tagger.stages.registry import shipped

WORDS = HeadWords({"GENE": {"gene": "NUCLEOTIDE_SEQUENCE", "mrna": "RNA"}})


def _typed(text: str, *spans: tuple[str, str, str | None]) -> list[tuple[str, str, str | None]]:
    ents = [Entity(s, text.index(s), text.index(s) + len(s), t, sub, 0.5) for s, t, sub in spans]
    out = head_subtypes(text, ents, words=WORDS)
    assert [(e.start, e.end) for e in out] == [(e.start, e.end) for e in ents]  # edges stay
    return [(e.text, e.type, e.subtype) for e in out]


def test_the_head_noun_gives_the_subtype():
    text = "The IL-2 Gene and IL-2 mRNA rose ."
    assert _typed(text, ("IL-2 Gene", "GENE", "PROTEIN"), ("IL-2 mRNA", "GENE", None)) == \
        [("IL-2 Gene", "GENE", "NUCLEOTIDE_SEQUENCE"), ("IL-2 mRNA", "GENE", "RNA")]


def test_other_types_one_word_and_other_heads_stay():
    text = "gene therapy with genes and the IL-2 site of gene"
    spans = [("gene therapy", "DRUG", None), ("genes", "GENE", None), ("IL-2 site", "GENE", "PROTEIN")]
    assert _typed(text, *spans) == spans
    assert _typed("a viral gene", ("viral gene", "DRUG", None)) == [("viral gene", "DRUG", None)]  # not a listed type


def test_shipped_heads_name_subtypes_of_their_type():
    types = LabelsFolder.for_model("uner-bio").load_types()
    heads = shipped(HeadWords).heads
    assert heads["GENE"]["genes"] == "NUCLEOTIDE_SEQUENCE" and heads["GENE"]["mrna"] == "RNA"
    for parent, nouns in heads.items():
        assert {types.parent(types.canonical(sub)) for sub in nouns.values()} == {parent}
    assert shipped(HeadWords).types == ("GENE", "BODY_PART_OR_ORGAN_COMPONENT")
    assert heads["BODY_PART_OR_ORGAN_COMPONENT"]["line"] == "CELL_LINE"


def test_the_biomedical_student_types_a_gene_as_dna():
    """End to end with the shipped student: the domain's last stage makes "the human beta-globin gene" DNA, which the
    student alone types a protein."""
    assert BIO_STAGES == TaggerConfig.for_domain("biomedical").stages and BIO_STAGES[-1] == "head_subtypes"
    text = "Transcription of the human beta-globin gene was induced in erythroid cells ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: (e.type, e.subtype) for e in run_stages(text, ents, BIO_STAGES[:-1])}
    on = {e.text: (e.type, e.subtype, e.stages) for e in run_stages(text, ents, BIO_STAGES)}
    gene = next(t for t in on if t.endswith("globin gene"))
    assert off[gene][1] != "NUCLEOTIDE_SEQUENCE"
    assert on[gene][:2] == ("GENE", "NUCLEOTIDE_SEQUENCE") and "head_subtypes" in on[gene][2]


def test_the_biomedical_student_types_a_cell_line_by_its_head():
    """End to end: the shipped student types "the Jurkat T cell line" a cell type, as its words are; its head noun
    makes it a cell line."""
    text = "The Jurkat T cell line and HeLa cells were used ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: e.subtype for e in run_stages(text, ents, BIO_STAGES[:-1])}
    on = {e.text: (e.subtype, e.stages) for e in run_stages(text, ents, BIO_STAGES)}
    line = next(t for t in on if t.endswith("cell line"))
    assert off[line] == "CELL" and on[line] == ("CELL_LINE", (*on[line][1][:-1], "head_subtypes"))
