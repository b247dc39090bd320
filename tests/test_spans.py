"""Candidate spans from the real spaCy parser."""

from __future__ import annotations

import pytest

from uner.spans import candidate_spans, given_spans, load_spacy, parse_for_spans, parse_inline
from uner.tagger.span_words import name_joins, noun_phrases

JOINS = name_joins()  # (the shipped labels' words/name_joins.yaml)
NAMES = noun_phrases()  # the proper-noun tags alone (words/noun_phrases.yaml), every convention off
PHRASES = noun_phrases(descriptors=True, coordinations=True, determiners=True)  # (… and noun_phrases.yaml)
from uner.tagger.stages.titles import strip_title


def _spans(text: str) -> list[str]:
    return [text[s.start : s.end] for s in candidate_spans(load_spacy()(text), phrases=NAMES)]


def test_numbers_are_cut_from_names_but_kept_with_common_nouns():
    results = _spans("Manchester United beat Chelsea 2-1 at Old Trafford on Sunday .")
    assert {"Manchester United", "Chelsea", "Old Trafford", "Sunday"} <= set(results)
    assert not any("Chelsea" in s and s != "Chelsea" for s in results)
    assert _spans("LONDON 1996-08-30")[0] == "LONDON"
    assert {"5 percent", "300 million dollars"} <= set(_spans("Sales rose 5 percent to 300 million dollars ."))


def test_the_spans_parse_skips_what_spans_do_not_read_and_finds_the_same_spans():
    nlp = load_spacy()
    texts = ["Barack Obama visited Paris in May .", "Patients on lithium therapy developed renal failure . It was rare ."]
    for full, quick in zip(nlp.pipe(texts), parse_for_spans(nlp, texts)):
        assert [t.tag_ for t in quick] == [t.tag_ for t in full]
        assert [s.start for s in quick.sents] == [s.start for s in full.sents]
        assert candidate_spans(quick, phrases=NAMES) == candidate_spans(full, phrases=NAMES)
        assert not any(t.lemma_ for t in quick) and any(t.lemma_ for t in full)  # (the lemmatizer was skipped)
    assert "lemmatizer" in nlp.pipe_names  # (the pipeline itself keeps it: relations read lemmas)


def test_possessives_and_symbols_are_trimmed():
    spans = _spans("Zoë Saldaña 🎉 met the boss of Toyota 's .")
    assert "Toyota" in spans and "Zoë Saldaña" in spans
    assert not any(s.endswith(("'s", "🎉")) for s in spans)


def _named(text: str) -> dict[str, bool]:
    spans = candidate_spans(load_spacy()(text), policy="named", joins=JOINS, phrases=NAMES)
    return {text[s.start : s.end]: s.named for s in spans}


def test_named_policy_keeps_names_whole_and_marks_common_nouns():
    spans = _named("Barack Obama visited Paris with executives of Toyota .")
    assert spans == {"Barack Obama": True, "Paris": True, "executives": False, "Toyota": True}
    spans = _named("The Chinese Ministry of Commerce said the BRCA1 gene was found by Procter & Gamble .")
    assert spans["Chinese Ministry of Commerce"] and spans["BRCA1"] and spans["Procter & Gamble"]
    assert spans["BRCA1 gene"] is False  # (a common noun that a name modifies: a compound, below)


def test_named_policy_makes_a_compound_of_a_name_and_the_common_noun_it_modifies():
    text = "He won the 2001 Italian general election , the 1992 United Kingdom general election and Toyota 's shares ."
    spans = _named(text)
    # the common noun takes the name before it and the year before that (a number meeting a proper noun began a
    # run of its own); the names stay candidates of their own; a possessive is no compound
    assert spans["2001 Italian general election"] is False and spans["1992 United Kingdom general election"] is False
    assert spans["Italian"] and spans["United Kingdom"] and spans["Toyota"] and spans["shares"] is False
    assert "general election" not in spans and "Toyota 's shares" not in spans
    names = {text[s.start : s.end] for s in candidate_spans(load_spacy()(text), policy="names", joins=JOINS, phrases=NAMES)}
    assert names == {"Italian", "United Kingdom", "Toyota"}  # (the names policy has no common nouns, compounds none)


def test_names_policy_is_the_named_policy_without_its_common_nouns():
    text = "The Chinese Ministry of Commerce said executives of Toyota met Barack Obama in Paris ."
    doc = load_spacy()(text)
    named = candidate_spans(doc, policy="named", joins=JOINS, phrases=NAMES)
    names = candidate_spans(doc, policy="names", joins=JOINS, phrases=NAMES)
    assert names == [s for s in named if s.named]  # the same joined names, in order
    assert {text[s.start : s.end] for s in names} == {"Chinese Ministry of Commerce", "Toyota", "Barack Obama", "Paris"}
    assert len(named) > len(names)  # ("executives")


def test_named_policy_does_not_join_across_other_words_or_sentences():
    spans = _named("Paris and London are cities . Of course Berlin is too .")
    assert {"Paris", "London", "Berlin"} <= set(spans) and not any(" and " in s or "Of" in s for s in spans)


def test_nouns_policy_is_every_noun_run_and_unknown_policy_is_an_error():
    doc = load_spacy()("Aspirin treats headaches in patients with breast cancer .")
    spans = {doc.text[s.start : s.end] for s in candidate_spans(doc, policy="nouns", phrases=NAMES)}
    assert {"Aspirin", "headaches", "patients", "breast cancer"} <= spans
    with pytest.raises(ValueError, match="unknown span policy"):
        candidate_spans(doc, policy="proper", phrases=NAMES)


def test_inline_marks_join_consecutive_words():
    text, spans = parse_inline("Barack:__entity__ Obama:__entity__ met Merkel:__entity__ in Paris:__entity__ .")
    assert text == "Barack Obama met Merkel in Paris ."
    assert [text[a:b] for a, b in spans] == ["Barack Obama", "Merkel", "Paris"]


def test_of_joins_only_after_a_word_the_caller_accepts():
    text = "Keith O'Neill of Norwich City scored , the Bank of England said ."
    doc = load_spacy()(text)
    spans = {text[s.start : s.end] for s in candidate_spans(doc, policy="named", of_head=lambda w: w == "Bank",
                                                        joins=JOINS, phrases=NAMES)}
    assert {"Keith O'Neill", "Norwich City", "Bank of England"} <= spans
    assert "Keith O'Neill of Norwich City" in {text[s.start : s.end]
                                              for s in candidate_spans(doc, policy="named", joins=JOINS, phrases=NAMES)}


def test_the_parser_is_loaded_without_its_ner():
    nlp = load_spacy()
    assert "ner" not in nlp.component_names  # excluded, not just disabled: its weights are never read
    assert {"tagger", "parser"} <= set(nlp.pipe_names)


@pytest.mark.parametrize("name, expected", [
    ("President Boris Yeltsin", "Boris Yeltsin"),
    ("Israeli Foreign Minister David Levy", "David Levy"),
    ("U.S. Ambassador Bill Richardson", "Bill Richardson"),
    ("Mr. Smith", "Smith"),
    ("Stephen King", "Stephen King"),  # a title word that is the surname
    ("Martin Luther King Jr.", "Martin Luther King Jr."),  # only a suffix after it
    ("President", "President"),  # nothing after the title
    ("King Hussein of Jordan", "King Hussein of Jordan"),  # "of" after the title: not cut
    ("Prime Minister", "Prime Minister"),  # titles only
    ("Secretary-General Kofi Annan", "Kofi Annan"),
    ("President F.W. de Klerk", "F.W. de Klerk"),
    ("President Bashar al-Assad", "Bashar al-Assad"),
])
def test_titles_before_a_name_are_cut(name, expected):
    text = f"Yesterday {name} said so."
    start, end = len("Yesterday "), len("Yesterday ") + len(name)
    assert text[strip_title(text, start, end) : end] == expected


def test_head_joins_join_a_name_to_its_complement_only_after_a_common_word():
    text = ("Smith won the Grammy Award for Best Rock Album at the Conference on Neural Information Processing Systems "
            "for the Democratic Party of the Left , and Keith O'Neill of Norwich City played Jones for Arsenal .")
    heads = {"Award", "Conference", "Party"}  # (the tagger's test: a common vocabulary word, not a person's)
    doc = load_spacy()(text)

    def spans(joins):
        return {text[s.start : s.end] for s in candidate_spans(doc, policy="names", of_head=heads.__contains__,
                                                                 joins=joins, phrases=NAMES)}

    joined = spans(name_joins(heads=True))  # (the shipped labels' words/name_joins.yaml and head_joins.yaml)
    assert {"Grammy Award for Best Rock Album", "Conference on Neural Information Processing Systems",
            "Democratic Party of the Left"} <= joined
    assert {"Keith O'Neill", "Norwich City", "Jones", "Arsenal"} <= joined  # (not after a common word: two names)
    assert {"Grammy Award", "Best Rock Album", "Democratic Party", "Left"} <= spans(JOINS)  # (switched off)


def test_a_longer_name_knows_its_syntactic_head():
    """``Span.head``: the parse's head of a name of two words or more, before its complement ("Conference on …",
    joined across "on") or after its modifiers ("Labour Party"); none for one word, a common noun, or under the
    nouns policy's names only when they are longer; given spans get it too."""
    text = ("She chaired the Conference on Neural Information Processing Systems , joined the Labour Party and met "
            "Hinton in the steel market .")
    doc = load_spacy()(text)
    said = {text[s.start : s.end]: s.head
            for s in candidate_spans(doc, policy="named", joins=name_joins(heads=True), phrases=NAMES)}
    assert said["Conference on Neural Information Processing Systems"] == "conference"
    assert said["Labour Party"] == "party"
    assert said["Hinton"] == "" and said["steel market"] == ""  # (one word; a common noun: its head is its own)
    start = text.index("Labour")
    assert given_spans(doc, [(start, start + len("Labour Party"))], NAMES)[0].head == "party"


def test_a_bad_head_joins_file_is_named(tmp_path):
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "head_joins.yaml").write_text("joins: [for, on]\n", encoding="utf-8")  # (on: YAML's true)
    with pytest.raises(ValueError, match=r"head_joins\.yaml: 'joins' must be a list of words"):
        name_joins(str(tmp_path), heads=True)


def test_a_name_knows_the_common_noun_just_before_it():
    """``Span.descriptor``: the common noun in close apposition ("the album Pork Soda", "drummer Ringo Starr"), kept
    over a join ("the lender Bank of England"), or across a comma where the parse says apposition ("Emma , a
    novel"); none after a verb, an adjective or at the sentence's start; given spans get it too."""
    text = "The band released the album Pork Soda , and drummer Ringo Starr met the lender Bank of England in red Paris ."
    doc = load_spacy()(text)
    said = {text[s.start : s.end]: s.descriptor
            for s in candidate_spans(doc, policy="named", joins=JOINS, phrases=PHRASES)}
    assert said["Pork Soda"] == "album" and said["Ringo Starr"] == "drummer"
    assert said["Bank of England"] == "lender"
    assert said["Paris"] == "" and said["album"] == ""  # (an adjective before it; a common noun has none)
    given = given_spans(doc, [(text.index("Pork"), text.index(" ,"))], PHRASES)
    assert given[0].descriptor == "album"
    for text, name, noun in (("He wrote Emma , a novel about youth .", "Emma", "novel"),
                             ("They released their second album , Pork Soda , in 1993 .", "Pork Soda", "album")):
        said = {text[s.start : s.end]: s.descriptor
                for s in candidate_spans(load_spacy()(text), policy="named", phrases=PHRASES)}
        assert said[name] == noun, said  # (the parse's apposition, across the comma)


def test_coordinated_spans_share_a_group():
    """``Span.group``: the spans a ``conj`` links ("aspirin , ibuprofen or naproxen") share the first one's start;
    others are alone (-1), under every policy and for given spans."""
    text = "Patients took aspirin , ibuprofen or naproxen for the pain in London ."
    doc = load_spacy()(text)
    for policy in ("nouns", "named"):
        groups = {text[s.start : s.end]: s.group for s in candidate_spans(doc, policy=policy, joins=JOINS, phrases=PHRASES)}
        assert groups["aspirin"] == groups["ibuprofen"] == groups["naproxen"] == text.index("aspirin")
        assert groups["pain"] == groups["London"] == groups["Patients"] == -1
    at = [(text.index(w), text.index(w) + len(w)) for w in ("aspirin", "naproxen", "London")]
    assert [s.group for s in given_spans(doc, at, PHRASES)] == [text.index("aspirin")] * 2 + [-1]
    assert [s.group for s in given_spans(doc, at[::2], PHRASES)] == [-1, -1]  # (a group of one is no group)


def test_a_capitalised_determiner_inside_the_sentence_opens_the_name_after_it():
    """``determiners``: "The Hague", "A Perfect Circle" whole under the name policies; not a lower-case "the",
    not at the sentence's start, not before a common noun, not under ``nouns`` and not when switched off."""
    text = "They met in The Hague with A Perfect Circle , the Beatles and The band ."
    doc = load_spacy()(text)

    def spans(policy: str = "named", determiners: bool = True) -> set[str]:
        phrases = noun_phrases(determiners=determiners)
        return {text[s.start : s.end] for s in candidate_spans(doc, policy=policy, joins=JOINS, phrases=phrases)}

    assert {"The Hague", "A Perfect Circle", "Beatles"} <= spans() and {"The Hague"} <= spans("names")
    assert not any(s.startswith("the") or s.startswith("The band") for s in spans())
    assert {"Hague", "Perfect Circle"} <= spans(determiners=False)
    assert not any(s.startswith(("The", "A ")) for s in spans("nouns"))
    opening = "The Beatles met The Rolling Stones ."
    said = {opening[s.start : s.end]
            for s in candidate_spans(load_spacy()(opening), policy="named", phrases=noun_phrases(determiners=True))}
    assert {"Beatles", "The Rolling Stones"} <= said  # (the sentence's first word is capitalised anyway)


def test_the_noun_phrase_conventions_read_nothing_unless_switched_on_and_a_bad_file_is_named(tmp_path):
    """Off (``NounPhrases()``, what news and biomedical text get), no span has a descriptor or a group; a labels
    folder's own ``words/noun_phrases.yaml`` with a list that is not of labels is named in the error."""
    text = "They released the album Pork Soda , Sailing the Seas of Cheese and Frizzle Fry ."
    spans = candidate_spans(load_spacy()(text), policy="named", joins=JOINS, phrases=NAMES)
    assert spans and all(s.descriptor == "" and s.group == -1 for s in spans)
    on = candidate_spans(load_spacy()(text), policy="named", joins=JOINS, phrases=PHRASES)
    assert any(s.descriptor for s in on) and any(s.group >= 0 for s in on)  # (else "off" proves nothing)
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "noun_phrases.yaml").write_text("descriptor_tags: NN\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"noun_phrases\.yaml: 'descriptor_tags' must be a list of words"):
        noun_phrases(str(tmp_path), descriptors=True)


def test_a_word_written_with_a_hyphen_is_never_cut_by_a_span_edge():
    """``hyphens``: "support-vector networks", "Kullback-Leibler" (name-like as a whole), "gradient-based method"
    (a piece that is no noun kept with its word) whole; a spaced hyphen still cuts ("London - Paris"); off, the
    parser's pieces are cut apart."""
    text = "We ran support-vector networks , a gradient-based method and the Kullback-Leibler divergence from London - Paris ."
    doc = load_spacy()(text)

    def spans(hyphens: bool) -> dict[str, bool]:
        phrases = noun_phrases(hyphens=hyphens)
        return {text[s.start : s.end]: s.named for s in candidate_spans(doc, policy="named", joins=JOINS,
                                                                           phrases=phrases)}

    on = spans(True)
    assert on["support-vector networks"] is False and on["gradient-based method"] is False
    assert on["Kullback-Leibler"] is True and on["Kullback-Leibler divergence"] is False
    assert "London" in on and "Paris" in on and not any("London -" in s for s in on)
    off = spans(False)
    assert "vector networks" in off and "Leibler" in off and "support-vector networks" not in off


def test_a_number_the_parse_attaches_to_a_name_is_part_of_it():
    """``number_arcs``: "2012 Summer Olympics", "Eurovision Song Contest 2011", "Voyager 2" whole; a year that is
    no part of the name ("In 1999 Madonna") stays out; off (news: "Chelsea 2 Leeds 0"), numbers are cut from names."""
    text = "In 1999 Madonna sang at the 2012 Summer Olympics , the Eurovision Song Contest 2011 and near Voyager 2 ."
    doc = load_spacy()(text)

    def spans(numbers: bool) -> set[str]:
        phrases = noun_phrases(numbers=numbers)
        return {text[s.start : s.end] for s in candidate_spans(doc, policy="named", joins=JOINS, phrases=phrases)}

    assert {"2012 Summer Olympics", "Eurovision Song Contest 2011", "Voyager 2", "Madonna"} <= spans(True)
    assert not any("1999 M" in s for s in spans(True))
    assert {"Summer Olympics", "Eurovision Song Contest", "Voyager"} <= spans(False)
    assert not any(any(c.isdigit() for c in s) and " " in s for s in spans(False))
