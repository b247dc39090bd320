"""The package's top-level public API."""

from __future__ import annotations


def test_public_api_is_one_import_away():
    import uner

    for name in uner.__all__:
        assert getattr(uner, name) is not None, name
    assert uner.Tagger.__module__.startswith("uner.tagger")
