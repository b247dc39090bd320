"""The ``repeated_names`` stage: a name tagged once in a document is tagged where the document writes it again —
within one text, and over the sentences of a gold file (``run_in_context``)."""

from __future__ import annotations

from dataclasses import replace

from uner.tagger import Entity, TaggerConfig, run_in_context, run_stages
from uner.tagger.stages.repeats import repeated_names

from ..helpers import BIO_STAGES


def _ent(text: str, part: str, type_: str, nth: int = 0, score: float = 0.5) -> Entity:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return Entity(part, start, start + len(part), type_, None, score)


def _spans(text: str, ents) -> list[tuple[str, str, float]]:
    out = []
    for e in ents:
        assert text[e.start : e.end] == e.text
        out.append((e.text, e.type, e.score))
    return out


def test_an_untagged_mention_takes_the_nearest_tagged_one_before_it():
    """The third "dobutamine" copies the second (the nearest before it), the first "CsA" copies the only tagged one
    (after it); a tagged mention keeps its own type; "CsA" inside "CsA-treated" is no mention."""
    text = "CsA and dobutamine ; dobutamine then CsA ; dobutamine rose in CsA-treated rats ; dobutamine"
    ents = [_ent(text, "dobutamine", "DRUG", 0, 0.4), _ent(text, "dobutamine", "DRUG", 1, 0.9),
            _ent(text, "CsA", "DRUG", 1, 0.7), _ent(text, "dobutamine", "GENE", 3, 0.2)]
    out = repeated_names(text, ents, words=_words())
    assert _spans(text, out) == [("CsA", "DRUG", 0.7), ("dobutamine", "DRUG", 0.4), ("dobutamine", "DRUG", 0.9),
                                 ("CsA", "DRUG", 0.7), ("dobutamine", "DRUG", 0.9), ("dobutamine", "GENE", 0.2)]
    assert [e.start for e in out] == sorted(e.start for e in out)
    assert all(a is b for a, b in zip([out[1], out[2], out[3], out[5]], ents))  # (the tagger's own, unchanged)


def test_no_mention_inside_an_entity_and_no_common_word_or_other_type_looked_for():
    """A mention inside a kept entity stays as tagged ("heart failure" in "congestive heart failure"); common words
    that the domain's tagger now and then calls a name ("acute": tagged in 11 % of its corpus occurrences), strings
    without a letter ("5") and the types not listed ("patients") are not looked for."""
    text = "acute heart failure ( 5 patients ) ; acute congestive heart failure in 5 patients ; heart failure"
    ents = [_ent(text, "acute", "DISEASE"), _ent(text, "heart failure", "DISEASE"), _ent(text, "5", "DRUG"),
            _ent(text, "patients", "PERSON"), _ent(text, "congestive heart failure", "DISEASE", score=0.8)]
    ents.sort(key=lambda e: e.start)
    out = repeated_names(text, ents, words=_words())
    assert _spans(text, out) == _spans(text, ents) + [("heart failure", "DISEASE", 0.5)]


def test_a_longer_name_is_found_before_a_shorter_one_inside_it():
    """"IL-2 receptor" is added whole where it comes again, not cut to the "IL-2" it holds; the copy names only this
    stage (not the stages that made its source) and has no descriptors of its own."""
    text = "IL-2 binds ; IL-2 receptor alpha chain ; then IL-2 receptor was seen with IL-2"
    ents = [_ent(text, "IL-2", "GENE"),
            replace(_ent(text, "IL-2 receptor", "GENE", score=0.9), descriptors=["receptor"], stages=("lexicon",))]
    out = run_stages(text, ents, ["repeated_names"])
    assert _spans(text, out) == [("IL-2", "GENE", 0.5), ("IL-2 receptor", "GENE", 0.9),
                                 ("IL-2 receptor", "GENE", 0.9), ("IL-2", "GENE", 0.5)]
    assert [(e.stages, e.descriptors) for e in out[2:]] == [(("repeated_names",), None)] * 2


def test_the_biomedical_domain_runs_it_last_and_names_it_on_what_it_adds():
    assert BIO_STAGES == TaggerConfig.for_domain("biomedical").stages and BIO_STAGES[-1] == "repeated_names"
    text = "Vigabatrin was given . Seizures stopped after vigabatrin , and vigabatrin was well tolerated ."
    out = run_stages(text, [_ent(text, "vigabatrin", "DRUG", 0)], BIO_STAGES)
    found = [(e.text, e.type, e.stages) for e in out if e.kept and e.text.lower() == "vigabatrin"]
    assert found == [("vigabatrin", "DRUG", ()), ("vigabatrin", "DRUG", ("repeated_names",))]


SENTENCES = ["Rats were given sirolimus daily .", "Then sirolimus was stopped .", "Sirolimus levels fell ; sirolimus "
             "was restarted ."]


def _in_context(context: int, starts=frozenset()) -> list[list[tuple[str, str, str]]]:
    given = [[_ent(SENTENCES[0], "sirolimus", "DRUG")], [], []]
    out = run_in_context(SENTENCES, given, ("repeated_names",), None, context, starts)
    return [[(text[e.start : e.end], e.text, e.type) for e in ents] for text, ents in zip(SENTENCES, out)]


def test_a_name_tagged_in_one_sentence_is_found_in_the_next_ones_of_its_document():
    """A file of sentences: "sirolimus" tagged in the first is added in the second and third, at offsets into their
    own texts (case and all: "Sirolimus" is another string) — from ``context`` sentences back, within one document;
    a name found again travels on from there."""
    first = [("sirolimus", "sirolimus", "DRUG")]
    assert _in_context(20) == [first, first, first]
    assert _in_context(1) == [first, first, first]  # (the second carries it on: it is tagged there now)
    assert _in_context(0) == [first, [], []]
    assert _in_context(20, starts={1}) == [first, [], []]  # (a new document)


def test_a_later_sentence_copies_the_nearest_earlier_mention():
    """"sirolimus" tagged a drug in the first sentence and (wrongly) a gene in the second: the third copies the
    second, its nearest mention."""
    given = [[_ent(SENTENCES[0], "sirolimus", "DRUG")], [_ent(SENTENCES[1], "sirolimus", "GENE")], []]
    *_, last = run_in_context(SENTENCES, given, ("repeated_names",), None, 20)
    assert [(e.text, e.type) for e in last] == [("sirolimus", "GENE")]


def _words():
    from uner.tagger.stages.registry import shipped
    from uner.tagger.stages.repeats import RepeatWords

    return shipped(RepeatWords)


def test_the_biomedical_student_finds_a_drug_again_in_the_next_sentences():
    """End to end with the shipped student: it tags "mangiferin" after "analogs of" and misses it where the
    sentence says little of it; read as one document, the later sentences have it, typed as the first."""
    from uner.tagger import Student

    texts = ["We examined analogs of mangiferin .", "Thus mangiferin acts on both receptors .",
             "In summary , mangiferin causes acute declines in renal function ."]
    student = Student.from_pretrained("uner-student-bio")
    alone = list(student.tag(texts))
    assert [[e.text for e in ents if e.kept and e.text == "mangiferin"] for ents in alone] == [["mangiferin"], [], []]
    out = run_in_context(texts, alone, student.stages, student.stage_folder, 20)
    found = [[(e.type, e.stages) for e in ents if e.kept and e.text == "mangiferin"] for ents in out]
    assert found == [[("DRUG", ())], [("DRUG", ("repeated_names",))], [("DRUG", ("repeated_names",))]]
