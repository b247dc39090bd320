"""Which clusters a corpus needs decided first: the descriptor words the masked LM predicted for the corpus's
candidate spans (``uner adapt`` writes them, ``descriptors.jsonl``), linked to the clusters that hold them.

A span depends on a cluster when one of the cluster's members is among the span's descriptors: relabelling the
cluster changes that span's votes. A cluster's demand is how many corpus spans depend on it; labelling
"algorithm", "album" or "party" decides thousands of spans at once, a cluster of rare surnames almost none.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..io import InputError


@dataclass
class Demand:
    """Per cluster id: the corpus spans that depend on it and its members' descriptor counts."""

    spans: int = 0
    depending: Counter = field(default_factory=Counter)
    terms: Counter = field(default_factory=Counter)
    owners: dict[str, list[int]] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)  # per word, the first spans that were given it

    @classmethod
    def read(cls, path: str | Path, clusters: Sequence[dict]) -> Demand:
        """Read ``descriptors.jsonl``; InputError naming ``FILE:LINE`` for a line that is not one."""
        out = cls()
        for entry in clusters:
            for member in entry["members"]:
                out.owners.setdefault(member, []).append(entry["id"])
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    spans = json.loads(line)["spans"]
                    for span in spans:
                        out.add(span["terms"], span["text"])
                except (ValueError, KeyError, TypeError):
                    raise InputError(f"{path}:{n}: not a line of descriptors.jsonl (uner adapt writes it)") from None
        return out

    def add(self, terms: Sequence[str], text: str = "", keep: int = 5) -> None:
        """Count one span (``text``) with its descriptor terms."""
        self.spans += 1
        self.terms.update(terms)
        for t in terms:
            seen = self.examples.setdefault(t, [])
            if len(seen) < keep and text not in seen:
                seen.append(text)
        self.depending.update({cid for t in terms for cid in self.owners.get(t, ())})

    def summary(self, cid: int) -> dict:
        """What the queue sorts by: how many corpus spans depend on the cluster."""
        return {"spans": self.depending[cid]}

    def words(self, n: int) -> list[tuple[str, int]]:
        """The ``n`` descriptor words most spans were given, with how many."""
        return self.terms.most_common(n)

    def descriptors(self, members: Sequence[str], n: int = 8) -> list[list]:
        """The members the corpus's spans were given as descriptors most often, with how many spans."""
        counted = sorted(((self.terms[m], m) for m in members if self.terms[m]), reverse=True)[:n]
        return [[m, c] for c, m in counted]
