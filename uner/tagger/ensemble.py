"""Several taggers (each a model with its own labels) voting per span."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import yaml

from ..io import atomic_write_text
from ..labels import type_rollup
from ..spans import Span
from .core import BaseTagger, PredictionCache, Tagger
from .scoring import SpanScores

ENSEMBLE_FILE = "ensemble.yaml"  # a saved ensemble's members and weights


class Ensemble(BaseTagger):
    """Member taggers' label votes, weighted and averaged per span over the members that vote on it.

    A member with ``expert_types`` (its labels' ``tagger.yaml``: the biomedical model's DRUG, DISEASE, GENE …)
    votes on a span only when it types the span as one of them: a domain model speaks on its own domain's
    spans and leaves general text to the general model (``uner eval`` WNUT-17 dev, given spans, with
    ``--ensemble uner-bio``: averaging every span 0.347, gated 0.364, the general model alone 0.363).

    Spans, parsing, config and stages, descriptors (``explain``), ``mlm``, ``types`` and ``scorer`` come from the
    first member; each member scores with its own model, labels and config.
    """

    def __init__(self, taggers: Sequence[Tagger], weights: Sequence[float] | None = None) -> None:
        if not taggers:
            raise ValueError("an ensemble needs at least one tagger")
        first = taggers[0]
        self.members = list(taggers)
        self.weights = list(weights) if weights is not None else [1.0] * len(taggers)
        self.mlm, self.types, self.config, self.scorer, self.nlp = (first.mlm, first.types, first.config,
                                                                      first.scorer, first.nlp)
        self.stage_folder = first.stage_folder

    @classmethod
    def from_specs(cls, first: Tagger, specs: Sequence[str], **kwargs) -> Ensemble:
        """``first`` with a tagger per spec, ``MODEL`` (its own labels) or ``MODEL:LABELS_DIR``, equal weights.
        Every member scores with ``first``'s settings (domain, templates); ``kwargs`` (dtype, device, threads …)
        go to each member's ``Tagger.from_pretrained``."""
        members = [Tagger.from_pretrained(*(s.rsplit(":", 1) if ":" in s else (s, None)), config=first.config,
                                          **kwargs) for s in specs]
        return cls([first, *members])

    def save_pretrained(self, folder: str | Path) -> Path:
        """Each member as a labels folder (``Tagger.save_pretrained``) in ``folder/member-N`` and ``ensemble.yaml``
        (their folders and weights): ``Ensemble.from_pretrained(folder)`` loads it back."""
        out = Path(folder)
        names = [f"member-{n}" for n in range(len(self.members))]
        for name, member in zip(names, self.members):
            member.save_pretrained(out / name)
        doc = {"members": names, "weights": self.weights}
        atomic_write_text(out / ENSEMBLE_FILE, yaml.safe_dump(doc, sort_keys=False))
        return out

    @classmethod
    def from_pretrained(cls, folder: str | Path, **kwargs) -> Ensemble:
        """An ensemble saved by ``save_pretrained``; ``kwargs`` (dtype, device, threads …) go to each member's
        ``Tagger.from_pretrained``."""
        path = Path(folder) / ENSEMBLE_FILE
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("members"), list):
            raise ValueError(f"{path}:1: expected 'members: [folder, ...]' and 'weights: [...]'")
        members = [Tagger.from_pretrained(labels=Path(folder) / name, **kwargs) for name in doc["members"]]
        return cls(members, doc.get("weights"))

    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Each member's label votes mapped onto the union of label names, weighted and averaged over the
        members that vote on each span (a member abstains where it has no votes or its expert types gate it)."""
        parts = [m.span_scores(spans, cache) for m in self.members]
        labels = list(dict.fromkeys(lab for p in parts for lab in p.labels))
        col = {lab: j for j, lab in enumerate(labels)}
        total = np.zeros((len(spans), len(labels)), dtype=np.float32)
        voting = np.zeros((len(spans), 1), dtype=np.float32)
        for w, m, p in zip(self.weights, self.members, parts):
            on = w * (p.label_scores.sum(1, keepdims=True) > 0)
            if m.expert_types:
                top = np.asarray(p.type_names)[np.argmax(p.label_scores @ p.rollup, axis=1)]
                on = on * np.isin(top, list(m.expert_types))[:, None]
            total[:, [col[lab] for lab in p.labels]] += on * p.label_scores
            voting += on
        total = np.divide(total, voting, out=np.zeros_like(total), where=voting > 0)
        parent = {lab: m.types.parent(lab) for m in self.members for lab in m.scorer.labels}
        type_names, rollup = type_rollup([parent[lab] for lab in labels])
        not_entity = {type_names.index(t) for m in self.members for t in m.types.not_entity if t in type_names}
        first = parts[0]
        return SpanScores(labels, type_names, rollup, not_entity, total, first.ids, first.logits,
                          first.min_score, first.scorer, first.subtype_share)
