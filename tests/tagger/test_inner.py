"""Inner names (uner.tagger.inner): a container candidate ("lithium therapy") gives way to the name inside it."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.helpers import uner
from uner.labels import LabelsFolder
from uner.spans import Span
from uner.tagger import Entity, TaggerConfig, load_tagger
from uner.tagger.inner import InnerNames
from uner.vocab.phrase_counts import PhraseCounts

# "therapy" follows many words and stands alone; "lithium" is mostly without it; "heart failure" is one phrase
CORPUS = (["The therapy was stopped ."] * 30 + ["Lithium was given ."] * 10 + ["Lithium therapy helped ."]
          + ["Patients with heart failure were treated ."] * 12 + ["Insulin therapy and aspirin therapy ."] * 4)
CONTAINERS = frozenset({"THERAPEUTIC_OR_PREVENTIVE_PROCEDURE", "ORGANIZATION", "MEASURE"})
NAME_TAGS = frozenset({"NN", "NNP"})


@pytest.fixture(scope="module")
def inner() -> InnerNames:
    return InnerNames(PhraseCounts.mine(CORPUS, max_n=4, min_count=1), max_tie=0.2, min_head_count=5,
                      containers=CONTAINERS, name_tags=NAME_TAGS)


def span(text: str, part: str) -> Span:
    start = text.index(part)
    return Span(start, start + len(part), 0, len(text))


def tags(text: str, adjectives: tuple[str, ...] = ()) -> dict[int, str]:
    """Each word's tag by its end offset: NN, or JJ for ``adjectives``."""
    out, pos = {}, 0
    for word in text.split():
        pos = text.index(word, pos) + len(word)
        out[pos] = "JJ" if word in adjectives else "NN"
    return out


def entity(type_: str, subtype: str | None = None) -> Entity:
    return Entity("", 0, 0, type_, subtype, 0.5)


def test_a_container_loses_its_loosely_held_head(inner):
    text = "He stopped lithium therapy ."
    rest = inner.rest(text, span(text, "lithium therapy"), entity("DRUG", "THERAPEUTIC_OR_PREVENTIVE_PROCEDURE"),
                      tags(text))
    assert rest is not None and text[rest.start : rest.end] == "lithium" and rest.head_tag == "NN"


def test_only_containers_with_a_loose_common_head_are_cut(inner):
    text = "He stopped lithium therapy after heart failure ."
    procedure, nouns = entity("DRUG", "THERAPEUTIC_OR_PREVENTIVE_PROCEDURE"), tags(text)
    assert inner.rest(text, span(text, "lithium therapy"), procedure, nouns) is not None
    assert inner.rest(text, span(text, "lithium therapy"), entity("DRUG"), nouns) is None  # a drug is no container
    assert inner.rest(text, span(text, "heart failure"), entity("ORGANIZATION"), nouns) is None  # the corpus ties them
    assert inner.rest(text, span(text, "therapy"), procedure, nouns) is None  # one word
    assert inner.rest(text, span(text, "lithium therapy"), procedure, tags(text, ("lithium",))) is None  # no noun
    rare = InnerNames(inner.counts, inner.max_tie, 100, CONTAINERS, NAME_TAGS)
    assert rare.rest(text, span(text, "lithium therapy"), procedure, nouns) is None  # "therapy" seen 39 times
    numbered = "He took IL 2 ."
    assert inner.rest(numbered, span(numbered, "IL 2"), entity("MEASURE"), tags(numbered)) is None  # a word head


def test_settings_are_read_from_the_labels_and_bad_ones_are_named(tmp_path):
    shipped = InnerNames.load()
    assert "THERAPEUTIC_OR_PREVENTIVE_PROCEDURE" in shipped.containers and "DRUG" not in shipped.containers
    assert "NN" in shipped.name_tags and "JJ" not in shipped.name_tags
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "inner_names.yaml").write_text("counts: biomedical_phrases.npz\nmax_tie: 0.05\n")
    with pytest.raises(ValueError, match=r"inner_names\.yaml: bad entry"):
        InnerNames.load(str(tmp_path))
    with pytest.raises(ValueError, match="container label.* NOT_A_LABEL"):
        InnerNames(shipped.counts, 0.05, 50, frozenset({"NOT_A_LABEL"}), NAME_TAGS).check({"DRUG"})


def test_the_step_is_on_for_the_biomedical_domain_only():
    assert TaggerConfig.for_domain("biomedical").inner_names
    assert not TaggerConfig.for_domain("general").inner_names


@pytest.fixture(scope="module")
def bio_taggers():
    """The teacher with the step on and off."""
    folder = LabelsFolder.of(None, "uner-bio")
    return [load_tagger([], model="uner-bio", config=TaggerConfig.for_labels(folder, inner_names=on))
            for on in (True, False)]


def test_the_biomedical_teacher_finds_the_drug_inside_a_therapy_and_a_group(bio_taggers):
    """With the shipped model, labels and phrase table: the drug, not the therapy or the group (the step off: the
    whole runs, typed as a procedure and an organisation); a number inside "two patients" is not put forward."""
    texts = ["Serum creatinine rose during lithium therapy in two patients .",
             "Patients in the ketoprofen group reported less pain ."]
    on, off = ([[(e.text, e.type, e.subtype) for e in ents] for ents in tagger.tag(texts)] for tagger in bio_taggers)
    assert ("lithium", "DRUG") in [t[:2] for t in on[0]] and ("ketoprofen", "DRUG") in [t[:2] for t in on[1]]
    assert ("lithium therapy", "DRUG", "THERAPEUTIC_OR_PREVENTIVE_PROCEDURE") in off[0]
    assert ("ketoprofen group", "ORGANIZATION", None) in off[1]
    assert not any(t[0] in ("two", "lithium", "ketoprofen") for doc in off for t in doc)
    assert "two" not in [t[0] for t in on[0]]
    with_rejected = next(bio_taggers[0].tag(texts[:1], rejected=True))
    assert "lithium" in [e.text for e in with_rejected if e.kept]


def test_a_rest_that_is_still_a_container_is_cut_again(bio_taggers):
    """"lithium maintenance therapy": the first cut leaves "lithium maintenance", itself a procedure, and the next
    one the drug; with the step off the whole runs."""
    text = "Effect of lithium maintenance therapy on thyroid function ."
    on, off = ([(e.text, e.type) for e in next(tagger.tag([text]))] for tagger in bio_taggers)
    assert ("lithium", "DRUG") in on and not any(t[0].startswith("lithium ") for t in on)
    assert "lithium maintenance therapy" in [t[0] for t in off]


def test_uner_tag_explains_the_step_and_given_spans_are_typed_as_given(tmp_path, bio_taggers):
    src = tmp_path / "in.txt"
    src.write_text("Serum creatinine rose during lithium therapy .\n")
    out = uner("tag", str(src), "--model", "uner-bio", "--explain")
    assert out.returncode == 0, out.stderr
    ents = {e["text"]: e for e in json.loads(out.stdout)["entities"]}
    assert ents["lithium"]["type"] == "DRUG" and ents["lithium"]["stages"] == ["inner_names"]
    text = "Serum creatinine rose during lithium therapy ."
    given = next(bio_taggers[0].tag([text], [[(29, 44)]]))
    assert [e.text for e in given] == ["lithium therapy"]


def test_a_labels_folder_naming_an_unknown_container_fails_with_its_file(tmp_path):
    labels = tmp_path / "labels"
    shutil.copytree(LabelsFolder.of(None, "uner-bio").path, labels, ignore=shutil.ignore_patterns("clusters.yaml",
                                                                                                  "summary.json"))
    (labels / "words" / "inner_names.yaml").write_text(  # (the copied folder's own, replaced)
        "counts: biomedical_phrases.npz\nmax_tie: 0.05\nmin_head_count: 50\ncontainers: [THERAPY]\nname_tags: [NN]\n")
    src = tmp_path / "in.txt"
    src.write_text("He took lithium .\n")
    out = uner("tag", str(src), "--model", "uner-bio", "--labels", str(labels))
    assert out.returncode != 0
    assert "inner_names.yaml: container label(s) THERAPY are not in the labels" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
