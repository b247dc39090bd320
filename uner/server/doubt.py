"""Which clusters the tagger was least sure about: the entities of ``uner tag`` records (either engine) linked to
the clusters whose labels they rest on, so that the page can ask first where a decision settles the most doubt.

An entity touches a cluster when one of the cluster's members is a word of the entity's text (whole words, any
case, as the page counts corpus terms: ``context.words_in``). Scores are calibrated to one scale for both engines,
so ``1 - score`` is the chance that the entity is wrong; a cluster's doubt is the sum of that over the entities
touching it, the number of wrong entities to expect among those its label bears on. An entity of several words
touches each of their clusters: the label of any of them can change its type.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..io import InputError, Record, read_records
from .context import SENTENCE_RE, words_in


@dataclass
class Doubt:
    """Per cluster id: its doubt, how many entities touch it and the ``keep`` least sure of them."""

    keep: int = 5
    doubt: Counter = field(default_factory=Counter)
    touching: Counter = field(default_factory=Counter)
    least: dict[int, list] = field(default_factory=dict)
    entities: int = 0

    @classmethod
    def read(cls, files: Iterable[str], clusters: Sequence[dict], keep: int = 5) -> Doubt:
        """Stream the records of JSONL ``files`` and link their entities to ``clusters``; InputError naming
        ``FILE:LINE`` for a line that is not JSON or not a tagged record with scores."""
        owners: dict[str, list[int]] = {}
        for entry in clusters:
            for member in entry["members"]:
                owners.setdefault(member.lower(), []).append(entry["id"])
        out = cls(keep)
        for path in files:
            for record in read_records(path, "jsonl"):
                for entity in _entities(record, path):
                    out.add(entity, record.text, {cid for w in words_in(entity["text"], owners) for cid in owners[w]})
        return out

    def add(self, entity: dict, text: str, clusters: Iterable[int]) -> None:
        """Count one entity of ``text`` against the clusters it touches; keep it among their least sure."""
        self.entities += 1
        score = entity["score"]
        for cid in clusters:
            self.doubt[cid] += 1 - score
            self.touching[cid] += 1
            heap = self.least.setdefault(cid, [])  # (-score, order): heap[0] is the surest kept
            if len(heap) < self.keep:
                heapq.heappush(heap, (-score, self.entities, _example(entity, text)))
            elif score < -heap[0][0]:
                heapq.heapreplace(heap, (-score, self.entities, _example(entity, text)))

    def summary(self, cid: int) -> dict:
        """What the queue sorts by: the cluster's doubt and how many entities touch it."""
        return {"doubt": round(self.doubt[cid], 3), "tagged": self.touching[cid]}

    def examples(self, cid: int) -> list[dict]:
        """The least sure entities touching the cluster, least sure first."""
        return [example for _, _, example in sorted(self.least.get(cid, []), key=lambda x: (-x[0], x[1]))]


def _entities(record: Record, name: str) -> list[dict]:
    """A record's entities, each checked for a text, offsets into the record's text and a score in 0–1."""
    entities, where = record.fields.get("entities"), f"{name}:{record.line}"
    if not isinstance(entities, list):
        raise InputError(f"{where}: no 'entities' list (give the JSONL that `uner tag` writes)")
    for e in entities:
        if not isinstance(e, dict) or not isinstance(e.get("text"), str):
            raise InputError(f"{where}: an entity without a 'text'")
        score, start, end = e.get("score"), e.get("start"), e.get("end")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            raise InputError(f"{where}: entity {e['text']!r} has no score in 0-1 (score {score!r}); tag it again")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)) or \
                not 0 <= start <= end <= len(record.text):
            raise InputError(f"{where}: entity {e['text']!r} has no 'start'/'end' offsets into the record's text")
    return entities


def _example(entity: dict, text: str, width: int = 240) -> dict:
    """An entity as the page shows it: text, type, score, its sentence (at most ``width`` characters around the
    entity) and where in that sentence the entity is."""
    start, end = entity["start"], entity["end"]
    begin = max([m.end() for m in SENTENCE_RE.finditer(text, 0, start)] + [0, start - width // 2])
    after = SENTENCE_RE.search(text, end)
    stop = min(after.start() if after else len(text), end + width // 2)
    return {"text": entity["text"], "type": entity.get("subtype") or entity.get("type"), "score": entity["score"],
            "snippet": text[begin:stop], "span": [start - begin, end - begin]}
