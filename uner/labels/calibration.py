"""Per-type calibration stored beside the labels (``calibration.yaml``), not in code (docs/design.md §3.3).

The descriptors' votes are evidence of unequal strength per type: some types have many labelled
terms and win by mass, others (ORGANIZATION) lose to a neighbouring type (LOCATION) even when right.
A calibration multiplies each type's share of the votes by a weight (the row is renormalised, so
scores stay shares) and may raise the threshold a type needs; a subtype may get its own share of its type's votes
to be reported (``subtype_shares``, over the tagger's ``subtype_share``): a person's subtype (WRITER under PERSON)
gets its votes from a few occupation words, while every given name votes for the type alone. Weights are fitted on
the dev splits (``python -m benchmarks.calibrate``, ``benchmarks.calibrate_folder`` for an adapted folder), never on
training labels; types not listed keep weight 1.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from ..io import atomic_write_text
from .problems import LabelError, read_yaml


@dataclass(frozen=True)
class Calibration:
    """Type → vote weight, type → minimum score, subtype → share of its type's votes (each optional)."""

    type_weights: dict[str, float] = field(default_factory=dict)
    min_scores: dict[str, float] = field(default_factory=dict)
    note: str = ""
    subtype_shares: dict[str, float] = field(default_factory=dict)

    def weights_for(self, type_names: Sequence[str]) -> np.ndarray:
        """The weight of each named type (1 for unlisted ones)."""
        return np.array([self.type_weights.get(t, 1.0) for t in type_names], dtype=np.float32)

    def min_scores_for(self, type_names: Sequence[str]) -> np.ndarray:
        """The extra threshold of each named type (0 for unlisted ones)."""
        return np.array([self.min_scores.get(t, 0.0) for t in type_names], dtype=np.float32)

    def subtype_shares_for(self, labels: Sequence[str], default: float) -> np.ndarray:
        """The share of its type's votes each label needs to be reported as the subtype (``default`` unlisted)."""
        return np.array([self.subtype_shares.get(lab, default) for lab in labels], dtype=np.float32)

    @classmethod
    def load(cls, path: str | os.PathLike, known_types: Sequence[str] = (), known_labels: Sequence[str] = ()
             ) -> Calibration:
        """Read ``calibration.yaml``; LabelError naming the file for a malformed entry or an unknown type (or, in
        ``subtype_shares``, label)."""
        path = Path(path)
        doc = read_yaml(path)
        problems: list[str] = []
        sections = {}
        for key, low, high, known in (("type_weights", 0.0, 100.0, known_types), ("min_scores", 0.0, 1.0, known_types),
                                      ("subtype_shares", 0.001, 1.0, known_labels)):
            section = doc.get(key) or {}
            if not isinstance(section, dict):
                problems.append(f"{path}:1: {key} must map type names to numbers")
                continue
            for name, value in section.items():
                if known and name not in known:
                    problems.append(f"{path}:1: {key}: unknown {'label' if known is known_labels else 'type'} "
                                    f"{name!r}")
                elif isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                    problems.append(f"{path}:1: {key}: {name} must be a number in [{low:g}, {high:g}]")
            sections[key] = {str(k): float(v) for k, v in section.items() if isinstance(v, (int, float))}
        if problems:
            raise LabelError(problems)
        return cls(sections.get("type_weights", {}), sections.get("min_scores", {}), str(doc.get("note", "")),
                   sections.get("subtype_shares", {}))

    def save(self, path: str | os.PathLike) -> None:
        """Write ``calibration.yaml`` atomically."""
        doc = {"note": self.note, "type_weights": dict(sorted(self.type_weights.items())),
               "min_scores": dict(sorted(self.min_scores.items())),
               **({"subtype_shares": dict(sorted(self.subtype_shares.items()))} if self.subtype_shares else {})}
        atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100))
