"""The ``contained_names`` stage: an entity that holds a name gives way to the name; and ``derived_adjectives``.

English names a treatment, a group, a dose or an animal model by the drug, disease or gene it is about, a
compound's modifier: "olanzapine treatment", "the enalapril group", "diclofenac 150 mg", "diabetic persons", "p53-/-
mice"; and a process by the gene that undergoes it, "VEGF transcription". The tagger types the whole compound as
what it is (a procedure, a group, a quantity, a gene's expression), and the name inside is lost. An entity with one
of the container labels (its type or its subtype; the settings' ``containers``, the list the teacher's
``inner_names`` step reads) gives way to the terms of the domain's tagged
corpus (the lexicon table of the ``lexicon`` stage, ``uner.vocab.lexicon``) that stand inside it, of the listed
``types``, each typed as in the corpus and scored by its type's share of its tags; the others stay as they are. A
term counts when the corpus's tagger tagged it at least ``min_tagged`` times, in at least ``min_rate`` of its
occurrences, with at least ``min_share`` of its tags on one type; the rate asked is lower than the ``lexicon``
stage's, since a name that mostly stands inside such compounds is rarely tagged alone ("olanzapine" 7 of 16). A term
that is itself a container ("chemotherapy", a procedure; "transcription") or of one of the ``modifier_subtypes`` (a
type's adjectives: "intravenous", "acute") does not count. With ``endings``, the words that the ``word_endings`` stage's
table types (with its settings) come out too where no term stands ("quetiapine monotherapy"). Settings: the labels'
``stages/contained_names.yaml``.

The ``derived_adjectives`` stage: English derives adjectives from nouns by their endings ("hypertension" →
"hypertensive", "epilepsy" → "epileptic", "diabetes" → "diabetic"), and such an adjective of a disease, said of
people or animals, names the disease they have ("hypertensive patients", "epileptic women", "diabetic rats"). The
tagger types the whole as people or animals; a tagged corpus rarely types the adjectives. The stage derives, from the
lexicon's one-word terms of the listed ``types`` (sure enough, as above), their adjectives by the (adjective ending,
noun ending) pairs of the labels' ``stages/derived_adjectives.yaml``, and an entity of one of its ``holders`` labels
(people, animals, groups of them) that holds one gives way to it, typed as its noun. Elsewhere the adjective stays
untyped: said of a thing it describes more often than it names ("aggressive", "invasive" of tumours).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...vocab.endings import Endings
from ...vocab.lexicon import Lexicon
from ...vocab.memo import Memo
from ..scoring import Entity
from .endings import EndingWords
from .lexicon import add_uncovered, sure_terms
from .registry import Words, register


@dataclass(frozen=True)
class ContainedWords:
    """The terms sure enough to come out of a container (and the endings that type a word), the container labels."""

    lexicon: Lexicon
    containers: frozenset[str]
    endings: Endings | None = None
    _found: Memo[str, list[Entity]] = field(init=False, repr=False, compare=False)  # (by a container's text)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_found", Memo(self._names))

    @property
    def types(self) -> tuple[str, ...]:
        return self.lexicon.types

    @classmethod
    def read(cls, read: Words) -> ContainedWords:
        conf = read("contained_names")
        containers = frozenset(map(str, conf["containers"]))
        skip = containers | frozenset(map(str, conf.get("modifier_subtypes") or ()))
        endings = EndingWords.read(read).endings if conf.get("endings") else None
        if endings is not None:
            endings = Endings({k: e for k, e in endings.endings.items() if e.subtype not in skip}, endings.min_stem)
        terms = Lexicon({k: t for k, t in sure_terms(read, conf).terms.items() if t.subtype not in skip})
        return cls(terms, containers, endings)

    def inside(self, text: str, ent: Entity) -> list[Entity]:
        """The names inside the container ``ent`` (of ``text``), in order (see ``names``)."""
        at = ent.start
        return [replace(name, text=text[at + name.start : at + name.end], start=at + name.start, end=at + name.end)
                for name in self.names(ent.text)]

    def names(self, container: str) -> list[Entity]:
        """The names inside a container's text, offsets in it: the lexicon's terms, then the words a kept ending
        types where no term stands; none that is the whole text. Kept by the text (a container is said again)."""
        return self._found[container]

    def _names(self, container: str) -> list[Entity]:
        whole = (0, len(container))
        found = [Entity(container[s:e], s, e, term.type, term.subtype, term.share)
                 for s, e, term in self.lexicon.find(container) if (s, e) != whole]
        if self.endings is not None:
            found = add_uncovered(found, (Entity(container[s:e], s, e, end.type, end.subtype, end.precision)
                                          for s, e, end in self.endings.find(container) if (s, e) != whole))
        return found

    def give_way(self, text: str, entities: Sequence[Entity]) -> list[Entity]:
        """``entities``, each container that holds names replaced by them."""
        out = []
        for ent in entities:
            inner = self.inside(text, ent) if ent.type in self.containers or ent.subtype in self.containers else []
            out.extend(inner or [ent])
        return out


@register("contained_names", ContainedWords)
def contained_names(text: str, entities: Sequence[Entity], words: ContainedWords) -> list[Entity]:
    """``entities``, each container that holds terms replaced by them (see the module docstring)."""
    return words.give_way(text, entities)


@dataclass(frozen=True)
class AdjectiveWords(ContainedWords):
    """The derived adjectives (as a lexicon), the labels of people and animals that give way to them."""

    @classmethod
    def read(cls, read: Words) -> AdjectiveWords:
        conf = read("derived_adjectives")
        nouns = sure_terms(read, conf)
        suffixes = tuple((str(a), str(n)) for a, n in conf["suffixes"])
        return cls(nouns.adjectives(suffixes, conf.get("subtype"), int(conf["min_stem"])),
                   frozenset(map(str, conf["holders"])))


@register("derived_adjectives", AdjectiveWords)
def derived_adjectives(text: str, entities: Sequence[Entity], words: AdjectiveWords) -> list[Entity]:
    """``entities``, each entity of people or animals that a derived adjective opens replaced by it (see the module
    docstring)."""
    return words.give_way(text, entities)
