"""coordinated_heads: a modifier coordinated before an entity ("breast and ovarian cancer") shares its head and is
taken into it when the domain's corpus writes the modifier before the head as a phrase."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.helpers import BIO_STAGES
from uner.tagger import Entity, Student, TaggerConfig, run_stages
from uner.tagger.stages.coordination import CoordinationWords, coordinated_heads
from uner.vocab.phrase_counts import PhraseCounts

CORPUS = (["Breast cancer was common."] * 10 + ["Ovarian cancer was rare."] * 10 + ["Patients were seen."] * 10
          + ["Id2 was bound."] * 5 + ["Id2 mRNA and Id3 mRNA rose."] * 5)


@pytest.fixture(scope="module")
def words() -> CoordinationWords:
    counts = PhraseCounts.mine(CORPUS, max_n=3, min_count=2, n_frequent=2)
    return CoordinationWords(counts, (("and", "/", "or"), ("and",), ("or",)), 0.1, ("DISEASE", "GENE"))


def _joined(words: CoordinationWords, text: str, *spans: tuple[str, str]) -> list[tuple[str, str]]:
    ents = [Entity(s, text.index(s), text.index(s) + len(s), t, None, 0.5) for s, t in spans]
    out = coordinated_heads(text, ents, words=words)
    assert all(text[e.start : e.end] == e.text for e in out)
    return [(e.text, e.type) for e in out]


def test_a_coordinated_modifier_shares_the_head(words):
    text = "Mutations predispose to breast and ovarian cancer ."
    assert _joined(words, text, ("ovarian cancer", "DISEASE")) == [("breast and ovarian cancer", "DISEASE")]
    text = "Mutations predispose to breast and / or ovarian cancer ."
    assert _joined(words, text, ("ovarian cancer", "DISEASE")) == [("breast and / or ovarian cancer", "DISEASE")]
    # the modifier's own one-word entity (an organ) goes into the coordination
    text = "Mutations predispose to breast or ovarian cancer ."
    assert _joined(words, text, ("breast", "BODY_PART_OR_ORGAN_COMPONENT"), ("ovarian cancer", "DISEASE")) == \
        [("breast or ovarian cancer", "DISEASE")]


def test_no_join_without_the_phrase_a_name_or_a_listed_type(words):
    text = "We saw patients and ovarian cancer ."  # "patients cancer" is no phrase of the corpus
    assert _joined(words, text, ("ovarian cancer", "DISEASE")) == [("ovarian cancer", "DISEASE")]
    text = "Both Id2 and Id3 mRNA rose ."  # a name before the coordinator is a name of its own
    assert _joined(words, text, ("Id3 mRNA", "GENE")) == [("Id3 mRNA", "GENE")]
    text = "Mutations predispose to breast and ovarian cancer ."
    assert _joined(replace(words, types=("GENE",)), text, ("ovarian cancer", "DISEASE")) == \
        [("ovarian cancer", "DISEASE")]
    assert _joined(words, text, ("cancer", "DISEASE")) == [("cancer", "DISEASE")]  # one word: no modifier to share


def test_the_biomedical_student_joins_a_coordinated_disease():
    """End to end with the shipped student and phrase table: the domain's last stage makes the coordination one
    disease, as the student alone gives "breast" an organ and "ovarian cancer" a disease."""
    assert BIO_STAGES == TaggerConfig.for_domain("biomedical").stages and "coordinated_heads" in BIO_STAGES
    text = "Germline mutations in BRCA1 predispose to breast and ovarian cancer ."
    [ents] = Student.from_pretrained("uner-student-bio", stages=()).tag([text])
    off = {e.text: e.type for e in run_stages(text, ents, [s for s in BIO_STAGES if s != "coordinated_heads"])}
    on = {e.text: (e.type, e.stages) for e in run_stages(text, ents, BIO_STAGES)}
    assert off["ovarian cancer"] == "DISEASE" and "breast" in off
    assert on["breast and ovarian cancer"] == ("DISEASE", ("coordinated_heads",)) and "breast" not in on
