"""head_subtypes: a name's head noun says which kind of its type it is ("IL-2 gene" a gene's DNA, "IL-2 mRNA" an
RNA), for the types and nouns of the labels' stages/head_subtypes.yaml; named_lines: cells named by a proper name or
a code are a cell line (stages/named_lines.yaml); bare_heads: a head noun alone names a kind, no name ("these genes",
"the cells"; stages/bare_heads.yaml); trailing_heads: a name takes the head noun of its type after it ("TIMP-2 mRNA";
stages/trailing_heads.yaml)."""

from __future__ import annotations

import pytest

from tests.helpers import BIO_STAGES, JNLPBA_STAGES
from uner.analysis.evaluate import Mapping
from uner.labels import LabelsFolder
from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages.heads import (BareHeadWords, HeadWords, LineWords, TrailingHeadWords, bare_heads,
                                      head_subtypes, named_lines, trailing_heads)
from uner.tagger.stages.registry import shipped

WORDS = HeadWords({"GENE": {"gene": "NUCLEOTIDE_SEQUENCE", "mrna": "RNA"}})
WITHOUT_HEADS = tuple(s for s in JNLPBA_STAGES if s != "head_subtypes")


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
    """End to end with the shipped student: "the human beta-globin gene" is DNA; the student, taught on the output
    of ``head_subtypes`` (JNLPBA's mapping turns it on), types it so itself, and the stages leave it so."""
    assert BIO_STAGES == TaggerConfig.for_domain("biomedical").stages and "head_subtypes" not in BIO_STAGES
    assert (*BIO_STAGES, *Mapping.named("jnlpba").stages) == JNLPBA_STAGES  # (JNLPBA's convention: its mapping's)
    text = "Transcription of the human beta-globin gene was induced in erythroid cells ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: (e.type, e.subtype) for e in run_stages(text, ents, WITHOUT_HEADS)}
    on = {e.text: (e.type, e.subtype, e.stages) for e in run_stages(text, ents, JNLPBA_STAGES)}
    gene = next(t for t in on if t.endswith("globin gene"))
    assert off[gene] == on[gene][:2] == ("GENE", "NUCLEOTIDE_SEQUENCE")


def test_the_biomedical_student_types_a_cell_line_by_its_head():
    """End to end: "the Jurkat T cell line" is a cell line (its head noun); the shipped student, taught on the output
    of ``head_subtypes``, types it so itself, and the stages leave it so."""
    text = "The Jurkat T cell line was used ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: e.subtype for e in run_stages(text, ents, WITHOUT_HEADS)}
    on = {e.text: (e.subtype, e.stages) for e in run_stages(text, ents, JNLPBA_STAGES)}
    line = next(t for t in on if t.endswith("cell line"))
    assert off[line] == on[line][0] == "CELL_LINE" and "head_subtypes" not in on[line][1]


CELL = "BODY_PART_OR_ORGAN_COMPONENT"


def _lines(text: str, *spans: tuple[str, str, str | None]) -> list[tuple[str, str | None]]:
    ents = [Entity(s, text.index(s), text.index(s) + len(s), t, sub, 0.5) for s, t, sub in spans]
    return [(e.text, e.subtype) for e in named_lines(text, ents, words=shipped(LineWords))]


def test_shipped_named_lines_turn_a_subtype_of_its_type_into_another():
    types, words = LabelsFolder.for_model("uner-bio").load_types(), shipped(LineWords)
    assert words.subtype != words.to
    assert {types.parent(types.canonical(sub)) for sub in (words.subtype, words.to)} == {words.type}


def test_cells_named_by_a_name_or_a_code_are_a_cell_line():
    text = "We used Jurkat cells , HeLa cells , HL - 60 cells , U937 cells , T cells , NK cells , lymphoid cells and " \
        "p53-null cells ."
    spans = ["Jurkat cells", "HeLa cells", "HL - 60 cells", "U937 cells", "T cells", "NK cells", "lymphoid cells",
             "p53-null cells"]
    assert _lines(text, *((s, CELL, "CELL") for s in spans)) == [
        ("Jurkat cells", "CELL_LINE"), ("HeLa cells", "CELL_LINE"), ("HL - 60 cells", "CELL_LINE"),
        ("U937 cells", "CELL_LINE"), ("T cells", "CELL"), ("NK cells", "CELL"), ("lymphoid cells", "CELL"),
        ("p53-null cells", "CELL")]  # (a gene's name with a word is no code)


def test_a_capital_that_opens_a_sentence_or_a_list_item_or_is_title_case_is_no_name_but_a_code_is_a_code():
    text = "Human cells grew . Endothelial cells died ; U937 cells lived ."
    spans = [(s, CELL, "CELL") for s in ("Human cells", "Endothelial cells", "U937 cells")]
    assert _lines(text, *spans) == [("Human cells", "CELL"), ("Endothelial cells", "CELL"), ("U937 cells", "CELL_LINE")]
    assert _lines("Jurkat cells grew .", ("Jurkat cells", CELL, "CELL")) == [("Jurkat cells", "CELL")]
    assert _lines("We grew Jurkat cells .", ("Jurkat cells", CELL, "CELL")) == [("Jurkat cells", "CELL_LINE")]
    text = "Three kinds: - Red blood cells and - Natural killer cells ; Normal Red Cells and U937 Cells"
    spans = [(s, CELL, "CELL") for s in ("Red blood cells", "Natural killer cells", "Normal Red Cells", "U937 Cells")]
    assert _lines(text, *spans) == [("Red blood cells", "CELL"), ("Natural killer cells", "CELL"),
                                    ("Normal Red Cells", "CELL"), ("U937 Cells", "CELL_LINE")]  # list items, title case


def test_other_subtypes_heads_and_one_word_names_stay():
    text = "Jurkat cells , the Jurkat protein , Jurkat and U937 tissue"
    spans = [("Jurkat cells", CELL, "CELL_COMPONENT"), ("Jurkat protein", "GENE", "PROTEIN"), ("Jurkat", CELL, "CELL"),
             ("U937 tissue", CELL, "CELL")]
    assert _lines(text, *spans) == [(s, sub) for s, _, sub in spans]


def test_a_code_the_corpus_writes_after_anti_is_a_molecule_not_a_line():
    """The shipped phrase table has "anti - CD4" (antibodies against the marker), never "anti - U937"."""
    text = "CD4 cells , CD34 cells and U937 cells ."
    spans = [(s, CELL, "CELL") for s in ("CD4 cells", "CD34 cells", "U937 cells")]
    assert _lines(text, *spans) == [("CD4 cells", "CELL"), ("CD34 cells", "CELL"), ("U937 cells", "CELL_LINE")]


def test_a_shape_that_is_no_regular_expression_names_the_file(tmp_path):
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "named_lines.yaml").write_text(
        "type: BODY_PART_OR_ORGAN_COMPONENT\nfrom: CELL\nto: CELL_LINE\nheads: [cells]\nshapes: ['[A-Z']\nopeners: [.]\n"
        "counts: biomedical_phrases.npz\nmolecule_marks: [anti -]\n",
        encoding="utf-8")
    with pytest.raises(ValueError, match=r"named_lines.yaml: shapes: not a regular expression"):
        run_stages("Jurkat cells", [Entity("Jurkat cells", 0, 12, CELL, "CELL", 0.5)], ["named_lines"], str(tmp_path))


def test_the_biomedical_student_types_named_cells_a_cell_line():
    """End to end with the shipped student: "U937 cells" and "HL - 60 cells" are cell lines, "T cells" a cell type;
    the student, taught on the output of ``named_lines`` (JNLPBA's), types them so itself."""
    text = "HL - 60 cells and U937 cells were compared with resting T cells ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: e.subtype for e in run_stages(text, ents, tuple(s for s in JNLPBA_STAGES if s != "named_lines"))}
    on = {e.text: (e.subtype, e.stages) for e in run_stages(text, ents, JNLPBA_STAGES)}
    assert off == {t: s for t, (s, _) in on.items()}
    assert on["HL - 60 cells"][0] == on["U937 cells"][0] == "CELL_LINE" and on["T cells"] == ("CELL", ())


def test_a_head_noun_alone_goes_and_names_with_it_stay():
    words = BareHeadWords({"GENE": frozenset({"gene", "genes", "cdna"}), CELL: frozenset({"cells"})})
    text = "These genes and the IL-2 gene were cloned as cDNA from Jurkat cells . Cells : genes"
    spans = [("genes", "GENE"), ("IL-2 gene", "GENE"), ("cDNA", "GENE"), ("Jurkat cells", CELL), ("Cells", CELL),
             ("genes", "DRUG")]  # (the last: of a type that does not list the noun)
    ents, at = [], 0
    for s, t in spans:
        at = text.index(s, at)
        ents.append(Entity(s, at, at + len(s), t, None, 0.5))
        at += len(s)
    out = bare_heads(text, ents, words=words)
    assert [(e.text, e.type) for e in out] == [("IL-2 gene", "GENE"), ("Jurkat cells", CELL), ("genes", "DRUG")]
    assert out[0] is ents[1]  # (kept as they were)


def test_shipped_bare_heads_are_the_other_stages_heads():
    heads = shipped(BareHeadWords).heads
    assert heads["GENE"] == frozenset(shipped(HeadWords).heads["GENE"])
    assert {"cell", "cells", "line", "lines"} <= heads[CELL] and "mrna" in heads["GENE"]
    assert shipped(BareHeadWords).types == ("GENE", CELL)


def test_the_biomedical_student_keeps_no_head_noun_alone():
    """End to end with the shipped student: "genes" and "cells" alone are no names, "IL-2" and "T cells" are; the
    student, taught on the output of the domain's ``bare_heads``, leaves the head nouns out itself."""
    assert "bare_heads" in BIO_STAGES
    text = "The genes encoding IL-2 and IL-4 were induced in cells and in T cells treated with PMA ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = [e.text for e in run_stages(text, ents, tuple(s for s in BIO_STAGES if s != "bare_heads"))]
    on = [e.text for e in run_stages(text, ents, BIO_STAGES)]
    assert off == on and "genes" not in on and "cells" not in on and {"IL-2", "T cells"} <= set(on)


def _grown(text: str, *spans: tuple[str, str]) -> list[str]:
    ents = [Entity(s, text.index(s), text.index(s) + len(s), t, None, 0.5) for s, t in spans]
    out = trailing_heads(text, ents, words=shipped(TrailingHeadWords))
    assert all(text[e.start : e.end] == e.text for e in out)
    return [e.text for e in out]


def test_a_name_takes_the_head_noun_of_its_type_after_it():
    text = "The TIMP - 2 mRNA level and the Jurkat T cell line , the IL-2 Gene, rose ."
    assert _grown(text, ("TIMP - 2", "GENE"), ("Jurkat T cell", CELL), ("IL-2", "GENE")) == \
        ["TIMP - 2 mRNA", "Jurkat T cell line", "IL-2 Gene"]
    assert shipped(TrailingHeadWords).heads == {t: frozenset(n) for t, n in shipped(HeadWords).heads.items()}


def test_no_head_of_another_type_no_other_word_and_no_word_another_entity_begins():
    text = "IL-2 levels , aspirin gene effects , p53 gene therapy , Sp1 DNA - binding , IL-2\ngene and IL-2"
    spans = [("IL-2", "GENE"), ("aspirin", "DRUG"), ("p53", "GENE"), ("gene therapy", "DRUG"), ("Sp1", "GENE")]
    assert _grown(text, *spans) == [s for s, _ in spans]
    ends = [text.index("IL-2\n"), len(text) - 4]  # a head on the next line; the end of the text
    ents = [Entity("IL-2", a, a + 4, "GENE", None, 0.5) for a in ends]
    assert [e.text for e in trailing_heads(text, ents, words=shipped(TrailingHeadWords))] == ["IL-2", "IL-2"]
    for joined in ("IL-2 gene-specific", "IL-2 gene - specific"):  # a word that a hyphen continues
        assert _grown(joined, ("IL-2", "GENE")) == ["IL-2"]


@pytest.mark.parametrize("text, before, after, typed", [
    ("We isolated the mouse Tcf - 4 cDNA from brain .", "mouse Tcf - 4", "mouse Tcf - 4 cDNA",
     ("GENE", "NUCLEOTIDE_SEQUENCE")),
    ("A human megakaryocytic cell line expressed the receptor .", "human megakaryocytic cell",
     "human megakaryocytic cell line", (CELL, "CELL_LINE")),
])
def test_the_biomedical_student_with_the_stage_takes_the_head_noun(text, before, after, typed):
    """End to end with the shipped student: it stops before the head noun, the domain's stages without
    ``trailing_heads`` leave it so, and with it the name takes its head (then typed by ``head_subtypes``)."""
    assert "trailing_heads" in TaggerConfig.for_domain("biomedical").stages
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = [e.text for e in run_stages(text, ents, tuple(s for s in JNLPBA_STAGES if s != "trailing_heads"))]
    on = {e.text: e for e in run_stages(text, ents, JNLPBA_STAGES)}
    assert before in off and after not in off
    assert after in on and "trailing_heads" in on[after].stages
    assert (on[after].type, on[after].subtype) == typed
