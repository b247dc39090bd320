"""Symbol shapes learned from a tagged corpus (``uner.vocab.shapes``, ``uner shapes``) and the ``word_shapes`` stage
that types a symbol no entity covers by the shape its corpus's symbols of a type share."""

from __future__ import annotations

import json

import pytest

from tests.helpers import table_stage_folder, tagged_record, uner
from uner.tagger import Entity, run_stages
from uner.vocab.endings import EndingParams
from uner.vocab.shapes import Shapes, is_symbol, word_shape

PARAMS = EndingParams(min_seen=1, min_words=3, min_precision=0.7)


CORPUS = [
    tagged_record("CD44 and CD45 bind ; IE110 too , at pH 7 .", ("CD44", "GENE"), ("CD45", "GENE"),
                  ("IE110", "GENE")),
    tagged_record("The KF17837 group , and Stat3 with Stat5 , cAMP .", ("Stat3 with Stat5", "GENE"),
                  ("cAMP", "DRUG")),  # KF17837: seen, never tagged; a symbol counts inside a longer entity too
    tagged_record("Then Rad51 , cGMP and dGTP rose .", ("Rad51", "GENE"), ("cGMP", "DRUG"), ("dGTP", "DRUG")),
]


def _shapes(records=CORPUS, params=PARAMS) -> Shapes:
    return Shapes.build(((r["text"], r["entities"]) for r in records), params)


def test_symbols_and_their_shapes():
    assert [word_shape(w) for w in ("CD44", "IE110", "Stat3", "p53", "hMLH1", "KF17837")] == [
        "XXdd", "XXdd", "Xxxd", "xdd", "xXXd", "XXdd"]
    assert [w for w in ("CD44", "cAMP", "p53", "E1A", "DNA", "Golgi", "protein", "44", "IL", "Ca2", "μM2", "-")
            if is_symbol(w)] == ["CD44", "cAMP", "p53", "E1A", "Ca2"]  # letters alone are written in case


def test_learns_the_shapes_its_typed_symbols_share_and_their_exceptions():
    table = _shapes().shapes
    assert set(table) == {"XXdd", "xXX"}  # Xxxd: Stat3 and Stat5 only ("Rad51" is Xxxdd); xXX: cAMP, cGMP, dGTP
    xxdd = table["XXdd"]
    assert (xxdd.type, xxdd.words, xxdd.seen, xxdd.precision, xxdd.exceptions) == ("GENE", 3, 4, 0.75,
                                                                                   frozenset({"KF17837"}))
    loose = _shapes(params=EndingParams(min_seen=1, min_words=2, min_precision=0.7)).shapes
    assert set(loose) == {"XXdd", "Xxxd", "xXX"} and loose["Xxxd"].words == 2
    assert set(_shapes(params=EndingParams(min_seen=1, min_words=3, min_precision=0.8)).shapes) == {"xXX"}
    assert _shapes(params=EndingParams(min_seen=1, min_words=4, min_precision=0.7)).shapes == {}
    assert _shapes(params=EndingParams(min_seen=2, min_words=1, min_precision=0.5)).shapes == {}  # all seen once
    assert _shapes().match("UBP41").type == "GENE" and _shapes().match("KF17837") is None  # its own evidence
    assert _shapes().match("Stat3") is None and _shapes().select(["DRUG"]).match("UBP41") is None


def test_finds_the_symbols_of_a_text_by_their_shapes():
    table = _shapes()
    text = "UBP41 , cCMP , Golgi , 2007 and CCMP ."  # a capital after a small letter: words of letters are read too
    assert [(text[s:e], c.key, c.type) for s, e, c in table.find(text)] == [
        ("UBP41", "XXdd", "GENE"), ("cCMP", "xXX", "DRUG")]
    assert [text[s:e] for s, e, _ in table.find("UBP41 and CCMP , no small letter before a capital .")] == ["UBP41"]


def test_table_round_trip_and_a_bad_shape(tmp_path):
    """(Bad counts and fields fail as in an endings table: the two share their reading, tested there.)"""
    table = _shapes()
    path = tmp_path / "shapes.tsv"
    table.save(path)
    assert Shapes.load(path) == table
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], "X-d\tGENE\t\t3\t3\t1.0\t"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"shapes.tsv:2: a shape must be X, x and d in runs of at most 2 and have"):
        Shapes.load(path)
    path.write_text("\n".join([lines[0], "XXXd\tGENE\t\t3\t3\t1.0\t"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"shapes.tsv:2: a shape must be X, x and d in runs of at most 2"):
        Shapes.load(path)  # (a run of three never matches: words are cut to two)


def _stage_folder(path, types=("GENE",), min_precision: float = 0.7) -> str:
    return table_stage_folder(path, "word_shapes", _shapes(), min_precision=min_precision, types=list(types))


def test_the_stage_types_the_symbols_no_entity_covers(tmp_path):
    text = "UBP41 , not KF17837 or DNA , and the MYH16 gene ."
    at = text.index("MYH16 gene")
    held = Entity("MYH16 gene", at, at + 10, "GENE", None, 0.6)  # (MYH16 is XXdd too, but held)
    out = run_stages(text, [held], ["word_shapes"], _stage_folder(tmp_path))
    assert [(e.text, e.type, e.score, e.stages) for e in out] == [
        ("UBP41", "GENE", 0.75, ("word_shapes",)), ("MYH16 gene", "GENE", 0.6, ())]
    assert run_stages(text, [held], ["word_shapes"], _stage_folder(tmp_path / "d", ["DRUG"])) == [held]
    assert run_stages(text, [held], ["word_shapes"], _stage_folder(tmp_path / "p", min_precision=0.8)) == [held]


def test_cli_builds_the_table(tmp_path):
    """(A bad record or path fails as for ``uner endings``: the two commands share their reading, tested there.)"""
    tagged = tmp_path / "tagged.jsonl"
    tagged.write_text("".join(json.dumps(r) + "\n" for r in CORPUS), encoding="utf-8")
    out = tmp_path / "shapes.tsv"
    res = uner("shapes", str(tagged), "--out", str(out), "--min-seen", "1", "--min-words", "3",
               "--min-precision", "0.7")
    assert res.returncode == 0, res.stderr
    assert Shapes.load(out) == _shapes() and "2 shapes" in res.stdout


def test_the_biomedical_student_types_rare_symbols_by_their_shapes():
    """End to end with the shipped student and table: the student alone tags "ORF7" but misses "ORF9"; the
    ``word_shapes`` stage adds it as a gene (most of its corpus's symbols written so are genes)."""
    from tests.helpers import BIO_STAGES
    from uner.tagger import Student

    text = "The ORF7 and ORF9 products were seen ."
    found = {e.text: e for e in next(Student.from_pretrained("uner-student-bio").tag([text]))}
    assert (found["ORF7"].type, found["ORF7"].stages) == ("GENE", ())
    assert (found["ORF9"].type, found["ORF9"].stages) == ("GENE", ("word_shapes",))
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in BIO_STAGES if s != "word_shapes"))
    assert [e.text for e in next(without.tag([text]))] == ["ORF7"]
