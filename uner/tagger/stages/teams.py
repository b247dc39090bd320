"""The ``sports_teams`` stage: place names that stand for sports teams ("Leicestershire beat Somerset").

The masked LM types a span by what else fits its slot, and what fits "[MASK] beat Somerset by an innings" is
other counties: a place. Clubs named after their town are organisations (CoNLL-2003, OntoNotes and ACE agree),
while a country's side stays the country ("Romania beat Lithuania" is a location in CoNLL-2003 and a GPE in
OntoNotes). The cue is the sentence's shape, which a tagger of single spans does not see: result lines, league
tables, fixtures and the verbs of a match. Word lists and type names: the labels' ``stages/sports_teams.yaml`` (its
countries: ``words/countries.yaml``'s list).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

from ..scoring import Entity
from .registry import Words, register, shipped
from .shared import in_countries


@dataclass(frozen=True)
class TeamWords:
    """Countries, the words of a match, and the place and team types."""

    countries: frozenset[str]
    match_verbs: frozenset[str]  # subject and object are sides
    result_verbs: frozenset[str]  # only as "lost to", "drew with" or before a score
    versus: frozenset[str]  # between two differently named sides
    win_nouns: frozenset[str]  # "victory over Gloucester"
    match_nouns: frozenset[str]  # "their match against Yorkshire"
    place: str
    team: str

    @classmethod
    def read(cls, read: Words) -> TeamWords:
        data = read("sports_teams")
        lists = (frozenset(data[k]) for k in ("match_verbs", "result_verbs", "versus", "win_nouns", "match_nouns"))
        return cls(frozenset(data["countries"]), *lists, data["types"]["place"], data["types"]["team"])

    @property
    def types(self) -> tuple[str, ...]:
        return self.place, self.team


_INT = re.compile(r"\d{1,3}")
_SCORE = re.compile(r"\d{1,3}-\d{1,3}")
_STAT = re.compile(r"\d{1,3}|\d*\.\d+|-|\d+/\d+|\d+-\d+")



def is_country(name: str, countries: frozenset[str] | None = None) -> bool:
    """Whether ``name`` is a country (or a nation's side) by its usual English names, case and dots ignored
    (``countries``: the shipped labels' by default)."""
    return in_countries(name, countries or shipped(TeamWords).countries)


@register("sports_teams", TeamWords)
def team_entities(text: str, entities: Sequence[Entity], words: TeamWords | None = None) -> list[Entity]:
    """``entities`` (one sentence's, in order) with each place that the sentence shows to be a sports team
    retyped a team (ORGANIZATION): a side of a result line ("Torquay 2 Exeter 0", "Glamorgan 259 and 207 , Durham 114"),
    the row name of a league table ("Notts County 3 1 1 1 2 2 4", "HOUSTON 72 63 .533 -"), a side of a fixture
    ("KANSAS CITY AT DETROIT": the visitors; "v Hampshire") or of a match verb ("Leicestershire beat Somerset", "lost to
    Boston"). Countries stay places (a national side is its country). ``words``: the shipped labels' by default."""
    w = words or shipped(TeamWords)
    kept = [i for i, e in enumerate(entities) if e.kept]
    if not any(entities[i].type == w.place for i in kept):
        return list(entities)
    teams = {kept[j] for j in _team_items(_items(text, [entities[i] for i in kept]), w)}
    return [replace(e, type=w.team, subtype=None) if i in teams and _is_place_name(e, w) else e
            for i, e in enumerate(entities)]


def _is_place_name(ent: Entity, w: TeamWords) -> bool:
    """A capitalised place name that is no country (not "Austrian", not "ska")."""
    return (ent.type == w.place and ent.subtype is None and ent.text[:1].isupper()
            and not is_country(ent.text, w.countries))


def _versus(items: list[tuple[str, int | None]], k: int, w: TeamWords) -> bool:
    """Whether item ``k`` is a side of a fixture: "Surrey v Kent", "June 28-30 v Hampshire" ("v" as in British
    fixture lists; "v." names law cases, "Miller v. Texas"), or between two differently named entities with
    "vs" or "versus"."""
    for side, other in ((k - 1, k - 2), (k + 1, k + 2)):
        if not 0 <= side < len(items):
            continue
        word = items[side][0].lower()
        beyond = items[other] if 0 <= other < len(items) else None
        if word == "v" and (beyond is None or not beyond[0][:1].islower()):
            return True
        if word in w.versus and beyond is not None and beyond[1] is not None \
                and _distinct_heads([items[k][0], beyond[0]]):
            return True
    return False


def _distinct_heads(names: list[str]) -> bool:
    """Whether the names end in different words: sides of a result ("Springfield 3 PROVIDENCE 2"), not numbered
    things of one kind ("Route 1 , Route 8", "U.S. Highway 6 , Nebraska Highway 2", "AD 431 ... AD 451")."""
    heads = [(n.split() or [""])[-1].lower() for n in names]
    return len(set(heads)) == len(heads)


def _items(text: str, entities: Sequence[Entity]) -> list[tuple[str, int | None]]:
    """The sentence as words and whole entities: ``(word, None)`` or ``(entity text, entity index)``."""
    items: list[tuple[str, int | None]] = []
    order = sorted(range(len(entities)), key=lambda i: entities[i].start)
    pos = 0
    for i in order:
        ent = entities[i]
        if ent.start < pos:
            continue
        items += [(w, None) for w in text[pos:ent.start].split()]
        items.append((ent.text, i))
        pos = ent.end
    items += [(w, None) for w in text[pos:].split()]
    return items


def _team_items(items: list[tuple[str, int | None]], w: TeamWords) -> set[int]:
    """Indices of the entities that the sentence's shape marks as sides of a sporting contest."""
    words = [w for w, _ in items]
    ents = [(k, i) for k, (_, i) in enumerate(items) if i is not None]
    teams: set[int] = set()
    # a result line: two or more entities, each followed by a score
    scored = [i for k, i in ents if k + 1 < len(items) and _INT.fullmatch(words[k + 1])
              and (k + 2 >= len(items) or items[k + 2][1] is not None or not words[k + 2][:1].isalpha()
                   or words[k + 2].lower() in {"and", "for"})]
    if len(scored) >= 2 and _distinct_heads([words[k] for k, i in ents if i in scored]):
        teams.update(scored)
    teams.update(i for k, i in ents if 1 < k < len(items) - 1  # "Torquay 2 Exeter 0" with Torquay missed
                 and _INT.fullmatch(words[k - 1]) and _INT.fullmatch(words[k + 1])
                 and _distinct_heads([words[k - 2], words[k]]))
    # a league-table row: one entity first, then only figures (at least three, the first two whole numbers)
    if ents and ents[0][0] == 0 and len(ents) == 1:
        rest = [w for w in words[1:] if w not in {".", ","}]
        if len(rest) >= 3 and all(_STAT.fullmatch(w) for w in rest) and all(_INT.fullmatch(w) for w in rest[:2]):
            teams.add(ents[0][1])
    # a fixture ("BOSTON AT OAKLAND", "Surrey v Kent") and match verbs ("Leicestershire beat Somerset")
    for k, i in ents:
        before = words[k - 1].lower() if k > 0 else ""
        after = words[k + 1].lower() if k + 1 < len(items) else ""
        after2 = words[k + 2].lower() if k + 2 < len(items) else ""
        if _versus(items, k, w) or after in w.match_verbs or before in w.match_verbs \
                or (after in w.result_verbs and (after2 in {"to", "with"} or _SCORE.fullmatch(after2))) \
                or (before in {"to", "with"} and k > 1 and words[k - 2].lower() in w.result_verbs) \
                or (before == "over" and k > 1 and words[k - 2].lower() in w.win_nouns) \
                or (before == "against" and k > 1 and words[k - 2].lower() in w.match_nouns):
            teams.add(i)
    if len(ents) == 2 and len(items) == 3 and words[1].lower() == "at":  # the home side's place stays a place
        teams.add(ents[0][1])
    return teams
