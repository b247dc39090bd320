"""Relation triples from typed entities and the dependency parse (docs/design.md §3.4).

For two arguments in a sentence, the dependency path between their heads gives the
relation: the verb on the path nearest the second argument (with its particle, and
the preposition that attaches the argument), or, with no verb, the noun predicate
on the path ("X, the CEO of Y" → "ceo of"). Coordinated arguments take the role of
their first conjunct, so both conjuncts get the triple; a ``neg`` dependent of the
relation word sets ``negated``. ``form`` says where the relation word stands:
between the arguments (infix), before both (prefix) or after both (suffix). ``relation_type`` is the entity type
that a noun predicate carries in the vocabulary labels ("ceo of": PERSON); a verb relation has none.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

from ..io import Record
from ..tagger import BaseTagger, Entity

UNTYPED = "OTHER"


@dataclass
class Argument:
    text: str
    type: str
    start: int
    end: int


@dataclass
class Triple:
    e1: Argument
    relation: str
    e2: Argument
    sentence: int
    path: str
    negated: bool
    form: str
    relation_type: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _role_head(tok):
    """A conjunct stands in for the first member of its coordination."""
    while tok.dep_ == "conj" and tok.head.i != tok.i:
        tok = tok.head
    return tok


def _ancestors(tok) -> list:
    chain = [tok]
    while chain[-1].head.i != chain[-1].i:
        chain.append(chain[-1].head)
    return chain


def dependency_path(a, b) -> tuple[list, int] | None:
    """Tokens from a up to the lowest common ancestor and down to b, and the ancestor's index."""
    up_a, up_b = _ancestors(a), _ancestors(b)
    in_b = {t.i: n for n, t in enumerate(up_b)}
    for n, t in enumerate(up_a):
        if t.i in in_b:
            return up_a[: n + 1] + list(reversed(up_b[: in_b[t.i]])), n
    return None


def path_string(path: list, top: int) -> str:
    """``aspirin -nsubjpass-> use <-xcomp- treat <-dobj- headache``: up to the common ancestor, then down."""
    parts = []
    for n, t in enumerate(path):
        parts.append(t.lemma_.lower() or t.text.lower())
        if n < top:
            parts.append(f"-{t.dep_}->")
        elif n < len(path) - 1:
            parts.append(f"<-{path[n + 1].dep_}-")
    return " ".join(parts)


def relation_phrase(path: list, span_a, span_b) -> tuple[str, object] | None:
    """The relation words on a dependency path between two argument spans, and the word that heads it."""
    inner = [t for t in path if not (span_a.start <= t.i < span_a.end or span_b.start <= t.i < span_b.end)]
    verbs = [t for t in inner if t.pos_ == "VERB"]
    if verbs:
        head = verbs[-1]  # nearest the second argument ("is used to treat" -> treat)
        words = [head.lemma_.lower()] + [c.text.lower() for c in head.children if c.dep_ == "prt"]
    else:
        nouns = [t for t in inner if t.pos_ in ("NOUN", "PROPN", "ADJ") and any(c.isalpha() for c in t.text)]
        if not nouns:
            return None
        head = nouns[-1]
        words = [head.lemma_.lower()]
    preps = [t for t in inner if t.dep_ in ("prep", "agent") and t.head.i == head.i]
    if preps:
        words.append(preps[-1].text.lower())
    return " ".join(words), head


def sentence_relations(sent, args: Sequence[tuple[object, Argument]], sentence_id: int, max_path: int = 5,
                       type_of: Callable[[str], str | None] = lambda word: None) -> Iterator[Triple]:
    """Triples for every ordered pair (by position) of argument spans of one sentence linked by the parse.
    ``relation_type`` is ``type_of`` the relation's head when that is a noun predicate ("ceo of"); a verb has none
    (its vocabulary labels are those of the nouns it keeps company with: "treat" reads DRUG)."""
    for i, (span_a, arg_a) in enumerate(args):
        for span_b, arg_b in args[i + 1 :]:
            if span_a.end > span_b.start:  # overlapping arguments
                continue
            a, b = _role_head(span_a.root), _role_head(span_b.root)
            if a.i == b.i:
                continue
            found = dependency_path(a, b)
            if found is None or len(found[0]) - 1 > max_path:
                continue
            path, top = found
            phrase = relation_phrase(path, span_a, span_b)
            if phrase is None:
                continue
            words, head = phrase
            negated = any(c.dep_ == "neg" for t in (head, *path[top : top + 1]) for c in t.children)
            form = "infix" if span_a.end <= head.i < span_b.start else ("prefix" if head.i < span_a.start else "suffix")
            yield Triple(arg_a, words, arg_b, sentence_id, path_string(path, top), negated, form,
                         None if head.pos_ == "VERB" else type_of(head.lemma_.lower()))


class RelationExtractor:
    """Tag entities with a tagger, parse with its spaCy pipeline, and read triples off the parse."""

    def __init__(self, tagger: BaseTagger, untyped: bool = True, type_pairs: set[tuple[str, str]] | None = None,
                 relations: set[str] | None = None) -> None:
        self.tagger = tagger
        self.untyped = untyped
        self.type_pairs = type_pairs
        self.relations = relations
        self._index = {t: i for i, t in enumerate(tagger.mlm.vocab)}

    def relation_type(self, word: str) -> str | None:
        """The entity type a word carries in the vocabulary labels, summed over each type's labels as the tagger
        sums them; None for an unlabelled word or one whose strongest type is not an entity's (OTHER)."""
        i = self._index.get(word)
        if i is None:
            return None
        scorer = self.tagger.scorer
        types = scorer.dist[i] @ scorer.rollup
        best = int(types.argmax())
        return scorer.type_names[best] if types[best] > 0 and best not in scorer.not_entity else None

    def extract(self, texts: Iterable[str], batch_size: int = 32) -> Iterator[list[Triple]]:
        """Triples per text, in order."""
        batch: list[str] = []
        for text in texts:
            batch.append(text)
            if len(batch) >= batch_size:
                yield from self._batch(batch)
                batch = []
        if batch:
            yield from self._batch(batch)

    def _batch(self, texts: list[str]) -> list[list[Triple]]:
        docs = list(self.tagger.nlp.pipe(texts))
        entities = self.tagger.tag_parsed(docs, [self.tagger.spans_for_doc(d) for d in docs])
        return [self._doc_triples(doc, ents) for doc, ents in zip(docs, entities)]

    def _doc_triples(self, doc, entities: list[Entity]) -> list[Triple]:
        spans = []
        for e in entities:
            span = doc.char_span(e.start, e.end, alignment_mode="expand")
            if span is not None:
                spans.append((span, Argument(e.text, e.type, e.start, e.end)))
        if self.untyped:
            taken = {i for s, _ in spans for i in range(s.start, s.end)}
            for chunk in doc.noun_chunks:
                core = [t for t in chunk if t.pos_ in ("NOUN", "PROPN")]
                if core and not taken.intersection(range(chunk.start, chunk.end)):
                    sub = doc[core[0].i : chunk.end]
                    spans.append((sub, Argument(sub.text, UNTYPED, sub.start_char, sub.end_char)))
        spans.sort(key=lambda x: x[0].start)
        out = []
        for n, sent in enumerate(doc.sents):
            args = [(s, a) for s, a in spans if sent.start <= s.start < sent.end]
            for triple in sentence_relations(sent, args, n, type_of=self.relation_type):
                if self.type_pairs and (triple.e1.type, triple.e2.type) not in self.type_pairs:
                    continue
                if self.relations and triple.relation.split()[0] not in self.relations:
                    continue
                out.append(triple)
        return out


def summarise(triples: Iterable[Triple], top: int = 15,
              typed_only: bool = False) -> list[tuple[tuple[str, str, str], int]]:
    """The most frequent (type1, relation, type2) patterns (``typed_only``: both arguments typed entities)."""
    return Counter((t.e1.type, t.relation, t.e2.type) for t in triples
                   if not typed_only or UNTYPED not in (t.e1.type, t.e2.type)).most_common(top)


def parse_type_pairs(spec: str) -> set[tuple[str, str]]:
    """``TYPE1:TYPE2[,TYPE1:TYPE2…]`` as a set of pairs; ValueError naming the expected form."""
    pairs = {tuple(p.split(":")) for p in spec.split(",")}
    if not all(len(p) == 2 for p in pairs):
        raise ValueError("--types: expected TYPE1:TYPE2[,TYPE1:TYPE2…]")
    return pairs


def record_triples(extractor: RelationExtractor, records: Sequence[Record],
                   batch_size: int = 32) -> tuple[list[Triple], list[str]]:
    """All triples of the records, and one JSON line per triple (the record's ``id`` first)."""
    triples: list[Triple] = []
    lines: list[str] = []
    for rec, found in zip(records, extractor.extract([r.text for r in records], batch_size)):
        triples.extend(found)
        lines += [json.dumps({"id": rec.id, **t.to_dict()}, ensure_ascii=False) for t in found]
    return triples, lines


def summary_text(triples: Sequence[Triple], n_docs: int, top: int = 15, untyped: bool = True) -> str:
    """The most frequent patterns between typed entities (and, with ``untyped``, with OTHER arguments too)."""
    lines = [f"{len(triples)} triples from {n_docs} documents"]
    sections = [("top patterns between typed entities:", True)]
    if untyped:
        sections.append(("top patterns, untyped noun phrases (OTHER) included:", False))
    for title, typed_only in sections:
        lines.append(title)
        lines += [f"  {n:6d}  {t1} --{rel}--> {t2}" for (t1, rel, t2), n in summarise(triples, top, typed_only)]
    return "\n".join(lines)

