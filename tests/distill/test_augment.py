"""The student's case augmenter: recased sentences keep their tokens, entities and missing spans."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from tests.helpers import uner
from uner.distill.augment import create_case_augmenter


@pytest.fixture
def example():
    nlp = spacy.blank("en")
    ref = Doc(nlp.vocab, words=["Mr", "Lebed", "flew", "to", "Grozny", "on", "Tuesday", "."])
    # Lebed a PERSON, Grozny missing (the teacher was unsure), everything else outside
    ref.set_ents([Span(ref, 1, 2, "PERSON"), Span(ref, 6, 7, "MEASURE/TIME")], missing=[Span(ref, 4, 5, "")],
                 default="outside")
    return nlp, Example(nlp.make_doc(ref.text), ref)


def _annotation(doc: Doc) -> list[tuple[str, str]]:
    return [(t.ent_iob_, t.ent_type_) for t in doc]


@pytest.mark.parametrize("lower,upper,case", [(1.0, 0.0, str.lower), (0.0, 1.0, str.upper)])
def test_recased_sentences_keep_tokens_entities_and_missing_spans(example, lower, upper, case):
    nlp, ex = example
    (out,) = create_case_augmenter(lower, upper)(nlp, ex)
    assert out.reference.text == case(ex.reference.text) != ex.reference.text
    assert [t.text for t in out.reference] == [case(t.text) for t in ex.reference]
    assert _annotation(out.reference) == _annotation(ex.reference)
    assert _annotation(out.reference)[4] == ("", "")  # still missing, not outside


def test_shares_of_zero_leave_the_sentence_alone_and_bad_shares_are_refused(example):
    nlp, ex = example
    assert list(create_case_augmenter(0.0, 0.0)(nlp, ex)) == [ex]
    with pytest.raises(ValueError, match="lower .* upper"):
        create_case_augmenter(0.6, 0.6)


def test_spacy_configs_find_the_augmenter_by_name(example):
    nlp, ex = example
    resolved = registry.resolve({"aug": {"@augmenters": "uner.case.v1", "lower": 0.0, "upper": 1.0}})
    (out,) = resolved["aug"](nlp, ex)
    assert out.reference.text.isupper()


def test_distill_refuses_casing_shares_over_one_before_any_work(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Barack Obama visited Paris.\n", encoding="utf-8")
    run = uner("distill", str(corpus), "--work", str(tmp_path / "work"), "--out", str(tmp_path / "student"),
               "--lowercase", "0.7", "--uppercase", "0.5")
    assert run.returncode != 0
    assert "--lowercase (0.7) and --uppercase (0.5)" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "work").exists()
