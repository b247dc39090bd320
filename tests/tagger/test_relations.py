"""Relation triples through the real spaCy parser and the shipped model and labels; guessing."""

from __future__ import annotations

import pytest

from uner.analysis.relations import RelationExtractor, summarise
from uner.tagger import Tagger, TaggerConfig, entity_guesses


@pytest.fixture(scope="module")
def extractor():
    # every noun phrase is a candidate (the reference's policy): these tests are about dependency paths,
    # and under the "named" policy "CEO of Apple" is one name
    return RelationExtractor(Tagger.from_pretrained(device="cpu", config=TaggerConfig.for_domain(span_policy="nouns")))


def triples(extractor, sentence):
    return [(t.e1.text.lower(), t.relation, t.e2.text.lower(), t.negated) for t in next(extractor.extract([sentence]))]


def test_passive(extractor):
    assert ("aspirin", "treat", "headaches", False) in triples(extractor, "Aspirin is used to treat headaches .")


def test_apposition(extractor):
    found = triples(extractor, "Tim Cook , the CEO of Apple , visited Paris .")
    assert ("tim cook", "ceo of", "apple", False) in found
    assert ("tim cook", "visit", "paris", False) in found


def test_coordination_gives_both_conjuncts(extractor):
    found = triples(extractor, "Aspirin and ibuprofen reduce fever .")
    assert ("aspirin", "reduce", "fever", False) in found and ("ibuprofen", "reduce", "fever", False) in found


def test_negation(extractor):
    assert ("aspirin", "cure", "cancer", True) in triples(extractor, "Aspirin does not cure cancer .")


def test_no_relation(extractor):
    assert triples(extractor, "The weather was nice .") == []
    assert triples(extractor, "Hello !") == []


def test_filters_and_summary(extractor):
    sents = ["Smith lives in London .", "Jones lives in Paris .", "Aspirin is used to treat headaches .",
             "The company reported higher earnings .", "The weather report mentioned rain ."]  # ordinary words: OTHER
    found = [t for ts in extractor.extract(sents) for t in ts]
    counts = dict(summarise(found))
    assert sum(n for (a, rel, b), n in counts.items() if rel == "live in") == 2
    typed = dict(summarise(found, typed_only=True))
    assert typed and all("OTHER" not in (a, b) and counts[(a, rel, b)] == n for (a, rel, b), n in typed.items())
    assert any("OTHER" in (a, b) for a, _, b in counts)  # so the filter above had something to drop
    only = RelationExtractor(extractor.tagger, relations={"treat"})
    assert {t.relation for ts in only.extract(sents) for t in ts} == {"treat"}


def test_entity_guessing_groups_predictions_by_type(extractor):
    guesses = entity_guesses(extractor.tagger, ["paris is the capital of [MASK] ."])[0][0]
    # probabilities of the top-k terms, summed by type; each value is rounded to 4 decimals
    assert guesses and sum(guesses.values()) <= 1.0 + 5e-5 * len(guesses)
    assert next(iter(guesses)) == "LOCATION"


def test_relation_type_is_a_noun_predicates_type_never_a_verbs(extractor):
    """A verb's vocabulary labels are those of the nouns around it ("treat" reads DRUG): an OTHER -> OTHER triple
    of the sample carried "relation_type": "DRUG" (issue 78). A noun predicate's type stands ("ceo of": PERSON)."""
    treat = [t for t in next(extractor.extract(["Aspirin is used to treat headaches ."])) if t.relation == "treat"]
    assert treat and all(t.relation_type is None for t in treat)
    ceo = [t for t in next(extractor.extract(["Tim Cook , the CEO of Apple , visited Paris ."])) if t.relation == "ceo of"]
    assert ceo and all(t.relation_type == "PERSON" for t in ceo)
