"""Conventions of English noun phrases that the candidate spans (``uner.spans``) read from a spaCy parse: what is
name-like, the words that a hyphen joins, the numbers that belong to a name and the common noun in apposition with
one. Which conventions a domain reads, and the parse labels each reads, come from the labels' ``stages/
noun_phrases.yaml`` (``NounPhrases``; ``uner.tagger.span_words`` builds it); docs/design.md §3.3."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NounPhrases:
    """The parse labels of the conventions of noun phrases, as the tagger reads them from the labels'
    ``words/noun_phrases.yaml`` for the ones its domain switches on; an empty set leaves its convention out (the
    default): ``descriptor_tags`` (with ``apposition_arcs``) give a name its ``Span.descriptor``,
    ``coordination_arcs`` its ``Span.group``, ``determiner_tags`` a capitalised determiner that opens it;
    ``hyphens`` keep a word written with them inside ("support-vector", "Kullback-Leibler") whole in a span;
    ``number_arcs`` join a number to the name that the parse attaches it to ("2012 Summer Olympics", "Voyager 2").
    ``name_tags``, the proper-noun tags, are read whatever the domain switches on: a word with one is name-like."""

    descriptor_tags: frozenset[str] = frozenset()
    apposition_arcs: frozenset[str] = frozenset()
    coordination_arcs: frozenset[str] = frozenset()
    determiner_tags: frozenset[str] = frozenset()
    hyphens: frozenset[str] = frozenset()
    number_arcs: frozenset[str] = frozenset()
    name_tags: frozenset[str] = frozenset()


def is_name_like(tok, name_tags: frozenset[str]) -> bool:
    """A proper noun (one of ``name_tags``), a capitalised word that does not open its sentence, or a letter+digit
    shape."""
    text = tok.text
    if tok.tag_ in name_tags and any(c.isalpha() for c in text):
        return True
    if text[:1].isupper() and tok.i != tok.sent.start:
        return True
    return any(c.isalpha() for c in text) and any(c.isdigit() for c in text)


def hyphen_words(sent, hyphens: frozenset[str]) -> dict[int, tuple[int, int]]:
    """The words of the sentence written with one of ``hyphens`` inside and no space around it ("support-vector",
    "state-of-the-art"), which the parser splits into pieces: each piece's token index -> the (first, last) token
    index of its word. Empty without ``hyphens``."""
    words: dict[int, tuple[int, int]] = {}
    if not hyphens:
        return words
    doc = sent.doc
    for tok in sent[1:-1]:
        prev, nxt = doc[tok.i - 1], doc[tok.i + 1]
        if (tok.text in hyphens and not prev.whitespace_ and not tok.whitespace_ and prev.text[-1:].isalnum()
                and nxt.text[:1].isalnum()):
            first = words.get(prev.i, (prev.i, prev.i))[0]
            for i in range(first, nxt.i + 1):
                words[i] = (first, nxt.i)
    return words


def name_numbers(sent, arcs: frozenset[str], name_tags: frozenset[str]) -> frozenset[int]:
    """The numbers of the sentence that belong to a name: a cardinal that the parse attaches by one of ``arcs`` to
    the name-like word next to it, or to the last word of the name that starts right after it ("2012 Summer
    Olympics", "Eurovision Song Contest 2011", "Voyager 2"); their token indices. Empty without ``arcs``."""
    if not arcs:
        return frozenset()
    out = set()
    for tok in sent:
        if tok.tag_ != "CD" or tok.dep_ not in arcs or not any(c.isdigit() for c in tok.text):
            continue
        head = tok.head
        between = sent.doc[min(tok.i, head.i) + 1 : max(tok.i, head.i)]
        named = is_name_like(head, name_tags) and all(is_name_like(t, name_tags) for t in between)
        if named and (head.i > tok.i or not len(between)):
            out.add(tok.i)
    return frozenset(out)


def descriptor(tokens, phrases: NounPhrases) -> str:
    """The common noun in apposition with a name, lower-cased: the one directly before its first token ("album" in
    "the album Abbey Road", "singer" in "British singer Adele"), else one that an apposition arc links to it ("Emma ,
    a novel about youth", "their album , Pork Soda"); "" when there is none or ``phrases`` has no descriptor tags.
    English says what a name is there."""
    if not phrases.descriptor_tags:
        return ""
    first = tokens[0]
    if first.i > first.sent.start and _common(prev := first.doc[first.i - 1], phrases):
        return prev.lower_
    inside = {t.i for t in tokens}
    for tok in tokens:
        if tok.head.i in inside and tok.head.i != tok.i:
            continue  # (not the span's root)
        if tok.dep_ in phrases.apposition_arcs and tok.head.i not in inside and _common(tok.head, phrases):
            return tok.head.lower_
        for child in tok.children:
            if child.dep_ in phrases.apposition_arcs and child.i not in inside and _common(child, phrases):
                return child.lower_
    return ""


def _common(tok, phrases: NounPhrases) -> bool:
    """A common noun (one of the descriptor tags) written as a word, not a name, a number or a symbol."""
    return tok.tag_ in phrases.descriptor_tags and not is_name_like(tok, phrases.name_tags) and tok.is_alpha


def name_head(name) -> str:
    """The syntactic head of a name (a spaCy span) of two tokens or more, lower-cased: "conference" in "Conference on
    Neural Information Processing Systems", "foundation" in "Neural Information Processing Systems Foundation",
    "party" in "Labour Party"; "" for one token, or a head that is no word (a number, a symbol). English puts the
    class of a named institution, event or work in its head, before its complement or after its modifiers."""
    return name.root.lower_ if len(name) > 1 and name.root.is_alpha else ""
