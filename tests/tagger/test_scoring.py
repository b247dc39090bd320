"""Span scoring options (CS/CI share, minimum score) and the tagger end to end on the shipped model."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from uner.labels import LabelsFolder
from uner.spans import Span, given_spans
from uner.tagger import PredictionCache, Tagger, TaggerConfig
from uner.tagger.config import CI_TEMPLATES

TEXT = "Barack Obama visited Paris with executives of Toyota ."
PLAIN = TaggerConfig(name_weight=0.0, name_not_entity=1.0, context_margin=0.0)  # names scored like any span, every
#                                                                                  input asked


@pytest.fixture(scope="module")
def tiny_tagger(tiny):
    return Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu")


def _spans(tagger: Tagger, text: str = TEXT) -> list[tuple[str, Span]]:
    doc = tagger.nlp(text)
    return [(text, sp) for sp in tagger.spans_for_doc(doc)]


def _votes(tagger: Tagger, **changes) -> np.ndarray:
    return _votes_of(tagger, _spans(tagger), **changes)


def _votes_of(tagger: Tagger, spans: list[tuple[str, Span]], **changes) -> np.ndarray:
    tagger.config = dataclasses.replace(PLAIN, **changes)
    return tagger.span_scores(spans).label_scores


def test_cs_weight_blends_the_context_dependent_and_independent_votes(tiny_tagger):
    cs_only, ci_only = _votes(tiny_tagger, use_ci=False), _votes(tiny_tagger, use_cs=False)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=1.0), cs_only, atol=1e-6)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=0.0), ci_only, atol=1e-6)
    np.testing.assert_allclose(_votes(tiny_tagger, cs_weight=0.25), 0.25 * cs_only + 0.75 * ci_only, atol=1e-6)
    assert not np.allclose(cs_only, ci_only)  # otherwise the blend tests above prove nothing


def test_context_margin_asks_only_open_spans_in_their_sentence(tiny_tagger):
    """A span whose short inputs lead with its top type by context_margin is typed by them alone (its CS and
    name-in-context inputs never reach the model, and show no descriptors); the others get every input."""
    spans = _spans(tiny_tagger)
    every = _votes(tiny_tagger)
    short = _votes(tiny_tagger, use_cs=False, ci_templates=tuple(CI_TEMPLATES[n] for n in ("is a", "comma", "and other")))
    margins = tiny_tagger.scorer.type_margin(short)
    assert len(spans) >= 2 and margins.min() < margins.max()  # (else the split below proves nothing)
    cut = (margins.min() + margins.max()) / 2
    sure = margins >= cut
    cache = PredictionCache()
    tiny_tagger.config = dataclasses.replace(PLAIN, context_margin=cut)
    scores = tiny_tagger.span_scores(spans, cache)
    np.testing.assert_allclose(scores.label_scores[sure], short[sure], atol=1e-6)
    np.testing.assert_allclose(scores.label_scores[~sure], every[~sure], atol=1e-6)
    asked = {key[2] for key in cache.entries}
    for k, (text, sp) in enumerate(spans):
        cs, *_, in_context = tiny_tagger.masked_inputs(text, [sp])
        assert (cs in asked, in_context in asked) == (not sure[k], not sure[k])
        assert (tiny_tagger.explain(scores.ids[k], scores.logits[k])[0] == []) == sure[k]  # (CS: no descriptors)
    with pytest.raises(ValueError, match="context_margin"):
        TaggerConfig(context_margin=1.0)


def test_min_score_drops_spans_whose_top_type_is_weak(tiny_tagger):
    tiny_tagger.config = TaggerConfig()
    scores = tiny_tagger.span_scores(_spans(tiny_tagger))
    top = (scores.label_scores @ scores.rollup).max(1)
    cut = float(np.median(top))
    tiny_tagger.config = TaggerConfig(min_score=cut)
    kept = next(tiny_tagger.tag([TEXT]))
    assert len(kept) == int((top > cut).sum()) and all(e.score > cut for e in kept)
    with pytest.raises(ValueError):
        TaggerConfig(min_score=1.0)
    with pytest.raises(ValueError):
        TaggerConfig(cs_weight=1.5)


@pytest.fixture(scope="module")
def shipped():
    return Tagger.from_pretrained(device="cpu")


@pytest.mark.parametrize("domain, text, expected", [
    ("general", TEXT, {"Barack Obama": "PERSON", "Paris": "LOCATION"}),
    ("general", "German exports to France rose in March .", {"France": "LOCATION", "March": "MEASURE"}),
    ("biomedical", "She was treated for asthma and epilepsy as a child .", {"asthma": "DISEASE", "epilepsy": "DISEASE"}),
    ("biomedical", "Aspirin is used to treat headaches and reduce fever in patients with influenza .",
     {"fever": "DISEASE", "influenza": "DISEASE"}),
])
def test_shipped_model_types_entities(shipped, domain, text, expected):
    shipped.config = TaggerConfig.for_domain(domain)
    found = {e.text: e.type for e in next(shipped.tag([text]))}
    for span, typ in expected.items():
        assert found.get(span) == typ, found


def test_general_domain_tags_names_not_role_nouns(shipped):
    shipped.config = TaggerConfig.for_domain("general")
    found = {e.text: e.type for e in next(shipped.tag([TEXT]))}
    assert "executives" not in found and found.get("Barack Obama") == "PERSON", found
    assert found.get("Toyota") == "ORGANIZATION", found  # the company, by its own labels (name votes)
    shipped.config = TaggerConfig.for_domain("general", span_policy="nouns")
    assert "executives" in {e.text for e in next(shipped.tag([TEXT]))}  # the same span, typed under "nouns"


def test_nationality_adjectives_get_the_adjective_subtype(shipped):
    shipped.config = TaggerConfig()
    found = {e.text: (e.type, e.subtype) for e in next(shipped.tag(["Officials met South Korean diplomats ."]))}
    assert found.get("South Korean") == ("LOCATION", "LOCATION_ADJECTIVE"), found


def test_ci_templates_blend_by_weight(tiny_tagger):
    a, b = "{span} is a {mask} .", "{mask} such as {span} ."
    only_a = _votes(tiny_tagger, use_cs=False, ci_templates=(a,))
    only_b = _votes(tiny_tagger, use_cs=False, ci_templates=(b,))
    both = _votes(tiny_tagger, use_cs=False, ci_templates=(a, b), ci_weights=(1.0, 3.0))
    np.testing.assert_allclose(both, 0.25 * only_a + 0.75 * only_b, atol=1e-6)
    assert not np.allclose(only_a, only_b)
    tiny_tagger.config = TaggerConfig(ci_templates=(a, b))
    assert len(tiny_tagger.masked_inputs(TEXT, [_spans(tiny_tagger)[0][1]])) == 3  # CS + one per template
    with pytest.raises(ValueError):
        TaggerConfig(ci_templates=(a, b), ci_weights=(1.0,))


def test_a_template_can_ask_about_the_span_in_its_sentence(tiny_tagger):
    """{sentence} is the span's own sentence (not the whole text), the span left in place, the mask after it."""
    text = "Obama visited Paris . Then Essex beat Kent by ten runs ."
    tiny_tagger.config = TaggerConfig(use_cs=False, ci_templates=("{sentence} ( {span} is a {mask} . )",))
    spans = dict((text[sp.start:sp.end], sp) for _, sp in _spans(tiny_tagger, text))
    mask = tiny_tagger.mlm.mask_token
    assert tiny_tagger.masked_inputs(text, [spans["Kent"]]) == [
        f"Then Essex beat Kent by ten runs . ( Kent is a {mask} . )"]
    assert tiny_tagger.masked_inputs(text, [spans["Paris"]]) == [f"Obama visited Paris . ( Paris is a {mask} . )"]
    with pytest.raises(ValueError, match=r"unknown field \{text\}"):
        TaggerConfig(ci_templates=("{text} {span} is a {mask}",))
    # a sentence longer than the model window is cropped around the span, which stays in its context
    long = "Obama visited Paris " + "and then many more words " * 400 + "."
    paris = next(sp for _, sp in _spans(tiny_tagger, long) if long[sp.start:sp.end] == "Paris")
    (cropped,) = tiny_tagger.masked_inputs(long, [paris])
    assert cropped.startswith("Obama visited Paris and then") and cropped.endswith(f"words ( Paris is a {mask} . )")
    assert tiny_tagger.mlm.count_tokens([cropped])[0] <= tiny_tagger.mlm.max_length
    # max_context_words crops every sentence-length input to that many words either side, CS and templates alike
    tiny_tagger.config = TaggerConfig(ci_templates=("{sentence} ( {span} is a {mask} . )",), max_context_words=2)
    text = "Yesterday in the old town Essex beat Kent by ten runs ."
    kent = next(sp for _, sp in _spans(tiny_tagger, text) if text[sp.start:sp.end] == "Kent")
    assert tiny_tagger.masked_inputs(text, [kent]) == [f"Essex beat {mask} by ten",
                                                       f"Essex beat Kent by ten ( Kent is a {mask} . )"]
    with pytest.raises(ValueError, match="max_context_words"):
        TaggerConfig(max_context_words=0)


def test_head_word_votes_mix_in_the_span_words_own_labels(tiny_tagger):
    spans = _spans(tiny_tagger)
    plain = _votes(tiny_tagger)
    mixed = _votes(tiny_tagger, head_weight=0.5)
    own = tiny_tagger.scorer.term_votes([TEXT[sp.start : sp.end].split()[-1] for _, sp in spans])
    has = own.sum(1) > 0
    assert has.any()
    np.testing.assert_allclose(mixed[has], 0.5 * plain[has] + 0.5 * own[has], atol=1e-6)
    np.testing.assert_allclose(mixed[~has], plain[~has], atol=1e-6)


def test_a_number_ending_a_span_casts_no_head_vote(shipped):
    """"caspase - 9": a trailing number is not the span's head (its own labels say MEASURE); a word is."""
    text = "Activation of caspase - 9 requires nuclear factor 1 and IL-2 mRNA ."
    offsets = [(text.index(s), text.index(s) + len(s)) for s in ("caspase - 9", "nuclear factor 1", "IL-2 mRNA")]
    spans = [(text, sp) for sp in given_spans(shipped.nlp(text), offsets)]
    assert (shipped.scorer.term_votes(["9", "1", "mRNA"]).sum(1) > 0).all()  # all three have labels to vote with
    plain = _votes_of(shipped, spans, head_weight=0.0)
    headed = _votes_of(shipped, spans, head_weight=0.5)
    np.testing.assert_allclose(headed[:2], plain[:2], atol=1e-6)
    assert not np.allclose(headed[2], plain[2])  # "mrna" is a head and votes


def test_common_words_head_of_names_and_person_words_do_not(shipped):
    """"Bank of England" is one name, "Keith O'Neill of Norwich City" two: the word before "of" decides."""
    assert shipped.scorer.is_common_word("Bank") and shipped.scorer.is_common_word("University")
    assert not shipped.scorer.is_common_word("Keith") and not shipped.scorer.is_common_word("O'Neill")
    shipped.config = TaggerConfig()
    text = "Keith O'Neill of Norwich City scored , the Bank of England said ."
    found = {text[s.start : s.end] for s in shipped.spans_for_doc(shipped.nlp(text))}
    assert {"Keith O'Neill", "Norwich City", "Bank of England"} <= found


def test_one_word_names_vote_as_their_own_term_and_other_counts_less_against_names(tiny_tagger):
    spans = _spans(tiny_tagger)
    words = [TEXT[sp.start : sp.end].split() for _, sp in spans]
    plain = _votes(tiny_tagger)
    own = tiny_tagger.scorer.term_votes([w[-1] for w in words])
    one_word_name = np.array([sp.named and len(w) == 1 for (_, sp), w in zip(spans, words)]) & (own.sum(1) > 0)
    assert one_word_name.any() and (~one_word_name).any()  # Paris/Toyota; Barack Obama, executives
    mixed = _votes(tiny_tagger, name_weight=0.4)
    np.testing.assert_allclose(mixed[one_word_name], 0.6 * plain[one_word_name] + 0.4 * own[one_word_name], atol=1e-6)
    np.testing.assert_allclose(mixed[~one_word_name], plain[~one_word_name], atol=1e-6)


def test_other_counts_less_against_names_than_against_common_nouns(shipped):
    text = 'Duran told Reuters that Pirelli shares rose 3 percent .'
    shipped.config = dataclasses.replace(PLAIN, span_policy="named")  # (names and common nouns)
    spans = [(text, sp) for sp in shipped.spans_for_doc(shipped.nlp(text))]
    named = np.array([sp.named for _, sp in spans])
    other = shipped.scorer.not_entity_labels
    plain = shipped.span_scores(spans).label_scores
    assert named.any() and (~named).any() and plain[np.ix_(named, other)].sum() > 0
    shipped.config = dataclasses.replace(PLAIN, name_not_entity=0.25)
    damped = shipped.span_scores(spans).label_scores
    np.testing.assert_allclose(damped[np.ix_(named, other)], 0.25 * plain[np.ix_(named, other)], atol=1e-6)
    entity_cols = np.setdiff1d(np.arange(plain.shape[1]), other)
    np.testing.assert_allclose(damped[:, entity_cols], plain[:, entity_cols], atol=1e-6)
    np.testing.assert_allclose(damped[~named], plain[~named], atol=1e-6)  # common nouns keep their OTHER votes
    # from the span's words alone (no template with its sentence), OTHER wins without the name options
    alone = dict(ci_templates=TaggerConfig().ci_templates[:3])
    shipped.config = dataclasses.replace(PLAIN, **alone)
    assert "Reuters" not in {e.text for e in next(shipped.tag([text]))}
    for config in (TaggerConfig(**alone), TaggerConfig()):  # with them, or in its sentence, a news agency
        shipped.config = config
        assert {e.text: e.type for e in next(shipped.tag([text]))}.get("Reuters") == "ORGANIZATION"
    with pytest.raises(ValueError):
        TaggerConfig(name_not_entity=1.5)


def test_shipped_labels_calibrate_organization_up(shipped):
    """The shipped calibration.yaml is loaded and lifts ORGANIZATION's share of a company's votes."""
    from uner.labels import Calibration

    weights = shipped.scorer.calibration.type_weights
    assert weights.get("ORGANIZATION", 1.0) > 1.0, weights
    shipped.config = TaggerConfig.for_domain("general")
    text = "Shares of Pirelli rose 3 percent on Monday ."
    spans = [(text, sp) for sp in shipped.spans_for_doc(shipped.nlp(text)) if text[sp.start:sp.end] == "Pirelli"]
    assert spans, "Pirelli is not a candidate span"

    def org_share() -> float:
        scores = shipped.span_scores(spans)
        return float(scores.type_row(0)[scores.type_names.index("ORGANIZATION")])

    calibrated, scorer = org_share(), shipped.scorer
    shipped.scorer = copy.copy(scorer)
    shipped.scorer.calibration = Calibration()
    try:
        assert 0.0 < org_share() < calibrated
    finally:
        shipped.scorer = scorer


def test_calibration_weights_shift_the_winning_type(tiny_tagger):
    from uner.labels import Calibration
    from uner.tagger import LabelScorer

    tiny_tagger.config = TaggerConfig(min_score=0.0)
    spans = _spans(tiny_tagger)
    scores = tiny_tagger.span_scores(spans)
    rows = scores.label_scores @ scores.rollup
    k = int(np.argmax((rows > 0).sum(1)))  # the span with the most types voted for
    assert (rows[k] > 0).sum() >= 2
    order = np.argsort(-rows[k])
    winner, runner_up = scores.type_names[order[0]], scores.type_names[order[1]]
    table, types, vocab = tiny_tagger.table, tiny_tagger.types, tiny_tagger.mlm.vocab
    tiny_tagger.scorer = LabelScorer(table, types, vocab, calibration=Calibration({winner: 1e-3, runner_up: 50.0}))
    try:
        calibrated = tiny_tagger.span_scores(spans)
        row = calibrated.type_row(k)
        assert calibrated.type_names[int(np.argmax(row))] == runner_up
        assert row.sum() == pytest.approx(float((scores.label_scores[k] @ scores.rollup).sum()), rel=1e-5)
    finally:
        tiny_tagger.scorer = LabelScorer(table, types, vocab)


def test_domains_and_their_validation():
    assert TaggerConfig.for_domain("biomedical").span_policy == "nouns"
    assert TaggerConfig.for_domain("general") == TaggerConfig()
    with pytest.raises(ValueError, match="unknown domain"):
        TaggerConfig.for_domain("legal")
    with pytest.raises(ValueError, match="span_policy"):
        TaggerConfig(span_policy="all")


def test_a_single_string_is_one_text(shipped):
    shipped.config = TaggerConfig()
    one = list(shipped.tag("Angela Merkel met Macron in Berlin ."))
    assert len(one) == 1 and "Angela Merkel" in {e.text for e in one[0]}


def test_a_dotted_abbreviation_votes_as_the_word_without_its_dots(shipped):
    """"U.S." is not in the vocabulary but "us" is: its own labels (a place) vote for it as for any one-word
    name; the CI templates alone, on the dotted form, called it an organisation ("The U.S. government")."""
    scorer = shipped.scorer
    np.testing.assert_array_equal(scorer.term_votes(["U.S.", "U.K", "u.s."]), scorer.term_votes(["us", "uk", "us"]))
    assert scorer.term_votes(["U.S.", "U.K."]).sum(1).all()
    assert not scorer.term_votes(["3.5.", "U.", "Dr."]).any()  # numbers, initials, titles: no dotted abbreviation
    shipped.config = TaggerConfig()
    text = "The U.S. government said on Tuesday it would send troops ."
    (ents,) = shipped.tag([text])
    assert [(e.text, e.type) for e in ents if e.text == "U.S."] == [("U.S.", "LOCATION")]


def test_common_types_keep_only_their_own_common_noun_spans(shipped):
    """Under ``named``, a common-noun span is kept only when typed one of ``common_types`` (a domain's lower-case
    types, ``uner adapt``); names are not affected, and the others stay as rejected candidates."""
    text = "Duran told Reuters that shares of Pirelli rose 3 percent in the steel market after the election ."
    named = dict(span_policy="named", common_min_score=0.0)
    shipped.config = dataclasses.replace(PLAIN, **named)
    every = next(shipped.tag([text]))
    common = [e for e in every if not e.named]
    assert common and any(e.named for e in every)
    kind = common[0].type
    shipped.config = dataclasses.replace(PLAIN, **named, common_types=(kind,))
    kept = next(shipped.tag([text]))
    assert {e.text for e in kept} == {e.text for e in every if e.named or e.type == kind}
    shipped.config = dataclasses.replace(PLAIN, **named, common_types=("NO_SUCH_TYPE",))
    assert {e.text for e in next(shipped.tag([text]))} == {e.text for e in every if e.named}
    with_rejected = {e.text: e.kept for e in next(shipped.tag([text], rejected=True))}
    assert all(with_rejected[e.text] is False for e in common)


def test_a_kept_compound_is_the_entity_over_the_name_inside_it(shipped):
    """A common noun that a name modifies is a compound candidate ("Pirelli shares", ``uner.spans``): kept, it is the
    entity there and the name inside it is rejected; not kept (not one of ``common_types``), the name stands."""
    text = "Duran told Reuters that Pirelli shares rose 3 percent ."
    named = dict(span_policy="named", common_min_score=0.0)
    shipped.config = dataclasses.replace(PLAIN, **named)
    ents = {e.text: e for e in next(shipped.tag([text], rejected=True))}
    assert ents["Pirelli shares"].kept and not ents["Pirelli"].kept
    assert "Pirelli" not in {e.text for e in next(shipped.tag([text]))}
    shipped.config = dataclasses.replace(PLAIN, **named, common_types=("NO_SUCH_TYPE",))
    assert {"Pirelli", "Reuters"} <= {e.text for e in next(shipped.tag([text]))}


def test_common_head_weight_types_a_common_noun_by_its_head_and_leaves_names_alone(shipped):
    """``common_head_weight``: a common-noun span's last word votes with its own labels at that weight ("shares" is
    an ordinary word, "market" an organisation's); names' votes do not change."""
    text = "Duran told Reuters that shares of Pirelli rose 3 percent in the steel market ."
    by = {}
    for weight in (0.0, 0.9):
        shipped.config = dataclasses.replace(PLAIN, span_policy="named", common_min_score=0.0,
                                             common_head_weight=weight)
        by[weight] = {e.text: e for e in next(shipped.tag([text], rejected=True))}
    assert (by[0.0]["shares"].type, by[0.9]["shares"].type) == ("ORGANIZATION", "OTHER")
    assert by[0.9]["steel market"].type == "ORGANIZATION" and by[0.9]["steel market"].score > by[0.0]["steel market"].score
    assert all(by[0.9][t].score == by[0.0][t].score and by[0.9][t].type == by[0.0][t].type
               for t in ("Duran", "Reuters", "Pirelli"))
    with pytest.raises(ValueError, match="common_head_weight"):
        TaggerConfig(common_head_weight=1.0)


def test_name_head_weight_blends_in_a_longer_names_head(tiny_tagger):
    """``name_head_weight``: a name of two words or more moves that share towards its syntactic head's own labels
    ("country" in "Country of Japan", not its last word); one-word names and names without such a head keep their
    votes, and the weight is checked."""
    text = "Obama visited the Country of Japan in Paris ."
    given = [(text.index(t), text.index(t) + len(t)) for t in ("Country of Japan", "Paris")]
    spans = [(text, sp) for sp in given_spans(tiny_tagger.nlp(text), given)]
    by = {text[sp.start : sp.end]: k for k, (_, sp) in enumerate(spans)}
    assert spans[by["Country of Japan"]][1].head == "country"
    before = _votes_of(tiny_tagger, spans)
    after = _votes_of(tiny_tagger, spans, name_head_weight=0.4)
    said = tiny_tagger.scorer.term_votes(["country"])[0]
    assert said.any() and not np.allclose(said, tiny_tagger.scorer.term_votes(["japan"])[0])  # (the last word's)
    np.testing.assert_allclose(after[by["Country of Japan"]], 0.6 * before[by["Country of Japan"]] + 0.4 * said,
                               atol=1e-6)
    np.testing.assert_allclose(after[by["Paris"]], before[by["Paris"]], atol=1e-6)
    with pytest.raises(ValueError, match="name_head_weight"):
        TaggerConfig(name_head_weight=1.0)


def test_an_adapted_folder_types_a_conference_by_its_head_and_its_short_form_like_it():
    """crossner-ai (name_head_weight 0.2, the abbreviations stage): "International Conference on Learning
    Representations" is a conference because of its head word, where its masked inputs alone make it an organisation, and
    "ICLR", defined after it, is one too wherever it stands in the text."""
    text = ("She chaired the International Conference on Learning Representations ( ICLR ) in Vienna , and ICLR "
            "grew .")
    tagger = Tagger.from_pretrained("crossner-ai", device="cpu")
    assert tagger.config.name_head_weight == 0.2 and "abbreviations" in tagger.config.stages
    found = [(e.text, e.type) for e in next(tagger.tag([text]))]
    assert ("International Conference on Learning Representations", "CONFERENCE") in found
    assert [t for s, t in found if s == "ICLR"] == ["CONFERENCE", "CONFERENCE"]
    tagger.config = dataclasses.replace(tagger.config, name_head_weight=0.0)
    without = {(e.text, e.type) for e in next(tagger.tag([text]))}
    assert ("International Conference on Learning Representations", "CONFERENCE") not in without


def test_an_adapted_folders_subtype_shares_report_its_own_subtype():
    """crossner-literature's calibration.yaml lets WRITER be reported with a hundredth of PERSON's votes (fitted on
    its dev split): a writer's name is a writer there, and a plain person under the tagger's own share (0.1). (Its
    teacher, uner-mpnet-base, names Walter Scott a writer even so; Mary Shelley in a sentence about a visit it
    does not.)"""
    text = "Her friend Mary Shelley visited Geneva that summer ."

    def shelley(calibrate: bool) -> tuple[str, str | None]:
        tagger = Tagger.from_pretrained("crossner-literature", device="cpu", calibrate=calibrate)
        return {e.text: (e.type, e.subtype) for e in next(tagger.tag(text))}["Mary Shelley"]

    assert shelley(False) == ("PERSON", None)
    assert shelley(True) == ("PERSON", "WRITER")


def test_descriptor_weight_blends_in_the_common_noun_before_a_name(tiny_tagger):
    """``descriptor_weight``: a name's votes move that share towards its descriptor's own labels ("city" in "the city
    Rome"); a span without a descriptor keeps its votes."""
    text = "Obama visited the city Rome with Paris Hilton ."
    tiny_tagger.config = dataclasses.replace(PLAIN, descriptor_weight=0.4)  # (its spans read their descriptors)
    spans = [(text, sp) for sp in tiny_tagger.spans_for_doc(tiny_tagger.nlp(text))]
    by = {text[sp.start : sp.end]: k for k, (_, sp) in enumerate(spans)}
    assert spans[by["Rome"]][1].descriptor == "city" and spans[by["Paris Hilton"]][1].descriptor == ""
    before, after = _votes_of(tiny_tagger, spans), _votes_of(tiny_tagger, spans, descriptor_weight=0.4)
    said = tiny_tagger.scorer.term_votes(["city"])[0]
    assert said.any() and not np.allclose(said, before[by["Rome"]])  # (else the blend proves nothing)
    np.testing.assert_allclose(after[by["Rome"]], 0.6 * before[by["Rome"]] + 0.4 * said, atol=1e-6)
    np.testing.assert_allclose(after[by["Paris Hilton"]], before[by["Paris Hilton"]], atol=1e-6)


def test_coordination_weight_pools_the_votes_of_coordinated_spans(tiny_tagger):
    """``coordination_weight``: each span of a coordination ("Berlin , Madrid and Rome") moves that share towards
    the group's mean votes; a span outside it keeps its own."""
    text = "He visited Berlin , Madrid and Rome with Paris Hilton ."
    tiny_tagger.config = dataclasses.replace(PLAIN, coordination_weight=0.5)  # (its spans read their coordinations)
    spans = [(text, sp) for sp in tiny_tagger.spans_for_doc(tiny_tagger.nlp(text))]
    group = [k for k, (_, sp) in enumerate(spans) if sp.group >= 0]
    alone = [k for k, (_, sp) in enumerate(spans) if sp.group < 0]
    assert len(group) == 3 and alone
    before, after = _votes_of(tiny_tagger, spans), _votes_of(tiny_tagger, spans, coordination_weight=0.5)
    assert not np.allclose(before[group[0]], before[group[1]])  # (else pooling proves nothing)
    np.testing.assert_allclose(after[group], 0.5 * before[group] + 0.5 * before[group].mean(0), atol=1e-6)
    np.testing.assert_allclose(after[alone], before[alone], atol=1e-6)
    with pytest.raises(ValueError, match="coordination_weight"):
        TaggerConfig(coordination_weight=1.0)


def test_a_types_calibrated_minimum_keeps_found_spans_out_but_types_a_given_one(tmp_path):
    """uner-bio with its labels, a drug's minimum raised to 0.99: "aspirin" found in the text is no entity, the same
    span given by the caller is still typed a drug (the minimums decide which candidates are kept). No stages: the
    lexicon stage would add the drug back."""
    import shutil

    from uner.labels import Calibration

    labels = tmp_path / "uner-bio"
    shutil.copytree(LabelsFolder.of(None, "uner-bio").path, labels)
    text = "Patients took aspirin daily ."
    span = (text.index("aspirin"), text.index("aspirin") + len("aspirin"))
    for minimum, found in ((0.0, True), (0.99, False)):
        Calibration({}, {"DRUG": minimum}).save(labels / "calibration.yaml")
        tagger = Tagger.from_pretrained("uner-bio", labels,
                                        config=TaggerConfig.for_labels(LabelsFolder(labels), stages=()))
        assert ("aspirin" in {e.text for e in next(tagger.tag([text]))}) is found
        [given] = next(tagger.tag([text], [[span]]))
        assert (given.text, given.type) == ("aspirin", "DRUG")
