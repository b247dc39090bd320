"""Post-typing stages: tidy edges in every engine, named stages per domain that can be switched off, and one
document's failure kept to its own record."""

from __future__ import annotations

import json
import pytest

from tests.helpers import BIO_STAGES, STUDENT_BIO_STAGES, uner
from uner.io import Record
from uner.tagger import STAGES, Entity, Student, Tagger, TaggerConfig, run_stages, tag_records
from uner.tagger.records import ModelFailure
from uner.tagger.stages import Stage, tidy, tidy_bounds


NBSP, THIN, ZWSP = "\u00a0", "\u2009", "\u200b"
# Wikipedia writes dates with no-break spaces; the student tagged runs of them (issue 41: a crash at paragraph 30,785)
CHARLEMAGNE = (f"Charlemagne was the eldest child of Pepin the Short (714{NBSP}–{NBSP}24{NBSP}September{NBSP}768, "
               f"reigned from 751) and his wife Bertrada of Laon (720{NBSP}–{NBSP}12{NBSP}July{NBSP}783), daughter of "
               "Caribert of Laon and Bertrada of Cologne. Records name only Carloman, Gisela, and three short-lived "
               "children named Pepin, Chrothais and Adelais as his younger siblings.")
TITLE = "President Boris Yeltsin met the press in Moscow ."
SPORT = "Leicestershire beat Somerset by an innings and 39 runs ."


@pytest.fixture(scope="module")
def teacher():
    return Tagger.from_pretrained(device="cpu")


@pytest.fixture(scope="module")
def student():
    return Student.from_pretrained()


def _clean(text: str, ents) -> None:
    for e in ents:
        assert e.text == text[e.start : e.end] and e.text.strip() == e.text and e.text, e
        assert not any(c in e.text[0] + e.text[-1] for c in (NBSP, THIN, ZWSP, ",", "(", "–")), e


@pytest.mark.parametrize("engine", ["teacher", "student"])
def test_the_charlemagne_paragraph_tags_with_clean_edges(engine, teacher, student):
    tagger = teacher if engine == "teacher" else student
    [ents] = tagger.tag([CHARLEMAGNE])
    _clean(CHARLEMAGNE, ents)
    assert {"Charlemagne", "Cologne"} <= {e.text for e in ents}


@pytest.mark.parametrize("text, span, expected", [
    (f"a{NBSP}{NBSP}b", (1, 3), None),  # only no-break spaces
    (f"x {ZWSP}Paris{THIN}, y", (2, 10), "Paris"),
    ("in (Kmart) now", (3, 10), "Kmart"),
    ("in Kmart (U.S.) now", (3, 15), "Kmart (U.S.)"),  # a bracket whose partner is inside stays
    ("the U.S. said", (4, 8), "U.S."),  # an abbreviation's dot stays
    ("said Jones' lawyer", (5, 11), "Jones"),
    ('the "Thriller" album', (4, 14), "Thriller"),
    ("in C# and F# .", (3, 5), "C#"),
    ("up 90% -", (3, 8), "90%"),
    ("-- , ;", (0, 6), None),
])
def test_tidy_moves_edges_past_blanks_and_stray_punctuation(text, span, expected):
    ent = Entity(text[span[0] : span[1]], *span, "LOCATION", None, 0.5)
    out = tidy(text, ent)
    assert (out.text if out else None) == expected
    if out is not None:
        assert out.text == text[out.start : out.end] and (out is ent) == (span == (out.start, out.end))
        assert tidy_bounds(text, out.start, out.end) == (out.start, out.end)  # idempotent


def test_stages_switch_off_one_by_one_in_the_teacher(teacher):
    def run(stages):
        old, teacher.config = teacher.config, TaggerConfig(stages=stages)
        try:
            return {e.text: e.type for ents in teacher.tag([TITLE, SPORT]) for e in ents}
        finally:
            teacher.config = old

    both = run(("person_titles", "sports_teams"))
    assert both["Boris Yeltsin"] == "PERSON" and both["Leicestershire"] == "ORGANIZATION"
    no_titles = run(("sports_teams",))
    assert "President Boris Yeltsin" in no_titles and no_titles["Leicestershire"] == "ORGANIZATION"
    no_teams = run(("person_titles",))
    assert no_teams["Boris Yeltsin"] == "PERSON" and no_teams["Leicestershire"] == "LOCATION"


def test_stages_switch_off_in_the_student():
    on = {e.text: e.type for e in next(Student.from_pretrained().tag([SPORT]))}
    off = {e.text: e.type for e in next(Student.from_pretrained(stages=()).tag([SPORT]))}
    assert on["Somerset"] == "ORGANIZATION" and off["Somerset"] == "LOCATION"


def test_the_biomedical_domain_runs_no_news_stages():
    assert TaggerConfig.for_domain("general").stages == ("person_titles", "sports_teams")
    assert TaggerConfig.for_domain("biomedical").stages == BIO_STAGES
    # the student runs a part of what its teacher ran, in the same order (rules teach, the student tags)
    student = Student.from_pretrained("uner-student-bio").stages
    assert student == STUDENT_BIO_STAGES and student == tuple(s for s in BIO_STAGES if s in student)
    bio = Tagger.from_pretrained("uner-bio", device="cpu")
    assert bio.config.stages == BIO_STAGES
    ents = [e for d in bio.tag([TITLE, SPORT], explain=True) for e in d]
    assert not any(set(e.stages) - {"tidy"} for e in ents)


def test_explain_names_the_stage_that_changed_an_entity(tmp_path):
    inp, out = tmp_path / "in.txt", tmp_path / "out.jsonl"
    inp.write_text(f"{TITLE}\n{SPORT}\n")
    res = uner("tag", str(inp), "-o", str(out), "--explain")
    assert res.returncode == 0, res.stderr
    ents = {e["text"]: e for line in out.read_text().splitlines() for e in json.loads(line)["entities"]}
    assert ents["Boris Yeltsin"]["stages"] == ["person_titles"]
    assert ents["Leicestershire"]["stages"] == ["sports_teams"] and "stages" not in ents["Moscow"]
    res = uner("tag", str(inp), "-o", str(tmp_path / "off.jsonl"), "--engine", "teacher", "--stages", "none")
    texts = {e["text"] for line in (tmp_path / "off.jsonl").read_text().splitlines()
             for e in json.loads(line)["entities"]}
    assert res.returncode == 0 and "President Boris Yeltsin" in texts
    res = uner("tag", str(inp), "-o", str(tmp_path / "bad.jsonl"), "--engine", "teacher", "--stages",
               "person_titles,nope")
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "unknown stage 'nope'" in res.stderr
    assert not (tmp_path / "bad.jsonl").exists()


def test_labels_folder_lists_its_stages(tiny, tmp_path):
    import shutil

    labels = tmp_path / "labels"
    shutil.copytree(tiny[1], labels)
    (labels / "tagger.yaml").write_text("domain: general\nstages: [person_titles]\n")
    tagger = Tagger.from_pretrained(str(tiny[0]), labels, device="cpu")
    assert tagger.config.stages == ("person_titles",)
    (labels / "tagger.yaml").write_text("domain: general\nstages: [person_titles, no_such_stage]\n")
    with pytest.raises(ValueError, match=r"tagger\.yaml: unknown stage 'no_such_stage'"):
        Tagger.from_pretrained(str(tiny[0]), labels, device="cpu")


def _explode_on(word: str, exc: type[BaseException]) -> Stage:
    def apply(text, ents):
        if word in text:
            raise exc(f"{word} in the text")
        return list(ents)
    return Stage("explode", apply)


def _records(texts):
    return [Record(n, str(n), t, {}) for n, t in enumerate(texts, 1)]


def test_an_exception_inside_one_document_becomes_its_error_record(tiny, monkeypatch):
    texts = ["Paris is big .", "boom went Tokyo .", "London and Berlin ."]
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", config=TaggerConfig(stages=()))
    clean = list(tag_records(tagger, _records(texts)))
    monkeypatch.setitem(STAGES, "explode", _explode_on("boom", KeyError))
    tagger.config = TaggerConfig(stages=("explode",))
    got = list(tag_records(tagger, _records(texts), batch_size=8))
    assert [r["id"] for r in got] == ["1", "2", "3"]
    assert got[1]["error"] == "line 2: KeyError: 'boom in the text'" and got[1]["entities"] == []
    assert got[0] == clean[0] and got[2] == clean[2] and clean[0]["entities"]
    monkeypatch.setitem(STAGES, "explode", _explode_on("boom", MemoryError))
    with pytest.raises(ModelFailure, match="MemoryError"):  # the model failing stops the run
        list(tag_records(tagger, _records(texts)))


def test_run_stages_leaves_rejected_candidates_alone():
    text = "Leicestershire beat Somerset ."
    kept = Entity("Leicestershire", 0, 14, "LOCATION", None, 0.5)
    rejected = Entity("Somerset", 20, 28, "LOCATION", None, 0.1, kept=False)
    out = run_stages(text, [kept, rejected], ("sports_teams",))
    assert out[1] is rejected and out[0].type == "ORGANIZATION" and out[0].stages == ("sports_teams",)


def test_a_labels_folders_own_word_lists_feed_its_stages(tmp_path):
    """The stages read their words from beside the labels; a folder without a list falls back to the shipped one."""
    from uner.tagger.stages import read_words

    text = "President Boris Yeltsin met Doctor Ann Smith ."
    ents = [Entity("President Boris Yeltsin", 0, 23, "PERSON", None, 0.5),
            Entity("Doctor Ann Smith", 28, 44, "PERSON", None, 0.5)]
    shipped = run_stages(text, ents, ("person_titles",))
    assert [e.text for e in shipped] == ["Boris Yeltsin", "Ann Smith"]
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "person_titles.yaml").write_text(
        "types: {person: PERSON}\ntitles: [doctor]\nparticles: []\nsuffixes: []\n")
    own = run_stages(text, ents, ("person_titles",), str(tmp_path))
    assert [e.text for e in own] == ["President Boris Yeltsin", "Ann Smith"]
    assert read_words("sports_teams", str(tmp_path))["types"]["team"] == "ORGANIZATION"  # (shipped)
    with pytest.raises(ValueError, match=r"no word list no_such_list\.yaml in .*stages"):
        read_words("no_such_list", str(tmp_path))


def test_a_stage_file_reads_a_list_of_another_with_same_as(tmp_path):
    """Two stages share one list: ``{same_as: OTHER.ENTRY}`` reads it from the other file of the same folder; a
    reference without an entry, or to its own file, is a one-line error naming the file and the field."""
    from uner.tagger.stages import read_words

    stages = tmp_path / "stages"
    stages.mkdir()
    (stages / "first.yaml").write_text("labels: [THERAPY, PERSON]\n")
    (stages / "second.yaml").write_text("labels: {same_as: first.labels}\nmin: 1\n")
    (stages / "third.yaml").write_text("labels: {same_as: first}\n")
    (stages / "fourth.yaml").write_text("labels: {same_as: fourth.labels}\n")
    assert read_words("second", str(tmp_path)) == {"labels": ["THERAPY", "PERSON"], "min": 1}
    for name in ("third", "fourth"):
        with pytest.raises(ValueError, match=rf"{name}\.yaml: 'labels': same_as names OTHER\.ENTRY"):
            read_words(name, str(tmp_path))
    (stages / "fifth.yaml").write_text("labels: {same_as: first.missing}\n")
    with pytest.raises(ValueError, match=r"first\.yaml: no 'missing' entry"):
        read_words("fifth", str(tmp_path))


def test_a_list_that_breaks_a_stages_order_fails_with_one_line(tmp_path):
    """Each stage names the stages it must run after; every name is a stage, the shipped lists keep the order, and
    a list that breaks it fails before any model loads: one line, exit 2, no output file."""
    import yaml

    from uner.analysis.evaluate import Mapping
    from uner.tagger.stages import resolve_stages

    assert all(other in STAGES for stage in STAGES.values() for other in stage.after)
    student_list = yaml.safe_load(open("models/uner-student-bio/tagger.yaml"))["stages"]
    for names in (BIO_STAGES, student_list, (*BIO_STAGES, *Mapping.named("jnlpba").stages)):
        assert [s.name for s in resolve_stages(names)] == list(names)
    with pytest.raises(ValueError, match=r"stage 'repeated_names' must run after 'lexicon'"):
        resolve_stages(["repeated_names", "lexicon"])
    inp, out = tmp_path / "in.txt", tmp_path / "out.jsonl"
    inp.write_text("Aspirin relieved the headache .\n")
    res = uner("tag", str(inp), "-o", str(out), "--model", "uner-bio", "--stages", "trailing_heads,phrase_bounds")
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "'trailing_heads' must run after 'phrase_bounds'" in res.stderr and not out.exists()


def test_each_stages_settings_sit_with_the_model_it_serves():
    """The general labels hold the general stages' settings, the biomedical labels the biomedical ones (the phrase
    table in the biomedical model's folder), and the word lists that are no stage's sit in ``words/``."""
    from uner.paths import embedded_models, labels_dir
    from uner.tagger.stages import read_words
    from uner.tagger.stages.registry import find_word_file

    general, bio = labels_dir("uner-minilm-l6"), labels_dir("uner-bio")
    assert {p.stem for p in (general / "stages").glob("*.yaml")} == {"abbreviations", "person_titles", "sports_teams"}
    for name in BIO_STAGES:
        if name != "abbreviations":
            assert find_word_file(f"{name}.yaml") == bio / "stages" / f"{name}.yaml"
    assert find_word_file("biomedical_phrases.npz") == embedded_models()["uner-bio"] / "stages" / "biomedical_phrases.npz"
    assert all(find_word_file(f"{name}.yaml").parent.name == "words"
               for name in ("countries", "head_joins", "inner_names", "name_joins", "noun_phrases"))
    assert "france" in {w.lower() for w in read_words("abbreviations")["countries"]}  # (same_as a words/ list)
