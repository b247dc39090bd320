"""Loading a tagger by engine: what ``uner tag``, ``uner eval`` and the runners call."""

from __future__ import annotations

from collections.abc import Sequence

from .core import Tagger
from .ensemble import Ensemble
from .protocol import EntityTagger
from .student import Student

ENGINES = ("teacher", "student")


def load_tagger(ensemble: Sequence[str] = (), engine: str = "teacher", **kwargs) -> EntityTagger:
    """The ``engine``'s tagger. ``teacher``: ``Tagger.from_pretrained(**kwargs)``, voting with the ``ensemble``
    members (``MODEL`` or ``MODEL:LABELS_DIR``, equal weights) when any are given. ``student``: the student
    pipeline ``kwargs["model"]`` (default the shipped one) with ``kwargs["stages"]`` (default: its folder's), keeping
    only entities that score above ``kwargs["min_score"]`` (when given)."""
    if engine == "student":
        if ensemble:
            raise ValueError("--ensemble combines masked-LM taggers; it does not apply to the student engine")
        return Student.from_pretrained(kwargs.get("model"), kwargs.get("stages"), kwargs.get("min_score"))
    if engine != "teacher":
        raise ValueError(f"unknown engine {engine!r} ({' | '.join(ENGINES)})")
    tagger = Tagger.from_pretrained(**kwargs)
    if not ensemble:
        return tagger
    shared = {k: kwargs[k] for k in ("backend", "dtype", "device", "threads", "stop_descriptors") if k in kwargs}
    return Ensemble.from_specs(tagger, ensemble, **shared)
