"""Places that stand for sports teams: the sentence-shape rule, and both shipped engines applying it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from uner.tagger.scoring import Entity
from uner.tagger.stages.teams import is_country, team_entities


def _ents(text: str, *names: str, type_name: str = "LOCATION") -> list[Entity]:
    """Entities for the given names, found left to right in ``text``."""
    out, pos = [], 0
    for name in names:
        start = text.index(name, pos)
        out.append(Entity(name, start, start + len(name), type_name, None, 0.9))
        pos = start + len(name)
    return out


def _types(text: str, *names: str) -> dict[str, str]:
    return {e.text: e.type for e in team_entities(text, _ents(text, *names))}


@pytest.mark.parametrize("text, names, teams", [
    ("Torquay 2 Exeter 0", ("Torquay", "Exeter"), {"Torquay", "Exeter"}),
    ("Torquay 2 Exeter 0", ("Exeter",), {"Exeter"}),  # the other side missed by the tagger
    ("Glamorgan 259 and 207 , Durham 114 .", ("Glamorgan", "Durham"), {"Glamorgan", "Durham"}),
    ("Surrey vs. Kent", ("Surrey", "Kent"), {"Surrey", "Kent"}),
    ("Notts County 3 1 1 1 2 2 4", ("Notts County",), {"Notts County"}),
    ("HOUSTON 72 63 .533 -", ("HOUSTON",), {"HOUSTON"}),
    ("KANSAS CITY AT DETROIT", ("KANSAS CITY", "DETROIT"), {"KANSAS CITY"}),  # the home side's place stays
    ("June 28-30 v Hampshire ( three days )", ("Hampshire",), {"Hampshire"}),
    ("At Portsmouth : Middlesex beat Hampshire by 188 runs .", ("Portsmouth", "Middlesex", "Hampshire"),
     {"Middlesex", "Hampshire"}),
    ("Milwaukee lost to Boston 5-3 .", ("Milwaukee", "Boston"), {"Milwaukee", "Boston"}),
    ("their side 's 75-19 victory over Gloucester .", ("Gloucester",), {"Gloucester"}),
    ("their match against Yorkshire at Headingley .", ("Yorkshire", "Headingley"), {"Yorkshire"}),
])
def test_places_in_the_shapes_of_sport_become_organisations(text, names, teams):
    types = _types(text, *names)
    assert {n for n, t in types.items() if t == "ORGANIZATION"} == teams
    assert all(types[n] == "LOCATION" for n in names if n not in teams)


@pytest.mark.parametrize("text, names", [
    ("Romania beat Lithuania 2-1 in Bucharest .", ("Romania", "Lithuania", "Bucharest")),  # national sides
    ("Japan 2 Syria 1", ("Japan", "Syria")),
    ("Switzerland at Slovak Republic", ("Switzerland", "Slovak Republic")),
    ("S. KOREA 3 U.S. 1", ("S. KOREA", "U.S.")),
    ("LONDON 1996-08-30", ("LONDON",)),  # a dateline, not a score
    ("Florida lost 10,000 jobs in July .", ("Florida",)),  # "lost" without "to" or a score
    ("Democrats lost Ohio and won Texas .", ("Ohio", "Texas")),
    ("Thousands protested against Beijing in Hong Kong .", ("Beijing", "Hong Kong")),
    ("London 7 million , Paris 2 million .", ("London", "Paris")),  # figures with units are not scores
    ("Tokyo 19,800 19,750 19,900", ("Tokyo",)),  # a price table row
    ("In Miller v. Texas , the court ruled .", ("Texas",)),  # a law case
    ("Central vs Southern Quechua", ("Central",)),  # a comparison
    ("The rebels defeated Grozny 's garrison .", ("Grozny",)),
    ("The region is closely tied to Southwestern Asia .", ("Southwestern Asia",)),
    ("Route 1 , Route 8 and Route 9 .", ("Route", "Route", "Route")),  # numbered things of one kind
    ("U.S. Highway 6 , Nebraska Highway 2", ("U.S. Highway", "Nebraska Highway")),
    ("Building 34 , Apartment 33", ("Apartment",)),
])
def test_countries_and_places_outside_sport_stay_places(text, names):
    assert set(_types(text, *names).values()) == {"LOCATION"}


def test_adjectives_and_lower_case_spans_stay_places():
    text = "the previous Austrian defeats and the ska beat ."
    ents = [replace(e, subtype=s) for e, s in zip(_ents(text, "Austrian", "ska"), ("LOCATION_ADJECTIVE", None))]
    assert team_entities(text, ents) == ents


def test_only_kept_locations_change():
    text = "Leicestershire beat Somerset by an innings ."
    person, rejected = _ents(text, "Leicestershire", "Somerset")
    person = replace(person, type="PERSON")
    rejected = replace(rejected, kept=False)
    assert team_entities(text, [person, rejected]) == [person, rejected]


def test_country_names_ignore_case_and_dots():
    assert is_country("U.S.") and is_country("SOUTH  KOREA") and is_country("West Indies")
    assert not is_country("Surrey") and not is_country("New York")


SPORT = "Leicestershire beat Somerset by an innings and 39 runs ."
NATIONS = "Romania beat Lithuania 2-1 in Bucharest ."


def _typed(ents) -> dict[str, str]:
    return {e.text: e.type for e in ents}


def test_shipped_teacher_types_county_sides_as_organisations_and_national_sides_as_places():
    from uner.tagger import Tagger

    tagger = Tagger.from_pretrained(device="cpu")
    sport, nations = tagger.tag([SPORT, NATIONS])
    assert _typed(sport) == {"Leicestershire": "ORGANIZATION", "Somerset": "ORGANIZATION"}
    assert _typed(nations) == {"Romania": "LOCATION", "Lithuania": "LOCATION", "Bucharest": "LOCATION"}
    [given] = tagger.tag([SPORT], [[(0, len("Leicestershire"))]])  # caller-given spans are typed as given
    assert _typed(given) == {"Leicestershire": "LOCATION"}


def test_shipped_student_types_county_sides_as_organisations_and_national_sides_as_places():
    from uner.tagger import Student

    sport, nations = Student.from_pretrained().tag([SPORT, NATIONS])
    assert _typed(sport) == {"Leicestershire": "ORGANIZATION", "Somerset": "ORGANIZATION"}
    assert set(_typed(nations).values()) == {"LOCATION"}
