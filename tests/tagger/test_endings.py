"""Word endings learned from a tagged corpus (``uner.vocab.ending_table``, ``uner endings``) and the ``word_endings``
stage that types a word no entity covers by the ending its corpus's words of a type share."""

from __future__ import annotations

import json

import pytest

from tests.helpers import table_stage_folder, tagged_record, uner
from uner.tagger import Entity, run_stages
from uner.vocab.ending_table import EndingParams, Endings

PARAMS = EndingParams(min_seen=1, min_words=3, min_precision=0.7)


CORPUS = [
    tagged_record("Bleomycin and neomycin were given .", ("Bleomycin", "DRUG"), ("neomycin", "DRUG")),
    tagged_record("Then tobramycin , not ionomycin .", ("tobramycin", "DRUG")),  # ionomycin: seen, never tagged
    tagged_record("Colitis , otitis and chronic rhinitis .", ("Colitis", "DISEASE"), ("otitis", "DISEASE"),
                  ("chronic rhinitis", "DISEASE")),  # a word counts inside a longer entity too
]


def _endings(records=CORPUS, params=PARAMS) -> Endings:
    return Endings.build(((r["text"], r["entities"]) for r in records), params)


def test_learns_the_endings_its_typed_words_share_and_their_exceptions():
    table = _endings().endings
    assert set(table) == {"cin", "tis"}  # "ycin", "mycin", "itis": the same type as the shorter ending, left out
    cin = table["cin"]
    assert (cin.type, cin.words, cin.seen, cin.precision, cin.exceptions) == ("DRUG", 3, 4, 0.75,
                                                                              frozenset({"ionomycin"}))
    assert table["tis"].type == "DISEASE" and table["tis"].exceptions == frozenset()
    assert set(_endings(params=EndingParams(min_seen=1, min_words=3, min_precision=0.8)).endings) == {"tis"}
    assert _endings(params=EndingParams(min_seen=1, min_words=4, min_precision=0.7)).endings == {}
    assert _endings(params=EndingParams(min_seen=2, min_words=1, min_precision=0.7)).endings == {}  # all seen once


def test_a_longer_ending_of_another_type_is_kept_and_wins():
    records = CORPUS + [
        tagged_record("Daunomycin , azithromycin , erythromycin , spectinomycin , clarithromycin .",
                      *((w, "DRUG") for w in ("Daunomycin", "azithromycin", "erythromycin", "spectinomycin",
                                              "clarithromycin"))),
        tagged_record("Sisomicin , gentamicin and kanamicin rose .", ("Sisomicin", "GENE"), ("gentamicin", "GENE"),
                      ("kanamicin", "GENE"))]
    table = _endings(records, EndingParams(min_seen=1, min_words=3, min_precision=0.6))
    assert (table.endings["cin"].type, table.endings["cin"].words, table.endings["cin"].seen) == ("DRUG", 8, 12)
    assert table.endings["icin"].type == "GENE" and "micin" not in table.endings
    assert table.match("apramicin").type == "GENE" and table.match("kanamycin").type == "DRUG"
    assert table.match("ionomycin") is None  # its own corpus evidence: an exception
    assert table.match("itis") is None and table.select(min_stem=4).match("otitis") is None  # too few letters
    assert table.match("otitis").type == "DISEASE" and table.match("5-fu") is None


def test_table_round_trip_and_bad_rows(tmp_path):
    table = _endings()
    path = tmp_path / "endings.tsv"
    table.save(path)
    assert Endings.load(path) == table
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines[:2], "olol\tDRUG\t\tmany\t3\t1.0\t", *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"endings.tsv:3: expected counts in 'words' and 'seen'"):
        Endings.load(path)
    path.write_text("\n".join([*lines[:2], "olol\tDRUG\t3\t3\t1.0"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"endings.tsv:3: expected 7 tab-separated fields"):
        Endings.load(path)
    path.write_text("\n".join([lines[0], "-OL\tDRUG\t\t3\t3\t1.0\t"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"endings.tsv:2: an ending must be lower-case letters"):
        Endings.load(path)


def _stage_folder(path, types=("DRUG", "DISEASE"), min_precision: float = 0.7) -> str:
    return table_stage_folder(path, "word_endings", _endings(), min_precision=min_precision, min_stem=2,
                              types=list(types))


def test_the_stage_types_the_words_no_entity_covers(tmp_path):
    text = "Gentamicin caused gastritis ; ionomycin and the streptomycin group did not ."
    held = Entity("streptomycin group", 48, 66, "DRUG", None, 0.6)
    out = run_stages(text, [held], ["word_endings"], _stage_folder(tmp_path))
    assert [(e.text, e.type, e.score, e.stages) for e in out] == [
        ("Gentamicin", "DRUG", 0.75, ("word_endings",)), ("gastritis", "DISEASE", 1.0, ("word_endings",)),
        ("streptomycin group", "DRUG", 0.6, ())]
    assert [e.text for e in run_stages(text, [held], ["word_endings"], _stage_folder(tmp_path / "d", ["DISEASE"]))
            ] == ["gastritis", "streptomycin group"]
    assert [e.text for e in run_stages(text, [held], ["word_endings"], _stage_folder(tmp_path / "p", min_precision=0.8))
            ] == ["gastritis", "streptomycin group"]


def test_cli_builds_the_table_and_names_a_bad_line(tmp_path):
    tagged = tmp_path / "tagged.jsonl"
    tagged.write_text("".join(json.dumps(r) + "\n" for r in CORPUS) + '{"id": "x", "error": "too long"}\n',
                      encoding="utf-8")
    out = tmp_path / "endings.tsv"
    res = uner("endings", str(tagged), "--out", str(out), "--min-seen", "1", "--min-words", "3",
               "--min-precision", "0.7")
    assert res.returncode == 0, res.stderr
    assert Endings.load(out) == _endings() and "2 endings" in res.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CORPUS[0]) + "\n" + '{"text": "x", "entities": [{"start": 0}]}\n', encoding="utf-8")
    res = uner("endings", str(bad), "--out", str(tmp_path / "other.tsv"))
    assert res.returncode == 2 and f"{bad}:2: expected a record of uner tag's JSONL output" in res.stderr
    assert not (tmp_path / "other.tsv").exists()


def test_the_biomedical_student_types_rare_names_by_their_endings():
    """End to end with the shipped student and table: the student alone misses "tizanidine"; the ``word_endings``
    stage adds it ("-idine" drugs in its corpus) and leaves the "clonidine" that the student found as it was."""
    from tests.helpers import BIO_STAGES
    from uner.tagger import Student

    text = "The patients received clonidine , then tizanidine , and developed bradycardia ."
    ents = {e.text: e for e in next(Student.from_pretrained("uner-student-bio").tag([text]))}
    assert (ents["tizanidine"].type, ents["tizanidine"].stages) == ("DRUG", ("word_endings",))
    assert (ents["clonidine"].type, ents["clonidine"].stages) == ("DRUG", ())
    without = Student.from_pretrained("uner-student-bio", stages=tuple(s for s in BIO_STAGES if s != "word_endings"))
    assert "tizanidine" not in {e.text for e in next(without.tag([text]))}
