"""Synonym harvesting on the embedded model (issue 78): the term's own family never returned, contrast in a corpus
demotes an opposite, synonymy promotes, a term outside the vocabulary answers without the neighbour graph, and the
command's one-line errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from uner.models import MaskedLM
from uner.vocab import SynonymHarvester
from uner.vocab.synonyms import Family, parse_evidence

CONTRAST = ["Prices went from big to small within a year.", "You can choose big or small.",
            "It was not big but small.", "We prefer big rather than small houses.", "The match was big versus small."]


@pytest.fixture(scope="module")
def mlm():
    return MaskedLM.from_pretrained(device="cpu")


@pytest.fixture(scope="module")
def harvester(mlm):
    return SynonymHarvester(mlm)


def ranked(record: dict) -> list[str]:
    return [c["term"] for c in record["synonyms"]]


@pytest.mark.parametrize("term, own", [
    ("big", {"bigger", "biggest"}), ("abandon", {"abandoned", "abandoning", "abandons", "abandonment"}),
    ("happy", {"happier", "happiest", "happily", "happiness", "unhappy"}), ("car", {"cars"})])
def test_the_terms_own_inflections_and_derivations_are_never_returned(harvester, term, own):
    rec = harvester.record(term, top=20)
    forms = {f for c in rec["synonyms"] for f in c["forms"]}
    assert rec["synonyms"] and not forms & (own | {term})


def test_inflections_of_a_candidate_fold_onto_its_lemma(harvester):
    car = {c["term"]: c["forms"] for c in harvester.record("car", top=20)["synonyms"]}
    assert "vehicle" in car and "vehicles" in car["vehicle"] and "vehicles" not in car


def test_a_contrastive_pattern_in_a_tiny_corpus_demotes_the_opposite(mlm, harvester):
    alone = harvester.record("big", top=30)
    assert "small" in ranked(alone)
    with_corpus = SynonymHarvester(mlm, CONTRAST * 2, nlp=harvester.nlp).record("big", top=30)
    assert with_corpus["contexts"] == 10
    if "small" in ranked(with_corpus):  # demoted, with the parse's evidence
        small = with_corpus["synonyms"][ranked(with_corpus).index("small")]
        assert small["contrast"] == 10 and ranked(with_corpus).index("small") > ranked(alone).index("small")


def test_the_parse_tells_contrast_from_synonymy(harvester):
    found = parse_evidence(harvester.nlp, "car", ["The car, also called automobile, was red.",
                                                  "The car (automobile) was red.", "They drove the car or the bus."])
    assert found["synonymy"]["automobile"] == 2 and found["contrast"]["bus"] == 1
    found = parse_evidence(harvester.nlp, "big", CONTRAST)
    assert found["contrast"]["small"] == len(CONTRAST) and not found["synonymy"]


def test_family_spacy_lemmas_and_regular_derivations(harvester):
    family = Family(harvester.nlp)
    assert family.same("mouse", "mice") and family.same("go", "went") and family.same("abandon", "abandonment")
    assert not family.same("car", "cart") and not family.same("happy", "glad")


def test_a_term_outside_the_vocabulary_answers_without_the_neighbour_graph(harvester, user_cache):
    import os
    from pathlib import Path

    graphs = Path(os.environ["UNER_CACHE_DIR"]) / "graphs"  # (the session's cache: other tests may have built some)
    before = sorted(graphs.rglob("*"))
    for term in ("aspirin", "heart attack"):
        assert len(harvester.mlm.tokenize_ids([term])[0]) > 1
        rec = harvester.record(term, top=5)
        assert rec["synonyms"] or rec["reason"]
        assert all("substitute" not in c for c in rec["synonyms"])  # no single token to read in view
    assert sorted(graphs.rglob("*")) == before  # no neighbour graph was built


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "uner.cli", "synonyms", *args], capture_output=True, text=True,
                          timeout=300)


def test_the_commands_one_line_errors(tmp_path):
    missing = tmp_path / "missing.txt"
    res = run("big", "--corpus", str(missing))
    assert (res.returncode, res.stderr.splitlines()) == (2, [f"uner: error: {missing}: no such file"])
    res = run("!!", "car", "--top", "3")
    assert res.returncode == 1
    assert [x for x in res.stderr.splitlines() if x.startswith("uner:")] == ["uner: error: '!!': not a word or phrase"]
    assert res.stdout.startswith("car: ") and len(res.stdout.splitlines()) == 1
