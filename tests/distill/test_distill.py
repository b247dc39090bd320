"""Distillation: selection of the teacher's labels, the whole pipeline on a tiny teacher, resume, the student engine."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.tokens import DocBin

from tests.helpers import UNER, uner
from uner.distill import DistillConfig, SelectConfig, TrainConfig, distill, select, train_student
from uner.labels import LabelsFolder
from uner.tagger import Student
from uner.distill.sample import split_headline

NAMES = ["Obama", "Paris", "Toyota", "Berlin", "Tokyo", "London", "France", "Japan"]


def corpus_file(folder: Path, n: int) -> Path:
    """A paragraph per line, two sentences each, capitalised names in varied places."""
    lines = []
    for i in range(n):
        a, b, c = NAMES[i % 8], NAMES[(3 * i + 1) % 8], NAMES[(5 * i + 2) % 8]
        lines.append(f"{a} visited {b} with the executives of {c} in {2000 + i}. The study results showed that "
                     f"{b} was the capital.")
    path = folder / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_select_marks_entities_missing_and_outside(tmp_path):
    text = "Obama met Smith and the company at Paris"
    rec = {"text": text, "entities": [
        {"text": "Obama", "start": 0, "end": 5, "type": "PERSON", "subtype": None, "score": 0.9, "named": True},
        {"text": "Smith", "start": 10, "end": 15, "type": "PERSON", "subtype": None, "score": 0.25, "named": True},
        {"text": "company", "start": 24, "end": 31, "type": "ORGANIZATION", "subtype": None, "score": 0.8,
         "named": False},
        {"text": "Paris", "start": 35, "end": 40, "type": "LOCATION", "subtype": "CITY", "score": 0.7, "named": True}],
        "rejected": [{"text": "met", "start": 6, "end": 9, "type": "OTHER", "subtype": None, "score": 0.2,
                      "named": True}]}
    taught = tmp_path / "teach.jsonl"
    taught.write_text(json.dumps(rec) + "\n")
    report = select(taught, tmp_path / "data", SelectConfig(min_score=0.3, min_label_count=1, heldout_every=2))
    doc = next(DocBin().from_disk(tmp_path / "data" / "train.spacy").get_docs(spacy.blank("en").vocab))
    states = {t.text: (t.ent_iob_, t.ent_type_) for t in doc}
    assert states["Obama"] == ("B", "PERSON")
    assert states["Paris"] == ("B", "LOCATION/CITY")  # the subtype is kept when it has enough examples
    assert states["Smith"][0] == ""  # below the threshold: missing, not O
    assert states["met"][0] == ""  # a rejected name the teacher was unsure of: missing
    assert states["company"] == ("O", "")  # a common-noun entity: not a name
    assert states["the"] == ("O", "") and states["at"] == ("O", "")
    assert report.train == 1 and report.missing == 2 and report.entities == {"PERSON": 1, "LOCATION/CITY": 1}
    rare = select(taught, tmp_path / "rare", SelectConfig(min_label_count=2, heldout_every=2))
    assert rare.entities == {"PERSON": 1, "LOCATION": 1}  # a rare subtype is learned as its type
    common = select(taught, tmp_path / "common", SelectConfig(min_label_count=2, heldout_every=2, common_min_score=0.5))
    assert common.entities == {"PERSON": 1, "LOCATION": 1, "ORGANIZATION": 1}  # (an adapted teacher's common nouns)


def test_entities_of_the_teacher_that_overlap_are_taught_as_missing(tmp_path):
    """Two confident entities sharing a word cannot both be the student's target: neither is taught (their words
    are one missing span), the rest of the sentence is."""
    text = "Patients receive pyrazoloacridine in Paris"
    rec = {"text": text, "entities": [
        {"text": "Patients receive", "start": 0, "end": 16, "type": "PERSON", "subtype": None, "score": 0.9},
        {"text": "receive pyrazoloacridine", "start": 9, "end": 33, "type": "DRUG", "subtype": None, "score": 0.9},
        {"text": "Paris", "start": 37, "end": 42, "type": "LOCATION", "subtype": None, "score": 0.9}]}
    taught = tmp_path / "teach.jsonl"
    taught.write_text(json.dumps(rec) + "\n")
    report = select(taught, tmp_path / "data", SelectConfig(min_label_count=1, heldout_every=2))
    doc = next(DocBin().from_disk(tmp_path / "data" / "train.spacy").get_docs(spacy.blank("en").vocab))
    states = {t.text: (t.ent_iob_, t.ent_type_) for t in doc}
    assert states["Paris"] == ("B", "LOCATION") and states["in"] == ("O", "")
    assert all(states[w][0] == "" for w in ("Patients", "receive", "pyrazoloacridine"))
    assert report.entities == {"LOCATION": 1} and report.missing == 1


def test_rare_target_shows_the_sentences_of_rare_labels_again(tmp_path):
    """A train sentence whose rarest label has n confident examples is shown ceil(rare_target / n) times, at most
    eight; a rare subtype counts with its type; held-out sentences are never repeated."""
    def rec(text, *ents):
        return {"text": text, "entities": [{"start": text.index(w), "end": text.index(w) + len(w), "type": t,
                                            "subtype": sub, "score": 0.9} for w, t, sub in ents]}
    person = ("Obama", "PERSON", None), ("Smith", "PERSON", None)
    records = [rec("Obama met Smith", *person), rec("Smith met Obama", *person),
               rec("They signed the Treaty of Paris", ("Treaty of Paris", "LEGAL", "LAW")),
               rec("Smith signed the Act", ("Smith", "PERSON", None), ("Act", "LEGAL", None)),
               rec("Obama slept", ("Obama", "PERSON", None))]
    taught = tmp_path / "teach.jsonl"
    taught.write_text("".join(json.dumps(r) + "\n" for r in records))

    def shown(rare_target):
        report = select(taught, tmp_path / str(rare_target), SelectConfig(min_label_count=2, heldout_every=5,
                                                                           rare_target=rare_target))
        docs = DocBin().from_disk(tmp_path / str(rare_target) / "train.spacy").get_docs(spacy.blank("en").vocab)
        return report, Counter(doc.text for doc in docs)

    report, counts = shown(0)
    assert report.repeated == 0 and set(counts.values()) == {1} and "Obama slept" not in counts  # (held out)
    report, counts = shown(4)  # PERSON has 6 examples, LEGAL 2 (LAW's one learned as LEGAL): shown twice
    assert counts == {"Obama met Smith": 1, "Smith met Obama": 1, "They signed the Treaty of Paris": 2,
                      "Smith signed the Act": 2} and report.repeated == 2
    report, counts = shown(100)
    assert set(counts.values()) == {8} and report.repeated == 4 * 7 and report.heldout == 1


def test_select_names_the_bad_line(tmp_path):
    taught = tmp_path / "teach.jsonl"
    taught.write_text('{"text": "a", "entities": []}\n{"text": \n')
    with pytest.raises(ValueError, match=r"teach.jsonl:2: not a JSON line"):
        select(taught, tmp_path / "data")
    assert not (tmp_path / "data" / "selection.json").exists()


def test_the_student_goes_outside_the_work_folder(tmp_path):
    """A work folder's students stay as trained (dev choices edit only the shipped copy)."""
    with pytest.raises(ValueError, match="outside the work folder"):
        distill(DistillConfig([str(tmp_path / "corpus.txt")]), tmp_path / "work", tmp_path / "work" / "student")
    assert not (tmp_path / "work").exists()


def test_student_cuts_titles_from_its_person_entities_but_not_from_given_spans():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", name="ner")  # a pipeline whose NER keeps the title
    ruler.add_patterns([{"label": "PERSON", "pattern": "President Boris Yeltsin"},
                        {"label": "ORGANIZATION", "pattern": "General Motors"}])
    text = "President Boris Yeltsin met General Motors ."
    [ents] = Student(nlp).tag([text])
    assert [(e.text, e.type) for e in ents] == [("Boris Yeltsin", "PERSON"), ("General Motors", "ORGANIZATION")]
    [given] = Student(nlp).tag([text], [[(0, len("President Boris Yeltsin"))]])
    assert [(e.text, e.type) for e in given] == [("President Boris Yeltsin", "PERSON")]


def test_headlines_are_split_from_the_story():
    assert split_headline("OIL PRICES RISE IN LONDON Crude oil rose 2 pct.") == ["OIL PRICES RISE IN LONDON",
                                                                                   "Crude oil rose 2 pct."]
    assert split_headline("The U.S. And Japan agreed.") == ["The U.S. And Japan agreed."]


def distill_args(tiny, corpus: Path, work: Path, out: Path, sentences: int, steps: int = 400) -> list[str]:
    return ["distill", str(corpus), "--work", str(work), "--out", str(out), "--model", str(tiny[0]), "--labels",
            str(tiny[1]), "--sentences", str(sentences), "--max-steps", str(steps), "--eval-frequency", "100",
            "--min-score", "0"]


def test_pipeline_student_learns_the_teachers_labels(tiny, tmp_path):
    corpus = corpus_file(tmp_path, 40)
    work, out = tmp_path / "work", tmp_path / "student"
    gold = tmp_path / "conll2003" / "valid.txt"  # (the shipped CoNLL mapping goes by the file's path)
    gold.parent.mkdir()
    gold.write_text("Obama NNP B-NP B-PER\nvisited VBD B-VP O\nParis NNP B-NP B-LOC\n. . O O\n")
    res = uner(*distill_args(tiny, corpus, work, out, 80), "--rounds", "2", "--dev", str(gold))
    assert res.returncode == 0, res.stderr
    assert {"sample.json", "sentences.txt", "teach.jsonl", "vectors", "round2", "dev.json"} <= {
        p.name for p in work.iterdir()}
    dev = json.loads((work / "dev.json").read_text())
    biases = dev.pop("o_bias")
    f1 = {r: d[f"conll2003/{gold.name}"]["micro"]["f1"] for r, d in dev.items()}
    chosen = 2 if f1["round2"] > f1["round1"] else 1  # a round is kept only if it is better on dev
    card = (out / "MODEL_CARD.md").read_text()
    assert card.count("corpus.txt") == 1 and f"shipped: round {chosen}" in card
    # the decoder's O bias: each of the grid scored on dev with the chosen round; the first best one is shipped
    bias_f1 = {float(b): d[f"conll2003/{gold.name}"]["micro"]["f1"] for b, d in biases.items()}
    assert sorted(bias_f1) == [0.0, 1.0, 2.0, 3.0]
    best = min(b for b, v in bias_f1.items() if v == max(bias_f1.values()))
    assert Student.from_pretrained(out).nlp.get_pipe("ner").o_bias == best
    assert f"chosen on the dev files: **{best}**" in card
    config = (out / "config.cfg").read_text()  # (no folder of this machine in what ships)
    assert 'train = "WORK/data/train.spacy"' in config and str(tmp_path) not in config
    assert (out / "ner" / "model").read_bytes() == (work / ("student" if chosen == 1 else "round2/student")
                                                    / "ner" / "model").read_bytes()
    taught = [json.loads(line) for line in (work / "teach.jsonl").read_text().splitlines()]
    teacher = {(i, e["start"], e["end"], e["type"]) for i, r in enumerate(taught) for e in r["entities"] if e["named"]}
    assert len(teacher) > 50  # (names: common nouns are not learned as entities)
    student = Student.from_pretrained(work / "student")  # round 1: taught by the masked-LM tagger
    vectors = student.nlp.vocab.vectors  # the teacher's word vectors came along, under each casing
    assert vectors.shape[0] > 10 and all(student.nlp.vocab.has_vector(w) for w in ("paris", "Paris", "PARIS"))
    learned = {(i, e.start, e.end, e.type) for i, ents in enumerate(student.tag([r["text"] for r in taught]))
               for e in ents}
    assert len(teacher & learned) / len(teacher) > 0.8  # the student reproduces its training labels (0.875 seen)
    # the student as an engine of `uner tag`: the teacher's record format
    inp = tmp_path / "in.txt"
    inp.write_text("Obama visited Paris .\n\nTokyo\n")
    tagged = tmp_path / "tagged.jsonl"
    res = uner("tag", str(inp), "-o", str(tagged), "--engine", "student", "--model", str(out))
    assert res.returncode == 0, res.stderr
    recs = [json.loads(x) for x in tagged.read_text().splitlines()]
    assert [r["id"] for r in recs] == ["1", "2", "3"] and recs[1]["entities"] == []
    for ent in recs[0]["entities"]:
        assert set(ent) == {"text", "start", "end", "type", "subtype", "score"}
        assert recs[0]["text"][ent["start"]:ent["end"]] == ent["text"]
        assert 0 < ent["score"] <= 1  # on the teacher's scale: the score map fitted on teach.jsonl
    assert LabelsFolder(out).score_map() is not None and LabelsFolder(out).default_domain() == "general"


def test_a_trained_student_goes_on_learning_from_another_teacher(tiny, tmp_path):
    """``--init``: training starts from a trained student's weights, vectors and labels (a stronger teacher
    refines a student taught on more sentences), growing the labels it lacks; no teacher vectors are built; the
    card says where it started."""
    corpus = corpus_file(tmp_path, 30)
    first, second = tmp_path / "work", tmp_path / "work2"
    res = uner(*distill_args(tiny, corpus, first, tmp_path / "student", 60, steps=200))
    assert res.returncode == 0, res.stderr
    second.mkdir()
    for name in ("sample.json", "sentences.txt", "teach.jsonl"):  # (the same teaching, read again)
        (second / name).write_bytes((first / name).read_bytes())
    res = uner(*distill_args(tiny, corpus, second, tmp_path / "student2", 60, steps=100), "--init",
               str(tmp_path / "student"))
    assert res.returncode == 0, res.stderr
    assert not (second / "vectors").exists()
    before, after = Student.from_pretrained(tmp_path / "student"), Student.from_pretrained(tmp_path / "student2")
    assert after.nlp.get_pipe("ner").labels == before.nlp.get_pipe("ner").labels
    assert after.nlp.vocab.vectors.shape == before.nlp.vocab.vectors.shape
    assert (tmp_path / "student2" / "ner" / "model").read_bytes() != (tmp_path / "student" / "ner" / "model").read_bytes()
    assert "went on from the student" in (tmp_path / "student2" / "MODEL_CARD.md").read_text()
    res = uner(*distill_args(tiny, corpus, tmp_path / "work3", tmp_path / "student3", 60), "--init", str(tmp_path))
    assert res.returncode == 2 and "init: " in res.stderr and "not a student pipeline folder" in res.stderr
    # a teacher with a label the student lacks (a new subtype): the student grows it and keeps its own
    taught = [json.loads(line) for line in (first / "teach.jsonl").read_text().splitlines()]
    for rec in taught:
        for ent in rec["entities"]:
            ent["subtype"] = "CAPITAL" if ent["text"] in ("Paris", "Berlin", "Tokyo", "London") else ent["subtype"]
    (second / "teach.jsonl").write_text("".join(json.dumps(r) + "\n" for r in taught))
    select(second / "teach.jsonl", second / "data2", SelectConfig(min_score=0.0, min_label_count=1, heldout_every=5))
    new = set(json.loads((second / "data2" / "selection.json").read_text())["entities"])
    train_student(second / "data2", tmp_path / "student4", TrainConfig(max_steps=50, eval_frequency=25),
                  init=tmp_path / "student")
    grown = {label[2:] for label in spacy.load(tmp_path / "student4").get_pipe("ner").labels if label != "O"}
    old = {label[2:] for label in before.nlp.get_pipe("ner").labels if label != "O"}
    assert any(label.endswith("/CAPITAL") for label in new) and grown == old | new


def test_rehearsal_adds_the_first_students_labels_on_more_of_the_sample(tiny, tmp_path):
    """``--rehearse N`` with ``--init``: N more sentences of the sample are labelled by the student that training
    goes on from and selected beside the teacher's; without ``--init`` it is refused in one line."""
    corpus = corpus_file(tmp_path, 30)
    res = uner(*distill_args(tiny, corpus, tmp_path / "work", tmp_path / "student", 40, steps=100))
    assert res.returncode == 0, res.stderr
    work = tmp_path / "work2"
    res = uner(*distill_args(tiny, corpus, work, tmp_path / "student2", 30, steps=50), "--init",
               str(tmp_path / "student"), "--rehearse", "20")
    assert res.returncode == 0, res.stderr
    lines = {name: (work / name).read_text().splitlines() for name in ("sentences.txt", "rehearse.txt",
                                                                      "teach.jsonl", "rehearse.jsonl")}
    assert len(lines["sentences.txt"]) == len(lines["teach.jsonl"]) and lines["rehearse.txt"]
    assert [json.loads(r)["text"] for r in lines["rehearse.jsonl"]] == lines["rehearse.txt"]
    assert len(lines["sentences.txt"]) + len(lines["rehearse.txt"]) > 30  # (the sample's 30 and more)
    selection = json.loads((work / "data" / "selection.json").read_text())
    assert selection["train"] + selection["heldout"] == len(lines["teach.jsonl"]) + len(lines["rehearse.jsonl"])
    card = (tmp_path / "student2" / "MODEL_CARD.md").read_text()
    assert f"the next {len(lines['rehearse.jsonl'])} labelled by the student it went on from (rehearsal" in card
    res = uner(*distill_args(tiny, corpus, tmp_path / "work3", tmp_path / "student3", 30), "--rehearse", "5")
    assert res.returncode == 2 and "rehearse: " in res.stderr


def test_teacher_vectors_keep_whole_words_with_their_types(tmp_path):
    from uner.distill.vectors import teacher_vectors, write_vectors

    vocab = ["[CLS]", "##ing", "a", "1990", "paris", "toyota", "o'neill", "rome"]
    rng = np.random.default_rng(0)
    types = np.zeros((len(vocab), 2), np.float32)
    types[vocab.index("toyota"), 1] = 1.0
    words, vectors = teacher_vectors(rng.normal(size=(len(vocab), 8)), vocab, types, dims=3)
    assert words == ["paris", "toyota", "o'neill", "rome"] and vectors.shape == (4, 5)
    assert vectors[1, 3:].tolist() == [0.0, 2.0] and not vectors[0, 3:].any()  # type votes, scaled
    nlp = spacy.load(write_vectors(words, vectors, tmp_path / "vectors"))
    for form in ("toyota", "Toyota", "TOYOTA"):
        assert nlp.vocab.get_vector(form).tolist() == pytest.approx(vectors[1].tolist())
    assert not nlp.vocab.has_vector("1990") and not nlp.vocab.has_vector("ing")


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_the_teacher_teaches_on_the_backend_asked_for(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path / "cache"))  # (the graph is built into it, by the workers)
    corpus = corpus_file(tmp_path, 20)
    work, out = tmp_path / "work", tmp_path / "student"
    res = uner(*distill_args(tiny, corpus, work, out, 40, steps=20), "--backend", "onnx", "--workers", "2",
               "--no-vectors")
    assert res.returncode == 0, res.stderr
    assert [p.name.split("-")[0] for p in (tmp_path / "cache" / "onnx").glob("*.onnx")] == [tiny[0].name]
    assert len((work / "teach.jsonl").read_text().splitlines()) == len((work / "sentences.txt").read_text().splitlines())
    assert "backend `onnx`" in (out / "MODEL_CARD.md").read_text()


def test_killed_teacher_resumes_to_the_same_files(tiny, tmp_path):
    corpus = corpus_file(tmp_path, 200)
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    args = distill_args(tiny, corpus, whole, tmp_path / "s1", 400, steps=20)
    assert uner(*args).returncode == 0
    args = distill_args(tiny, corpus, parts, tmp_path / "s2", 400, steps=20)
    proc = subprocess.Popen([*UNER.split(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = parts / "teach.jsonl.partial"
    deadline = time.time() + 240
    while time.time() < deadline and not (partial.is_file() and partial.read_text().count("\n") >= 64):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (parts / "teach.jsonl").exists(), "the teacher finished before it could be killed"
    res = uner(*args)
    assert res.returncode == 0, res.stderr
    assert "sample: done already" in res.stderr
    for name in ("sentences.txt", "teach.jsonl", "data/train.spacy", "data/heldout.spacy", "data/selection.json"):
        assert (parts / name).read_bytes() == (whole / name).read_bytes(), name


def test_student_types_given_spans_and_reports_a_missing_folder(tmp_path):
    nlp = spacy.blank("en")  # a rule-based stand-in for a trained NER: the student's labels, known entities
    ruler = nlp.add_pipe("entity_ruler", name="ner")
    ruler.add_patterns([{"label": "LOCATION/CITY", "pattern": "New York"}, {"label": "PERSON", "pattern": "Ann"}])
    student = Student(nlp)
    text = "Ann lives in New York City ."
    [found] = student.tag(text)
    assert [(e.text, e.type, e.subtype, e.score) for e in found] == [("Ann", "PERSON", None, None),
                                                                     ("New York", "LOCATION", "CITY", None)]
    [given] = student.tag([text], [[(13, 26), (4, 9)]])  # "New York City" overlaps "New York"; "lives" nothing
    assert [(e.text, e.type, e.subtype) for e in given] == [("New York City", "LOCATION", "CITY")]
    with pytest.raises(FileNotFoundError, match="not a student pipeline folder"):
        Student.from_pretrained(tmp_path)
    res = uner("tag", "-", "--engine", "student", "--model", str(tmp_path), stdin="Paris\n")
    assert res.returncode == 2 and "not a student pipeline folder" in res.stderr
