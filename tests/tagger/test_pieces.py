"""The ``name_pieces`` stage: a name built from hyphen-joined pieces ("caspase - 9", "TEF - 1beta") is one entity."""

from __future__ import annotations

import pytest

from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages.pieces import PieceWords, name_pieces

WORDS = PieceWords(frozenset({"-"}), frozenset({"alpha", "kappa"}), max_digits=3, max_code=6)


def _run(text: str, *parts: tuple[str, str] | tuple[str, str, float]) -> list[tuple[str, str]]:
    ents, at = [], 0
    for part, type_, *score in parts:
        start = text.index(part, at)
        ents.append(Entity(part, start, start + len(part), type_, None, score[0] if score else 0.5))
        at = start + len(part)
    out = name_pieces(text, ents, words=WORDS)
    assert all(text[e.start : e.end] == e.text for e in out) and out == sorted(out, key=lambda e: e.start)
    return [(e.text, e.type) for e in out]


@pytest.mark.parametrize("text, parts, expected", [
    # an entity takes the hyphen and the piece after it, spaced or not
    ("Activation of caspase - 9 was seen .", [("caspase", "GENE")], [("caspase - 9", "GENE")]),
    ("Activation of caspase-9 was seen .", [("caspase", "GENE")], [("caspase-9", "GENE")]),
    # two entities across a hyphen: one, typed as the one that is more than a piece
    ("TEF - 1beta binds .", [("TEF", "GENE", 0.4), ("1beta", "DRUG", 0.9)], [("TEF - 1beta", "GENE")]),
    ("caspase - 9 rose .", [("caspase", "GENE", 0.3), ("9", "MEASURE", 0.9)], [("caspase - 9", "GENE")]),
    ("EBNA - 3 cDNA was cloned .", [("EBNA", "GENE", 0.6), ("3 cDNA", "DNA", 0.4)], [("EBNA - 3 cDNA", "GENE")]),
    # the piece before: a Greek letter, or a code before an entity that opens with a piece
    ("the alpha - globin gene", [("globin gene", "GENE")], [("alpha - globin gene", "GENE")]),
    ("the HIV - 1 promoter", [("1 promoter", "GENE")], [("HIV - 1 promoter", "GENE")]),
    # one letter, in either case, is a prefix of the name: two entities across the hyphen, or one after it
    ("of c-jun and v - src", [("c", "GENE", 0.3), ("jun", "GENE", 0.3), ("src", "GENE")],
     [("c-jun", "GENE"), ("v - src", "GENE")]),
    ("given d - amphetamine", [("amphetamine", "DRUG")], [("d - amphetamine", "DRUG")]),
    # not pieces: a word ("dose - dependent"), a long number, a word before a non-piece ("NF - kappa" is)
    ("a dose - dependent rise", [("dose", "DRUG")], [("dose", "DRUG")]),
    ("in cells - 1998 data", [("cells", "CELL")], [("cells", "CELL")]),
    ("the HIV - promoter", [("promoter", "GENE")], [("promoter", "GENE")]),
    ("the NF - kappa B site", [("NF", "GENE")], [("NF - kappa", "GENE")]),
    # two entities without a piece beside the hyphen stay two
    ("insulin - glucagon ratio", [("insulin", "DRUG"), ("glucagon", "DRUG")],
     [("insulin", "DRUG"), ("glucagon", "DRUG")]),
])
def test_pieces_join_the_name_beside_them(text, parts, expected):
    assert _run(text, *parts) == expected


def test_the_biomedical_domain_runs_it_with_the_shipped_words_and_the_student_gives_whole_names():
    assert "name_pieces" in TaggerConfig.for_domain("biomedical").stages
    assert "name_pieces" not in TaggerConfig.for_domain("general").stages
    text = ("Activation of caspase - 9 and of TEF - 1beta needs the HIV - 1 promoter and alpha - globin , v - src and "
            "c - fos .")
    ent = Entity("caspase", 14, 21, "GENE", None, 0.5)
    assert [e.text for e in run_stages(text, [ent], ("name_pieces",))] == ["caspase - 9"]
    without = Student.from_pretrained("uner-student-bio", stages=("abbreviations", "phrase_bounds"))
    with_it = Student.from_pretrained("uner-student-bio")
    [off], [on] = without.tag([text]), with_it.tag([text])
    # (the student, taught on the stage's output, no longer cuts at the hyphens itself; "v - src" it misses)
    assert [(e.text, e.type) for e in off] == [(e.text, e.type) for e in on]
    on = {e.text: e for e in on}
    for name in ("caspase - 9", "TEF - 1beta", "HIV - 1 promoter", "alpha - globin", "c - fos"):
        assert on[name].type == "GENE"

