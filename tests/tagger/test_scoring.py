"""Span scoring options (CS/CI share, minimum score) and the tagger end to end on the shipped model."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from uner.spans import Span
from uner.tagger import Tagger, TaggerConfig

TEXT = "Barack Obama visited Paris with executives of Toyota ."


@pytest.fixture(scope="module")
def tiny_tagger(tiny):
    return Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu")


def _spans(tagger: Tagger) -> list[tuple[str, Span]]:
    doc = tagger.nlp(TEXT)
    return [(TEXT, sp) for sp in tagger.spans_for_doc(doc)]


def _votes(tagger: Tagger, **changes) -> np.ndarray:
    tagger.config = dataclasses.replace(TaggerConfig(), **changes)
    return tagger.span_scores(_spans(tagger)).label_scores


def test_cs_weight_blends_the_context_dependent_and_independent_votes(tiny_tagger):
    cs_only, ci_only = _votes(tiny_tagger, use_ci=False), _votes(tiny_tagger, use_cs=False)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=1.0), cs_only, atol=1e-6)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=0.0), ci_only, atol=1e-6)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=0.25), 0.25 * cs_only + 0.75 * ci_only, atol=1e-6)
    assert not np.allclose(cs_only, ci_only)  # otherwise the blend tests above prove nothing


def test_min_score_drops_spans_whose_top_type_is_weak(tiny_tagger):
    tiny_tagger.config = TaggerConfig()
    scores = tiny_tagger.span_scores(_spans(tiny_tagger))
    top = (scores.label_scores @ scores.rollup).max(1)
    cut = float(np.median(top))
    tiny_tagger.config = TaggerConfig(min_score=cut)
    kept = next(tiny_tagger.tag([TEXT]))
    assert len(kept) == int((top > cut).sum()) and all(e.score > cut for e in kept)
    with pytest.raises(ValueError):
        TaggerConfig(min_score=1.0)
    with pytest.raises(ValueError):
        TaggerConfig(cs_weight=1.5)


@pytest.fixture(scope="module")
def shipped():
    return Tagger.from_pretrained(device="cpu")


@pytest.mark.parametrize("text, expected", [
    (TEXT, {"Barack Obama": "PERSON", "Paris": "LOCATION"}),
    ("German exports to France rose in March .", {"France": "LOCATION", "March": "MEASURE"}),
    ("She was treated for asthma and epilepsy as a child .", {"asthma": "DISEASE", "epilepsy": "DISEASE"}),
    ("Aspirin is used to treat headaches and reduce fever in patients with influenza .",
     {"fever": "DISEASE", "influenza": "DISEASE"}),
])
def test_shipped_model_types_entities(shipped, text, expected):
    found = {e.text: e.type for e in next(shipped.tag([text]))}
    for span, typ in expected.items():
        assert found.get(span) == typ, found
