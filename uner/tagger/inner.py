"""Inner names: the named modifier of a compound whose head is an activity, group or measure is the entity.

"lithium therapy", "ketoprofen group", "capsaicin injection": the candidate is a run of nouns, and the teacher
types it, rightly, as a therapy, a group, an injection — labels that biomedical text does not count as entities,
while the drug inside is one. Where a candidate's top label is one of the domain's ``containers`` (procedures,
groups, quantities, organisms, a gene's expression, not-entity) and its last word hangs loosely on the rest in the
domain's corpus (the phrase-count table of ``phrase_bounds``: tie below ``max_tie``, the head seen at least
``min_head_count`` times), the rest, when it ends in a noun (``name_tags``), is typed again in its sentence
("[MASK] therapy" asks for a drug) and, when it is an entity that is no container itself ("two" of "two patients"
is a number), replaces the candidate. "heart failure" stays whole (the corpus ties the two words); "Parkinson's
disease" stays whole (its label, DISEASE, is no container).

Switched on per domain (``TaggerConfig.inner_names``); the settings and the container labels are the labels'
``words/inner_names.yaml``, with the tags an inner name may end in (docs/log/accuracy.md §3.7 for how they were
chosen).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from ..spans import Span
from ..vocab.phrase_counts import PhraseCounts
from .scoring import Entity
from .stages.shared import PhraseDoc, load_counts
from .stages.registry import Words

NAME = "inner_names"


@dataclass(frozen=True)
class InnerNames:
    """The phrase counts, the two thresholds, the container labels and the name tags of one labels folder."""

    counts: PhraseCounts
    max_tie: float
    min_head_count: int
    containers: frozenset[str]
    name_tags: frozenset[str]  # the PTB tags an inner name may end in (nouns: "oral" of "oral administration" is none)
    source: str = NAME  # the file the settings came from (named in errors)

    @classmethod
    @cache
    def load(cls, folder: str | None = None) -> InnerNames:
        """The labels ``folder``'s ``words/inner_names.yaml`` (else the shipped labels'), read once per folder;
        ValueError naming the file for a missing or bad entry."""
        read = Words(folder)
        conf = read(NAME)
        path = str(read.path(f"{NAME}.yaml"))
        try:
            return cls(load_counts(read.path(conf["counts"])), float(conf["max_tie"]),
                       int(conf["min_head_count"]), frozenset(map(str, conf["containers"])),
                       frozenset(map(str, conf["name_tags"])), path)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: bad entry ({exc})") from None

    def check(self, labels: set[str]) -> None:
        """ValueError naming a container label that the labels do not have."""
        missing = sorted(self.containers - labels)
        if missing:
            raise ValueError(f"{self.source}: container label(s) {', '.join(missing)} are not in the labels")

    def holds(self, entity: Entity) -> bool:
        """Whether ``entity``'s type or subtype is a container."""
        return entity.type in self.containers or entity.subtype in self.containers

    def rest(self, text: str, span: Span, entity: Entity, tags: dict[int, str]) -> Span | None:
        """``span`` without its last word, when its ``entity`` is a container, the last word hangs loosely on the
        rest and the rest ends in one of ``name_tags`` (``tags``: the PTB tag of each token of ``text`` by its end
        offset; "oral" of "oral administration" is no name); else None."""
        if not self.holds(entity):
            return None
        doc = PhraseDoc(text[span.start : span.end], self.counts)
        n = len(doc.words)
        if n < 2 or not doc.words[-1].isalpha() or not doc.is_word(n - 2):
            return None
        end = span.start + doc.toks[n - 2][2]
        if tags.get(end) not in self.name_tags:
            return None
        if doc.count(n - 1, n) < self.min_head_count or doc.tie(0, n - 1, n) >= self.max_tie:
            return None
        return replace(span, end=end, head_tag=tags[end])
