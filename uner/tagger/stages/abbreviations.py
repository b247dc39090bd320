"""The ``abbreviations`` stage: a short form defined in the document takes its long form's type.

Biomedical abstracts define their abbreviations once, "long form (SF)": "5-fluorouracil (5-FU)", "congestive heart
failure (CHF)", and then write the short form. The masked LM types "CHF" by what fits its slot, where letters and
digits look like a gene name or a place; the long form it types well. Definitions are found as Schwartz and Hearst
(2003, "A simple algorithm for identifying abbreviation definitions in biomedical text") describe:

- a candidate short form is the text inside parentheses (up to a ";" or "," inside them, or an inner bracket) of at
  most two words and 2–10 characters, that opens with a letter or digit and has a capital letter ("5-FU", "IL-2",
  "CsA"; lower-case "(ip)", "(ii)" and enumerations are left out), and is neither a capitalised word of more than
  three letters nor a country's name (news results write "Armen Martirosyan (Armenia)", "Al Unser Jr (U.S.)");
- the long form is looked for in the words just before the "(" in the same sentence, at most
  min(|SF| + 5, 2·|SF|) words (|SF| in characters), and is the shortest run of whole words there whose characters
  hold the short form's letters and digits in order, right to left, the first one opening a word.

Then, per definition, in this document:

1. the long form's entity is the kept entity that ends where the long form ends: all of it ("congestive heart
   failure"), more ("sodium valproate" for the long form "valproate") or its head ("dyskinesias" in "levodopa -
   induced dyskinesias", "heparin" in "low - molecular - weight heparin": the taggers often cut hyphenated names,
   and a noun phrase is of its head's kind), but not one that starts after a preposition inside the long form
   (its head came before: "Europe" in "Organisation for Security and Cooperation in Europe (OSCE)"; word list in
   the labels' ``stages/abbreviations.yaml``). Every mention of the short form — bounded by neither letters, digits
   nor hyphens — takes that entity's type and subtype (and score and vote distribution): an entity whose text is
   exactly the short form is retyped, entities that are pieces of a mention become the whole short form ("FU" of
   "5 - FU"), and a mention that no kept entity overlaps is **added** (the tagger missed "VPA" in "sodium
   valproate (VPA)"). A mention takes the nearest definition before it (else the first one), so a
   short form defined twice with two meanings keeps both apart. An entity that only contains a short form ("Tac
   nephrotoxicity") is left alone.
2. an entity spanning the long form and the bracketed short form ("5-fluorouracil (5-FU)") is left alone: neither
   the teacher (whose candidate spans stop at brackets) nor the student tags one (none on the BC5CDR and
   NCBI-disease dev sets).
3. when no entity ends where the long form does (the tagger found none in "electrocardiographic (ECG)"), the short
   form is left as it was tagged. Dropping it instead (the long form was not an entity, so neither is the short
   one) moved BC5CDR and NCBI-disease dev F1 by under 0.001 either way: the long form is as likely to be missed
   as the short form to be typed badly.

Only the "long form (SF)" order is read ("SF (long form)" is rare in abstracts). Documents are read whole: a short
form defined in one sentence is typed in the next ones of the same document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..scoring import Entity
from .registry import Words, register, shipped
from .shared import in_countries, mentions, occurrences

MAX_SF_CHARS = 10
MAX_LF_CHARS = 500  # the text before a short form searched for its long form
_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?;:](?=\s)")
_BRACKETS = {"(": ")", "[": "]"}
_BRACKET_RE = re.compile(r"[\[\]()]")


@dataclass(frozen=True)
class AbbreviationWords:
    """The prepositions after which a long form's head has come, and the country names that are no short form."""

    prepositions: frozenset[str]
    countries: frozenset[str]

    types = ()  # (it types short forms as their long forms: no type of its own)

    @classmethod
    def read(cls, read: Words) -> AbbreviationWords:
        data = read("abbreviations")
        return cls(frozenset(data["prepositions"]), frozenset(data["countries"]))


@dataclass(frozen=True)
class Definition:
    """One "long form (short form)" in a text: the short form's text and offsets, the long form's offsets."""

    short: str
    short_start: int
    short_end: int
    long_start: int
    long_end: int
    close: int  # the offset just after the closing bracket


def find_definitions(text: str, words: AbbreviationWords | None = None) -> list[Definition]:
    """Every "long form (SF)" definition in ``text``, in order (Schwartz & Hearst 2003; see the module docstring;
    ``words``: the shipped labels' by default)."""
    countries = (words or shipped(AbbreviationWords)).countries
    out = []
    for open_at, close_at in _bracket_pairs(text):
        short = _short_form(text, open_at + 1, close_at, countries)
        if short is None:
            continue
        s_start, s_end = short
        sf = text[s_start:s_end]
        long_span = _long_form(text, open_at, sf)
        if long_span is not None:
            out.append(Definition(sf, s_start, s_end, *long_span, close_at + 1))
    return out


def _bracket_pairs(text: str) -> list[tuple[int, int]]:
    """Offsets of each "(" or "[" and its matching closer, nested pairs included, in the order they open."""
    pairs, stack = [], []
    for m in _BRACKET_RE.finditer(text):
        i, ch = m.start(), m.group()
        if ch in _BRACKETS:
            stack.append((ch, i))
        elif ch in _BRACKETS.values():
            while stack and _BRACKETS[stack[-1][0]] != ch:  # an unclosed opener inside: forget it
                stack.pop()
            if stack:
                pairs.append((stack.pop()[1], i))
    return sorted(pairs)


def _short_form(text: str, start: int, end: int, countries: frozenset[str]) -> tuple[int, int] | None:
    """The short-form candidate inside the brackets ``text[start:end]``: up to a ";", "," or inner bracket, trimmed;
    None unless it has at most two words (runs without a letter or digit, such as a spaced hyphen, do not count),
    2–10 characters besides spaces, a letter or digit first and a capital letter."""
    cut = re.search(r"[;,(\[]", text[start:end])
    if cut:
        end = start + cut.start()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    sf = text[start:end]
    words = [w for w in sf.split() if any(c.isalnum() for c in w)]
    chars = sum(not c.isspace() for c in sf)
    if not (1 <= len(words) <= 2 and 2 <= chars <= MAX_SF_CHARS and sf[:1].isalnum()
            and any(c.isupper() for c in sf)) or _is_word(sf) or in_countries(sf, countries):
        return None
    return start, end


def _is_word(sf: str) -> bool:
    """A capitalised word of more than three letters, not an abbreviation: a place or name in brackets, as news
    results write "Armen Martirosyan (Armenia)" ("Tac", "Hb", "CsA", "IgG" are abbreviations)."""
    return len(sf) > 3 and sf.isalpha() and sf[0].isupper() and sf[1:].islower()


def _long_form(text: str, open_at: int, sf: str) -> tuple[int, int] | None:
    """The long form of ``sf`` in the words before the bracket at ``open_at``: (start, end) or None."""
    end = open_at
    while end > 0 and text[end - 1].isspace():
        end -= 1
    begin = max(0, end - MAX_LF_CHARS)  # (long enough for the most words a long form may have)
    if begin:
        begin = next((m.end() for m in re.finditer(r"\s", text[begin:end])), end - begin) + begin
    begin = max((m.end() for m in _SENTENCE_END.finditer(text, begin, end)), default=begin)
    n_chars = sum(c.isalnum() for c in sf) or 1
    max_words = min(n_chars + 5, 2 * n_chars)
    words = [m for m in _WORD.finditer(text, begin, end) if any(c.isalnum() for c in m.group())]
    if not words:
        return None
    start = _match(text, words[-max_words:][0].start(), end, sf)
    if start is None:
        return None
    start = _balanced_start(text, begin, start, end)
    long_form = text[start:end]
    if len(long_form) <= len(sf) or occurrences(long_form, sf):
        return None
    return start, end


def _match(text: str, window_start: int, end: int, sf: str) -> int | None:
    """Schwartz–Hearst's match, right to left: each letter or digit of ``sf`` (case ignored), from its last, is found
    in ``text[window_start:end]`` left of the previous one's match, the first one at the start of a word; the long form
    then starts at the start of the word holding that first match. None when a character is not found."""
    chars = [c.lower() for c in sf if c.isalnum()]
    pos = end - 1
    for k in range(len(chars) - 1, -1, -1):
        c = chars[k]
        while pos >= window_start and (text[pos].lower() != c
                                       or (k == 0 and pos > window_start and text[pos - 1].isalnum())):
            pos -= 1
        if pos < window_start:
            return None
        pos -= 1
    start = pos + 1
    while start > window_start and not text[start - 1].isspace():
        start -= 1
    return start


def _balanced_start(text: str, begin: int, start: int, end: int) -> int:
    """``start`` moved back to the opener of a bracket that the long form closes but does not open
    ("(insulin - dependent) diabetes mellitus (IDDM)"), when the opener lies in the sentence."""
    depth = 0
    for ch in text[start:end]:
        if ch in _BRACKETS.values():
            depth -= 1
        elif ch in _BRACKETS:
            depth += 1
        if depth < 0:
            opener = text.rfind("(" if ch == ")" else "[", begin, start)
            return opener if opener >= 0 else start
    return start


def _head_entity(text: str, entities: Sequence[Entity], start: int, end: int, prepositions: frozenset[str]
                 ) -> Entity | None:
    """The entity that stands for the long form ``text[start:end]``: the one that ends where it ends (all of it,
    more, or its head) and, when it starts inside the long form, not after a preposition there (the head comes
    before: "Europe" is no head of "Organisation for Security and Cooperation in Europe"); the longest if several
    do; None when none does."""
    heads = [e for e in entities if e.end == end and e.start < end
             and not any(w.lower() in prepositions for w in text[start : max(start, e.start)].split())]
    return min(heads, key=lambda e: e.start, default=None)


def _typed_like(ent: Entity, source: Entity) -> Entity:
    return replace(ent, type=source.type, subtype=source.subtype, score=source.score,
                   distribution=source.distribution)


def defines(text: str, entities: Sequence[Entity], words: AbbreviationWords | None = None) -> tuple[str, ...]:
    """The short forms ``text`` defines and can type, their long form's entity among its kept ``entities``: what the
    next texts of its document may mention (``Stage.document``; a definition without one types nothing, so a later
    one does not hide an earlier one that does)."""
    w = words or shipped(AbbreviationWords)
    kept = [e for e in entities if e.kept]
    return tuple(d.short for d in find_definitions(text, w)
                 if _head_entity(text, kept, d.long_start, d.long_end, w.prepositions) is not None)


@register("abbreviations", AbbreviationWords, document=defines)
def abbreviations(text: str, entities: Sequence[Entity], words: AbbreviationWords | None = None) -> list[Entity]:
    """``entities`` (one document's kept ones, in order) with each short form the document defines typed as its long
    form's entity: retyped, made whole from pieces, or added where the tagger missed them; in start order."""
    w = words or shipped(AbbreviationWords)
    definitions = find_definitions(text, w)
    if not definitions:
        return list(entities)
    out = list(entities)
    typed = [(d, _head_entity(text, out, d.long_start, d.long_end, w.prepositions)) for d in definitions]
    typed = [(d, src) for d, src in typed if src is not None]
    if not typed:
        return out
    by_short: dict[str, list[tuple[Definition, Entity]]] = {}
    for d, src in typed:
        by_short.setdefault(d.short, []).append((d, src))
    for sf, defs in by_short.items():
        for at in mentions(text, sf):
            src = next((s for d, s in reversed(defs) if d.short_start <= at), defs[0][1])
            end = at + len(sf)
            over = [i for i, e in enumerate(out) if e.start < end and at < e.end]
            inside = [i for i in over if at <= out[i].start and out[i].end <= end]
            if over and inside == over and (out[over[0]].start, out[over[0]].end) == (at, end):
                i = over[0]  # the short form itself
                if (out[i].type, out[i].subtype) != (src.type, src.subtype):
                    out[i] = _typed_like(out[i], src)
            elif over and inside == over:  # pieces of it ("FU" of "5-FU"): the whole short form
                out[over[0]] = _typed_like(replace(out[over[0]], text=sf, start=at, end=end), src)
                out = [e for k, e in enumerate(out) if k not in over[1:]]
            elif not over:
                out.append(_typed_like(Entity(sf, at, end, src.type, src.subtype, src.score, named=True), src))
    if len(out) != len(entities):  # (retyped ones stay in their places)
        out.sort(key=lambda e: e.start)
    return out
