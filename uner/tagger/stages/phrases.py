"""The ``phrase_bounds`` stage: an entity's edges moved to where the domain's corpus says its phrase starts and ends.

A candidate span is a run of nouns and adjectives, so it often carries a modifier ("severe heart failure",
"dobutamine treatment") or stops inside a name that punctuation cuts ("FU" of "5 - FU"). The corpus decides, by
how strongly an edge word and the rest of the entity come together (``tie``: the larger of the two conditional
probabilities, c(word + rest) / c(word) and c(word + rest) / c(rest), from the labels' phrase-count table,
``uner phrases``):

- **trim**: the first word goes when the rest of the entity is a phrase of the corpus (seen at least the
  table's ``min_count`` times) and the two rarely come together (tie < ``trim_below``): "severe" (9 of 4,378
  "severe" and of 869 "heart failure") goes, "dilated" (137 of 248 "dilated") stays, "acute" (21 of 102 "renal
  failure") stays. Only the entities of the ``trim_labels`` are trimmed (none listed: all; ``TYPE/SUBTYPE`` for
  a subtyped entity: a substance, not a therapy), and a first word that the domain's tagged corpus knows as a name
  of the entity's type (the ``names`` lexicon table, not as one of the ``modifier_subtypes``) stays: "calcium
  chloride" keeps its name, "intravenous morphine" loses its route;
- **extend**: the word before (after) the entity — with a connector between them ("5 - FU"), both — joins it when
  they nearly always come together (tie ≥ ``extend_from``) and the word is not one of the corpus's most frequent
  words (its function words: the table's ``frequent``, learned with the counts).

Edges move by whole tokens of the counts' tokenisation; an entity whose edges fall inside a token is left alone.
The type stays; the stage never adds or drops an entity. Settings and the table's file name are in the labels'
``stages/phrase_bounds.yaml``, the table beside it (docs/design.md §3.3d).

The ``degree_modifiers`` stage, from the same table, drops the words of degree that open an entity: "severe heart
failure" is heart failure that is severe, as "mild" or "aggressive" say how much, not which. Such an
adjective is gradable, and the corpus shows it: it follows a word of degree ("very severe", "so severe"; the list in
the labels' ``stages/degree_modifiers.yaml``) in at least ``min_share`` of its ``min_count`` or more occurrences,
where "dilated", "hereditary", "acute" or "renal" never do. It stays where the corpus ties it to the rest as a name
(tie ≥ ``keep_tie``, as ``phrase_bounds`` would join it: "severe combined immunodeficiency"), where a connector
follows it ("mild - to"), and in a one-word entity.

The ``hyphen_compounds`` stage, from the same table, makes one entity of two that only a hyphen parts: English
writes a compound as one word with a hyphen ("Wiskott-Aldrich syndrome", "ataxia-telangiectasia"), a tagger reads
the hyphen as a break (tokenised text writes "Wiskott - Aldrich syndrome") and keeps two entities, "Wiskott" and
"Aldrich syndrome". The corpus tells a compound from two names put side by side ("prostigmine-morphine",
"constipation-predominant IBS"): the two words beside the hyphen are joined when they come together (the larger
conditional probability of the hyphenated pair given either word) in at least ``join_from`` of their occurrences
("Wiskott" 21 of 24, "ataxia-telangiectasia" 35 of 200 "telangiectasia"; "prostigmine-morphine" never). The whole
takes the type of the right-hand entity, the compound's head ("Wiskott" a person, "Aldrich syndrome" a disease).

The ``class_nouns`` stage, from the same table, drops the entities that name a class, not a member: "a dose", "the
drug", "these symptoms". English writes a common count noun after an article or another determiner (the list in the
labels' ``stages/class_nouns.yaml``) and a name or a substance without one, so the corpus shows which is which: an
entity whose words follow a determiner in at least ``min_share`` of their ``min_count`` or more occurrences goes
("dose" 20.1 %, "drug" 26 %, "single dose" 75 % of their occurrences in the biomedical abstracts), where "morphine"
and "hypotension" (under 3 %) or "breast cancer" (1.5 %) stay. Only the entities of the listed ``types`` are judged.
A substance is named without the count nouns around it, so an entity of the ``edge_types`` (substances) also loses
the class nouns at its edges, unless the corpus ties them to the rest as a name (tie ≥ ``keep_tie``): "dose
methylprednisolone", "tacrolimus dose", "brain serotonin" → the substance. A plural needs no article ("drugs were
given"), so an entity of the ``plural_types`` that is a regular English plural is judged by its singular too:
"doses", "drugs" go as "dose", "drug" would. A class noun is mostly written after the name of one of its members
("aromatase inhibitor", "antihypertensive agent"), a substance's own name after "of", "with" or "and", so a
one-word entity of the ``modified_types`` also goes when the corpus writes it after a content word in at least
``min_modified`` of its uses ("inhibitor" 77 %, "morphine" 46 %).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...vocab.lexicon_table import Lexicon
from ...vocab.memo import Memo
from ...vocab.phrase_counts import PhraseCounts, cached_tokens
from ..scoring import Entity
from .registry import Words, register
from .shared import PhraseDoc, load_counts, load_table


@dataclass(frozen=True)
class PhraseWords:
    """The phrase-count table and the two thresholds of the stage."""

    counts: PhraseCounts
    trim_below: float
    extend_from: float
    min_modifier_count: int
    trim_labels: frozenset[str] = frozenset()  # the labels (TYPE, TYPE/SUBTYPE) trimmed (none listed: all)
    names: Lexicon = field(default_factory=lambda: Lexicon({}))  # words known as names of a type: not trimmed from it
    modifier_subtypes: frozenset[str] = frozenset()  # ... unless known as one of these (a type's adjectives)

    @property
    def types(self) -> tuple[str, ...]:
        """The types the stage reads (it moves edges, never types): the labels must have them."""
        return tuple(sorted({label.split("/")[0] for label in self.trim_labels}))

    @classmethod
    def read(cls, read: Words) -> PhraseWords:
        conf = read("phrase_bounds")
        names = conf.get("names")
        return cls(load_counts(read.path(conf["counts"])), float(conf["trim_below"]), float(conf["extend_from"]),
                   int(conf["min_modifier_count"]), frozenset(map(str, conf.get("trim_labels") or ())),
                   load_table(read, names).select(int(names["min_tagged"]), min_share=float(names["min_share"]))
                   if names else Lexicon({}), frozenset(map(str, conf.get("modifier_subtypes") or ())))

    def trims(self, ent: Entity) -> bool:
        """Whether ``ent`` loses the loosely tied words that open it."""
        label = ent.type if ent.subtype is None else f"{ent.type}/{ent.subtype}"
        return self.trim_below > 0 and (not self.trim_labels or label in self.trim_labels)

    def is_name(self, word: str, type_: str) -> bool:
        """Whether the domain's tagged corpus knows ``word`` as a name of ``type_`` (not as one of its modifiers):
        "calcium" in "calcium chloride", "heparin" in "heparin treatment" stay; "intravenous" does not."""
        term = self.names.terms.get((word,))
        return term is not None and term.type == type_ and term.subtype not in self.modifier_subtypes


@dataclass(frozen=True)
class AfterWords:
    """The phrase-count table, a list of words, and how often a term must follow them (in ``min_share`` of its
    ``min_count`` or more occurrences) to be of the kind they mark."""

    counts: PhraseCounts
    before: tuple[str, ...]
    min_share: float
    min_count: int
    _judged: Memo[tuple[str, ...], bool] = field(init=False, repr=False, compare=False)  # (a copy starts afresh)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_judged", Memo(self._follows))

    def follows(self, words: tuple[str, ...]) -> bool:
        """Whether the corpus writes the lower-cased token sequence ``words`` after the list's words often enough."""
        return self._judged[words]

    def _follows(self, words: tuple[str, ...]) -> bool:
        seen, share = self.counts.after(words, self.before, self.min_count)
        return seen >= self.min_count and share >= self.min_share


@dataclass(frozen=True)
class CompoundWords:
    """The phrase-count table and how often two words must come together over a hyphen to be one compound."""

    counts: PhraseCounts
    join_from: float

    types = ()  # (it joins entities, never types)

    @classmethod
    def read(cls, read: Words) -> CompoundWords:
        conf = read("hyphen_compounds")
        return cls(load_counts(read.path(conf["counts"])), float(conf["join_from"]))


@dataclass(frozen=True)
class DegreeWords(AfterWords):
    """``before``: the words of degree; a modifier that follows them often enough is graded."""

    keep_tie: float
    _cuts: Memo[str, int] = field(init=False, repr=False, compare=False)

    types = ()  # (it moves edges, never types)

    @classmethod
    def read(cls, read: Words) -> DegreeWords:
        conf = read("degree_modifiers")
        return cls(load_counts(read.path(conf["counts"])), tuple(conf["degree_words"]), float(conf["min_share"]),
                   int(conf["min_count"]), float(conf["keep_tie"]))

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "_cuts", Memo(self._cut))

    def graded(self, text: str) -> int:
        """Where an entity's ``text`` starts without the graded words that open it (0: none; a one-word entity
        keeps them: a word cut off is followed by a space and another word). Kept by the text."""
        return self._cuts[text]

    def _cut(self, text: str) -> int:
        if len(text.split(maxsplit=1)) < 2:
            return 0
        doc, k = PhraseDoc(text, self.counts), 0
        toks = doc.toks
        while (len(toks) - k >= 2 and toks[k][0].isalpha() and toks[k + 1][0][0].isalnum()
               and self.follows((toks[k][0],)) and doc.tie(k, k + 1, len(toks)) < self.keep_tie):
            k += 1
        return toks[k][1] if k else 0


@dataclass(frozen=True)
class ClassWords(AfterWords):
    """``before``: the determiners; a term that follows them often enough is a class noun."""

    types: tuple[str, ...]  # the types whose entities are judged
    edge_types: tuple[str, ...] = ()  # of those, the types whose entities lose the class nouns at their edges
    keep_tie: float = 1.0  # ... unless tied to the rest at least this strongly
    plural_types: tuple[str, ...] = ()  # of those, the types whose plurals are judged by their singular too
    plural_endings: tuple[tuple[str, str], ...] = ()  # (plural ending, singular ending), the first that fits
    modified_types: tuple[str, ...] = ()  # of those, the types whose one-word entities are judged by modifiers too
    min_modified: float = 1.0  # ... a class noun when written after a content word in at least this share
    _members: Memo[tuple[str, str], tuple[int, int] | None] = field(init=False, repr=False, compare=False)

    @classmethod
    def read(cls, read: Words) -> ClassWords:
        conf = read("class_nouns")
        types = tuple(map(str, conf["types"]))
        edges, plurals, modified = (tuple(map(str, conf.get(key, ())))
                                    for key in ("edge_types", "plural_types", "modified_types"))
        for key, named in (("edge_types", edges), ("plural_types", plurals), ("modified_types", modified)):
            if not set(named) <= set(types):
                raise ValueError(f"{read.path('class_nouns.yaml')}: {key} {sorted(set(named) - set(types))} are not "
                                 f"among the types judged ({', '.join(types)})")
        endings = tuple((str(p), str(s)) for p, s in conf.get("plural_endings", ()))
        return cls(load_counts(read.path(conf["counts"])), tuple(conf["determiners"]), float(conf["min_share"]),
                   int(conf["min_count"]), types, edges, float(conf.get("keep_tie", 1.0)), plurals, endings, modified,
                   float(conf.get("min_modified", 1.0)))

    def singular(self, terms: tuple[str, ...]) -> tuple[str, ...]:
        """``terms`` (lower-case words) with the last one in the singular by the first of the ``plural_endings``
        that fits it ("doses" → "dose", "therapies" → "therapy"; "ss" → "ss": no plural); as they are when none
        fits, or the word is not letters or shorter than four."""
        last = terms[-1] if terms else ""
        for plural, single in self.plural_endings:
            if last.endswith(plural) and last.isalpha() and len(last) > 3:
                return (*terms[:-1], last[: len(last) - len(plural)] + single)
        return terms

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "_members", Memo(self._member))

    def member(self, type_: str, text: str) -> tuple[int, int] | None:
        """Of an entity's type and text, the part that names a member, as character offsets in the text; None for a
        class noun. Kept by the two."""
        return self._members[type_, text]

    def _member(self, entity: tuple[str, str]) -> tuple[int, int] | None:
        type_, text = entity
        terms = tuple(t for t, _, _ in cached_tokens(text))
        if self.follows(terms) or (type_ in self.plural_types and self.follows(self.singular(terms))) or (
                type_ in self.modified_types and len(terms) == 1 and self.modified(terms[0])):
            return None
        if type_ in self.edge_types and len(terms) >= 2 and (self.follows(terms[:1]) or self.follows(terms[-1:])):
            doc = PhraseDoc(text, self.counts)
            i, j = 0, len(doc.toks)
            while j - i >= 2 and self.loose(doc, j - 1, i, j):
                j -= 1
            while j - i >= 2 and self.loose(doc, i, i, j):
                i += 1
            if (i, j) != (0, len(doc.toks)):
                return doc.toks[i][1], doc.toks[j - 1][2]
        return 0, len(text)

    def modified(self, word: str) -> bool:
        """Whether the corpus writes ``word`` after a content word often enough to be a class noun ("inhibitor",
        "agents": what names a member is written before them; a drug's name after "of" or "with")."""
        seen, share = self.counts.modified(word)
        return seen >= self.min_count and share >= self.min_modified

    def loose(self, doc: PhraseDoc, edge: int, i: int, j: int) -> bool:
        """Whether token ``edge``, the first or last of an entity's tokens [i, j), is a class noun that the corpus
        ties loosely to the rest."""
        cut = i + 1 if edge == i else j - 1
        return (doc.words[edge].isalpha() and self.follows((doc.words[edge],))
                and doc.tie(i, cut, j) < self.keep_tie)


def bounds(doc: PhraseDoc, i: int, j: int, words: PhraseWords, taken: set[int] = frozenset(),
           trim_type: str | None = None) -> tuple[int, int]:
    """The token range [i, j) of an entity with its edges moved (see the module docstring), never onto the tokens
    ``taken`` by other entities; its first words trimmed only with a ``trim_type`` (the entity's type)."""
    while (trim_type is not None and words.trim_below > 0 and j - i >= 2 and doc.is_word(i + 1)
           and not words.is_name(doc.words[i], trim_type)
           and doc.count(i, i + 1) >= words.min_modifier_count
           and doc.count(i + 1, j) and doc.tie(i, i + 1, j) < words.trim_below):
        i += 1
    while (u := doc.unit(i - 1, -1, taken)) is not None and doc.tie(u, i, j) >= words.extend_from:
        i = u
    while (u := doc.unit(j, 1, taken)) is not None and doc.tie(i, j, u + 1) >= words.extend_from:
        j = u + 1
    return i, j


@register("phrase_bounds", PhraseWords)
def phrase_bounds(text: str, entities: Sequence[Entity], words: PhraseWords) -> list[Entity]:
    """Each entity with its edges where the corpus's phrases have them."""
    if not entities:
        return []
    doc = PhraseDoc(text, words.counts)
    ranges, taken = doc.ranges(entities)
    out = []
    for ent, (i, j) in zip(entities, ranges):
        if i is None or j is None or j <= i:
            out.append(ent)
            continue
        ni, nj = bounds(doc, i, j, words, taken.difference(range(i, j)),
                        ent.type if words.trims(ent) else None)
        taken.update(range(ni, nj))  # (a later entity does not grow onto what this one grew onto)
        if (ni, nj) == (i, j):
            out.append(ent)
            continue
        start, end = doc.toks[ni][1], doc.toks[nj - 1][2]
        out.append(replace(ent, text=text[start:end], start=start, end=end))
    return out


# the words that the joins make one are typed by their endings first ("ataxia", "telangiectasia")
@register("hyphen_compounds", CompoundWords, after=("word_endings",))
def hyphen_compounds(text: str, entities: Sequence[Entity], words: CompoundWords) -> list[Entity]:
    """``entities`` in order, two that only a hyphen parts made one where the corpus writes them as a compound (see
    the module docstring)."""
    if len(entities) < 2 or not any(text[a.end : b.start].strip() in words.counts.connectors
                                    for a, b in zip(entities, entities[1:])):
        return list(entities)
    doc = PhraseDoc(text, words.counts)
    out: list[Entity] = []
    for ent in sorted(entities, key=lambda e: e.start):
        if out:
            a, b = doc.ends.get(out[-1].end), doc.starts.get(ent.start)
            if (a is not None and b == a + 1 and doc.is_connector(a) and doc.is_word(a - 1) and doc.is_word(b)
                    and doc.joined(a - 1) >= words.join_from):
                out[-1] = replace(ent, text=text[out[-1].start : ent.end], start=out[-1].start)
                continue
        out.append(ent)
    return out


@register("degree_modifiers", DegreeWords,
          after=("phrase_bounds",))  # a word of degree the phrases took in goes again
def degree_modifiers(text: str, entities: Sequence[Entity], words: DegreeWords) -> list[Entity]:
    """Each entity without the graded words that open it (see the module docstring)."""
    out = []
    for ent in entities:
        cut = words.graded(ent.text)
        out.append(replace(ent, text=ent.text[cut:], start=ent.start + cut) if cut else ent)
    return out


@register("class_nouns", ClassWords)
def class_nouns(text: str, entities: Sequence[Entity], words: ClassWords) -> list[Entity]:
    """The entities that are not class nouns, those of the edge types without the class nouns at their edges (see
    the module docstring)."""
    out = []
    for ent in entities:
        kept = words.member(ent.type, ent.text) if ent.type in words.types else (0, len(ent.text))
        if kept is not None:
            start, end = kept
            out.append(ent if (start, end) == (0, len(ent.text)) else
                       replace(ent, text=ent.text[start:end], start=ent.start + start, end=ent.start + end))
    return out
