"""Issue 39's teacher levers, each switched back to what ran before it, so that a benchmark shows one on its own.

A variant names the levers it reverts, comma-separated: ``whole`` runs the encoder's last layer on every token (it
runs at the masks only, ``MaskedLM.last_layer``); ``all`` asks every span in its sentence (``context_margin`` 0).
"""

from __future__ import annotations

import dataclasses

LEVERS = ("whole", "all")


def revert(tagger, levers: str) -> None:
    """Switch ``tagger`` back on each lever named in ``levers`` (comma-separated; "" keeps today's)."""
    names = [n for n in levers.split(",") if n]
    unknown = sorted(set(names) - set(LEVERS))
    if unknown:
        raise ValueError(f"unknown lever {unknown[0]!r} (choose from {', '.join(LEVERS)})")
    if "whole" in names:
        tagger.mlm.last_layer = None
    if "all" in names:
        tagger.config = dataclasses.replace(tagger.config, context_margin=0.0)
