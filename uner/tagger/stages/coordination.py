"""The ``coordinated_heads`` stage: a modifier coordinated before an entity shares the entity's head.

English leaves out a head that two modifiers share: "breast and ovarian cancer" is breast cancer and ovarian cancer,
"classical and Duarte galactosemia" two kinds of galactosemia. A tagger types the run that ends in the head,
"ovarian cancer", and leaves the first modifier out. The stage takes it in — the word and the coordinator before an
entity of two or more words (the coordinators, token sequences such as "and", "or", "and / or", in the labels'
``stages/coordinated_heads.yaml``) — when the domain's corpus writes that word before the entity's last word as a
phrase of its own: the larger conditional probability of "word head" given either word (the phrase table of
``phrase_bounds``) at least ``join_from`` ("breast cancer" is a phrase; "patients and ovarian cancer" is no
coordination of modifiers, since "patients cancer" never occurs). The word is a common word, lower-case letters
only: names coordinated before a head are names each ("Id2 and Id3 mRNA", "U937 and THP-1 cells"). It must be no
function word of the corpus and no other entity's, unless an entity of that one word alone ("breast", an organ): it
goes into the coordination. The type stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...vocab.phrase_counts import PhraseCounts, tokens
from ..scoring import Entity
from .registry import Words, register
from .shared import PhraseDoc, load_counts, tie


@dataclass(frozen=True)
class CoordinationWords:
    """The phrase-count table, the coordinators (lower-cased token sequences, longest first), how strongly a modifier
    must go with the head, and the types whose entities may take one in."""

    counts: PhraseCounts
    coordinators: tuple[tuple[str, ...], ...]
    join_from: float
    types: tuple[str, ...]

    @classmethod
    def read(cls, read: Words) -> CoordinationWords:
        conf = read("coordinated_heads")
        coordinators = {tuple(t for t, _, _ in tokens(str(c))) for c in conf["coordinators"]}
        return cls(load_counts(read.path(conf["counts"])), tuple(sorted(coordinators, key=len, reverse=True)),
                   float(conf["join_from"]), tuple(map(str, conf["types"])))

    def shares_head(self, modifier: str, head: str) -> bool:
        """Whether the corpus writes ``modifier head`` as a phrase (see the module docstring)."""
        both = self.counts.count([modifier, head])
        return bool(both) and tie(both, self.counts.count([modifier]), self.counts.count([head])) >= self.join_from


def _modifier(doc: PhraseDoc, i: int, j: int, words: CoordinationWords, taken: set[int], alone: dict[int, int]
              ) -> int | None:
    """The token index of the coordinated modifier before the entity's tokens [i, j), or None; the modifier may be
    one of the one-word entities ``alone`` (token → entity), the coordinator no entity's."""
    for conj in words.coordinators:
        x = i - len(conj) - 1
        if (x >= 0 and tuple(doc.words[x + 1 : i]) == conj and _common(doc, x)
                and doc.words[x] not in doc.counts.frequent and taken.isdisjoint(range(x + 1, i))
                and (x not in taken or x in alone) and words.shares_head(doc.words[x], doc.words[j - 1])):
            return x
    return None


def _common(doc: PhraseDoc, x: int) -> bool:
    """Whether token ``x`` is written in lower-case letters only in the text."""
    _, start, end = doc.toks[x]
    return doc.text[start:end].isalpha() and doc.text[start:end].islower()


@register("coordinated_heads", CoordinationWords,
          after=("phrase_bounds",))  # the disease's own edges first
def coordinated_heads(text: str, entities: Sequence[Entity], words: CoordinationWords) -> list[Entity]:
    """Each entity with the modifier coordinated before it taken in (see the module docstring)."""
    if not any(ent.type in words.types for ent in entities):
        return list(entities)
    doc = PhraseDoc(text, words.counts)
    if not any(conj[-1] in doc.words for conj in words.coordinators):  # (no coordinator in the text)
        return list(entities)
    ranges, taken = doc.ranges(entities)
    alone = {a: n for n, (a, b) in enumerate(ranges) if a is not None and b == a + 1}
    out, gone = list(entities), set()
    for n, (ent, (i, j)) in enumerate(zip(entities, ranges)):
        if ent.type not in words.types or i is None or j is None or j - i < 2:
            continue
        x = _modifier(doc, i, j, words, taken, alone)
        if x is None:
            continue
        if x in alone:  # (the modifier's own one-word entity goes into this one)
            gone.add(alone.pop(x))
        taken.update(range(x, i))
        start = doc.toks[x][1]
        out[n] = replace(ent, text=text[start : ent.end], start=start)
    return [e for n, e in enumerate(out) if n not in gone]
