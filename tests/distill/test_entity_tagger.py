"""The students' NER component: IOB labels from partial annotation, the batched Viterbi decoder, training, loading."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from uner.distill.entity_tagger import GROWN_OFFSET, Grammar, decode, iob_labels
from uner.paths import student_dir
from uner.tagger import Student

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def valid(path: tuple[str, ...]) -> bool:
    """IOB: an I-X only right after B-X or I-X."""
    prev = "O"
    for tag in path:
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            return False
        prev = tag
    return True


def best_by_enumeration(logits: np.ndarray, o_bias: float) -> list[tuple[int, int, str]]:
    """The oracle: every valid label sequence scored by its summed log-probabilities; the best one's spans."""
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    logp[:, 0] += o_bias
    best = max((p for p in itertools.product(LABELS, repeat=len(logits)) if valid(p)),
               key=lambda p: sum(logp[i, LABELS.index(t)] for i, t in enumerate(p)))
    spans: list[tuple[int, int, str]] = []
    for i, tag in enumerate(best):
        if tag.startswith("B-"):
            spans.append((i, i + 1, tag[2:]))
        elif tag.startswith("I-"):
            spans[-1] = (spans[-1][0], i + 1, tag[2:])
    return spans


def test_iob_labels_keep_missing_tokens_missing():
    assert iob_labels(["U-PER", "O", "B-LOC", "I-LOC", "L-LOC", None, "-", "B-ORG/UNIV", "L-ORG/UNIV"]) == [
        "B-PER", "O", "B-LOC", "I-LOC", "I-LOC", None, None, "B-ORG/UNIV", "I-ORG/UNIV"]


@pytest.mark.parametrize("o_bias", [0.0, 1.5])
def test_decode_finds_the_best_valid_path_for_every_doc_of_a_batch(o_bias):
    rng = np.random.default_rng(0)
    docs = [rng.normal(0, 2, size=(n, len(LABELS))).astype(np.float32) for n in (1, 5, 3, 0, 6, 4, 5)]
    got = decode(Grammar(LABELS), docs, o_bias)
    assert got == [best_by_enumeration(d, o_bias) if len(d) else [] for d in docs]


def test_decode_repairs_what_argmax_would_break():
    g = Grammar(LABELS)
    # argmax per token: O, I-PER, I-PER (no B-) -> one PER entity over tokens 1-2, not two fragments
    x = np.array([[5, 0, 0, 0, 0], [0, 3, 4, 0, 0], [0, 0, 5, 0, 0]], dtype=np.float32)
    assert decode(g, [x]) == [[(1, 3, "PER")]]
    # a weak entity disappears under a large enough O bias
    weak = np.array([[1.0, 1.2, 0, 0, 0]], dtype=np.float32)
    assert decode(g, [weak]) == [[(0, 1, "PER")]] and decode(g, [weak], o_bias=1.0) == [[]]


def train_examples(nlp) -> list[Example]:
    """Partially annotated sentences: names typed, one uncertain name missing (neither entity nor O)."""
    out = []
    for first, city in itertools.product(["Anna", "Boris", "Carla", "Dmitri"], ["Paris", "Oslo", "Lima"]):
        words = [first, "Smith", "flew", "to", city, "with", "Zork", "."]
        ref = Doc(nlp.vocab, words=words)
        ref.set_ents([Span(ref, 0, 2, "PER"), Span(ref, 4, 5, "LOC")], missing=[ref[6:7]], default="outside")
        out.append(Example(nlp.make_doc(" ".join(words)), ref))
    return out


def test_trained_component_tags_saves_and_loads_in_a_fresh_process(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("uner_entity_tagger", name="ner")
    examples = train_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    ner = nlp.get_pipe("ner")
    assert ner.labels == ("O", "B-LOC", "I-LOC", "B-PER", "I-PER")
    _, grads = ner.get_loss(examples[:2], ner.model.predict([eg.predicted for eg in examples[:2]]))
    norms = np.abs(np.asarray(grads[0])).sum(axis=1)
    assert norms[6] == 0 and (np.delete(norms, 6) > 0).all()  # the missing name adds no loss; O tokens do
    for _ in range(30):
        nlp.update(examples, sgd=optimizer)
    doc = nlp("Boris Smith flew to Oslo with Zork .")
    assert [(e.text, e.label_) for e in doc.ents][:2] == [("Boris Smith", "PER"), ("Oslo", "LOC")]
    ner.o_bias = 50.0  # end to end nothing is sure enough; one call may decode without the bias
    text = "Anna Smith flew to Lima ."
    [unbiased] = nlp.pipe([text], component_cfg={"ner": {"o_bias": 0.0}})
    assert nlp(text).ents == () and [e.text for e in unbiased.ents] == ["Anna Smith", "Lima"]
    student = Student(nlp)  # given spans are typed without the end-to-end O bias
    assert list(student.tag([text])) == [[]]
    [[given]] = student.tag([text], [[(0, len("Anna Smith"))]])
    assert (given.text, given.type) == ("Anna Smith", "PER")
    # a text without given spans, even beside one with them, keeps the bias (uner tag passes None per record)
    assert [[e.text for e in ents] for ents in student.tag([text, text], [None, [(0, 10)]])] == [[], ["Anna Smith"]]
    ner.o_bias = 0.0
    nlp.to_disk(tmp_path / "p")
    code = ("import spacy; nlp = spacy.load(%r); print([(e.text, e.label_) for e in nlp('Anna Smith flew to Lima .').ents])"
            % str(tmp_path / "p"))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)  # the entry point, no uner import
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[('Anna Smith', 'PER'), ('Lima', 'LOC')]"


def test_shipped_student_loads_with_spacy_alone():
    code = ("import spacy; nlp = spacy.load(%r); print(nlp.pipe_names, nlp.get_pipe('ner').__class__.__name__, "
            "[(e.text, e.label_) for e in nlp('Angela Merkel flew to Berlin .').ents])" % str(student_dir()))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("['tok2vec', 'ner'] EntityTagger")
    assert "('Angela Merkel', 'PERSON')" in res.stdout and "('Berlin', 'LOCATION')" in res.stdout


def test_grown_student_tags_as_before_and_learns_the_new_labels():
    """``EntityTagger.grow`` widens a trained student's output for a teacher's new labels: what it tagged stays
    (a new subtype starts below its type, a new type at the lowest bias), the labels survive a save, and an
    update moves the new rows."""
    nlp = spacy.load(student_dir())
    ner = nlp.get_pipe("ner")
    text = "Angela Merkel opened the Allianz Arena in Munich on 4 May ."
    before = [(e.text, e.label_) for e in nlp(text).ents]
    n = len(ner.labels)
    assert ner.grow(["LOCATION/STADIUM_X", "LOCATION", "NEWTYPE_X"]) == [
        "B-LOCATION/STADIUM_X", "I-LOCATION/STADIUM_X", "B-NEWTYPE_X", "I-NEWTYPE_X"]
    assert len(ner.labels) == n + 4 and ner.grow(["NEWTYPE_X"]) == []
    assert [(e.text, e.label_) for e in nlp(text).ents] == before
    [z] = ner.predict([nlp.make_doc(text)])
    index = {label: i for i, label in enumerate(ner.labels)}
    assert np.allclose(z[:, index["B-LOCATION/STADIUM_X"]], z[:, index["B-LOCATION"]] - GROWN_OFFSET, atol=1e-4)
    words = text.split()
    ref = Doc(nlp.vocab, words=words)
    ref.set_ents([Span(ref, 4, 6, "LOCATION/STADIUM_X")], default="outside")
    optimizer = nlp.resume_training()
    for _ in range(5):
        nlp.update([Example(Doc(nlp.vocab, words=words), ref)], sgd=optimizer)
    [after] = ner.predict([Doc(nlp.vocab, words=words)])
    assert after[4, index["B-LOCATION/STADIUM_X"]] > z[4, index["B-LOCATION/STADIUM_X"]]
