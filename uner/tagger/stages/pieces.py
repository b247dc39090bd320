"""The ``name_pieces`` stage: a name built from pieces joined by a hyphen is one entity.

Biomedical names join a stem and a short piece with a hyphen: "caspase-9", "TEF-1beta", "Ets-2", "HIV-1 promoter",
"alpha-globin". A tagger reads the hyphen as a break (tokenised text writes "caspase - 9") and keeps one side, or two
entities. The convention the stage follows: beside a hyphen, a *piece* — a number of at most ``max_digits`` digits, a
letters-and-digits code of at most ``max_code`` characters that holds a digit ("1beta", "D28K"), one letter (the
prefixes of "c-fos", "v-src", "d-amphetamine") or two capitals, or a Greek letter's name — belongs to the name on the
other side:

- two entities with only a hyphen between them become one when the word on either side of it is a piece ("TEF" and
  "1beta"; "EBNA" and "3 cDNA"), typed as the one that is more than a piece ("caspase", not "9" typed a number),
  else as the one with the higher score;
- an entity followed by a hyphen and a piece takes them ("caspase" → "caspase - 9");
- an entity preceded by a piece and a hyphen takes them ("globin" → "alpha - globin"), and so does an entity that
  opens with a piece, preceded by a code and a hyphen ("1 promoter" → "HIV - 1 promoter"; a code: at most
  ``max_code`` letters and digits with a digit or two capitals).

A word another entity holds is never taken. Tokens are those of the phrase counts (``uner.vocab.phrase_counts.tokens``), so
"caspase-9" and "caspase - 9" read alike. Settings, the joining marks ("-") and the Greek letters: the labels'
``stages/name_pieces.yaml``.

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...vocab.phrase_counts import cached_tokens
from ..scoring import Entity
from .registry import Words, register


@dataclass(frozen=True)
class PieceWords:
    """What counts as a piece of a name."""

    joiners: frozenset[str]
    greek: frozenset[str]
    max_digits: int
    max_code: int

    types = ()  # (it joins and moves edges, never types)

    @classmethod
    def read(cls, read: Words) -> PieceWords:
        conf = read("name_pieces")
        return cls(frozenset(map(str, conf["joiners"])), conf.lowered("greek_letters"),
                   int(conf["max_digits"]), int(conf["max_code"]))

    def piece(self, word: str) -> bool:
        """A number, a short code with a digit, one letter or two capitals, or a Greek letter's name."""
        if word.isdigit():
            return len(word) <= self.max_digits
        if word.isalnum() and any(c.isdigit() for c in word):
            return len(word) <= self.max_code
        return word.lower() in self.greek or (word.isalpha() and (len(word) == 1 or word.isupper() and len(word) == 2))

    def code(self, word: str) -> bool:
        """A short letters-and-digits word written as a code ("HIV", "PE", "p53")."""
        return (word.isalnum() and len(word) <= self.max_code
                and (any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 2))


@register("name_pieces", PieceWords)
def name_pieces(text: str, entities: Sequence[Entity], words: PieceWords) -> list[Entity]:
    """``entities`` with the names built from hyphen-joined pieces made whole (see the module docstring), in order."""
    if not entities or not any(j in text for j in words.joiners):  # (most sentences: nothing to join)
        return sorted(entities, key=lambda e: e.start)
    toks = [(text[s:e], s, e) for _, s, e in cached_tokens(text)]
    first = {s: i for i, (_, s, _) in enumerate(toks)}
    last = {e: i for i, (_, _, e) in enumerate(toks)}
    out = sorted(entities, key=lambda e: e.start)
    while (joined := _join_one(text, out, toks, first, last, words)) is not None:
        out = joined
    return out


def _join_one(text: str, ents: list[Entity], toks: list[tuple[str, int, int]], first: dict[int, int],
              last: dict[int, int], words: PieceWords) -> list[Entity] | None:
    """``ents`` with the first join the rules allow made, or None when there is none (``first``/``last``: the
    token that starts/ends at each character offset)."""
    holder = {i: k for k, e in enumerate(ents) if e.start in first and e.end in last
              for i in range(first[e.start], last[e.end] + 1)}
    for k, ent in enumerate(ents):
        if ent.start not in first or ent.end not in last:
            continue
        i, j = first[ent.start], last[ent.end]
        if j + 2 < len(toks) and toks[j + 1][0] in words.joiners and j + 1 not in holder:
            after = toks[j + 2]
            if holder.get(j + 2) is not None and ents[holder[j + 2]].start == after[1]:
                if words.piece(toks[j][0]) or words.piece(after[0]):
                    other = ents[holder[j + 2]]
                    keep = _stem(ent, other, words)
                    whole = replace(keep, text=text[ent.start : other.end], start=ent.start, end=other.end)
                    return sorted([e for n, e in enumerate(ents) if n not in (k, holder[j + 2])] + [whole],
                                  key=lambda e: e.start)
            elif j + 2 not in holder and words.piece(after[0]):
                return [*ents[:k], replace(ent, text=text[ent.start : after[2]], end=after[2]), *ents[k + 1 :]]
        if i >= 2 and toks[i - 1][0] in words.joiners and i - 1 not in holder and i - 2 not in holder:
            before = toks[i - 2]
            if words.piece(before[0]) or (words.piece(toks[i][0]) and words.code(before[0])):
                return [*ents[:k], replace(ent, text=text[before[1] : ent.end], start=before[1]), *ents[k + 1 :]]
    return None


def _stem(a: Entity, b: Entity, words: PieceWords) -> Entity:
    """Of two entities joined into one, the one whose type the whole takes: the one that is more than a piece, else
    the one with the higher score (the first on a tie)."""
    if words.piece(a.text) != words.piece(b.text):
        return b if words.piece(a.text) else a
    return a if (a.score or 0) >= (b.score or 0) else b

