"""Candidate spans from the real spaCy parser."""

from __future__ import annotations

from uner.spans import candidate_spans, load_spacy


def _spans(text: str) -> list[str]:
    return [text[s.start : s.end] for s in candidate_spans(load_spacy()(text))]


def test_numbers_are_cut_from_names_but_kept_with_common_nouns():
    results = _spans("Manchester United beat Chelsea 2-1 at Old Trafford on Sunday .")
    assert {"Manchester United", "Chelsea", "Old Trafford", "Sunday"} <= set(results)
    assert not any("Chelsea" in s and s != "Chelsea" for s in results)
    assert _spans("LONDON 1996-08-30")[0] == "LONDON"
    assert {"5 percent", "300 million dollars"} <= set(_spans("Sales rose 5 percent to 300 million dollars ."))


def test_possessives_and_symbols_are_trimmed():
    spans = _spans("Zoë Saldaña 🎉 met the boss of Toyota 's .")
    assert "Toyota" in spans and "Zoë Saldaña" in spans
    assert not any(s.endswith(("'s", "🎉")) for s in spans)
