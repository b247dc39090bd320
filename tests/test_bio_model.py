"""The shipped biomedical model (issue 18): its extended vocabulary, the default domain its labels carry, and
tagging biomedical text alone and in an ensemble with the general model, through the real CLI."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from tests.helpers import uner
from uner.labels import LabelsFolder
from uner.models import resolve_model
from uner.paths import embedded_models

pytestmark = pytest.mark.skipif("uner-bio" not in embedded_models(), reason="models/uner-bio is not shipped here")

BIO = "Cisplatin caused nephrotoxicity in patients with ovarian carcinoma .\n"


def _entities(stdout: str) -> list[dict[str, str]]:
    return [{e["text"]: e["type"] for e in json.loads(line)["entities"]} for line in stdout.splitlines()]


def test_bio_vocabulary_keeps_domain_words_whole():
    bio, general = (AutoTokenizer.from_pretrained(resolve_model(m)) for m in ("uner-bio", "uner-minilm-l6"))
    assert len(bio) > len(general) and bio.convert_ids_to_tokens(list(range(len(general)))) == \
        general.convert_ids_to_tokens(list(range(len(general))))  # old ids unchanged
    for word in ("cisplatin", "lymphocytes", "interleukin", "carcinoma", "nephrotoxicity"):
        assert bio.tokenize(word) == [word] and len(general.tokenize(word)) >= 3


def test_uner_tag_model_uner_bio_reads_biomedical_text():
    assert LabelsFolder.for_model("uner-bio").default_domain() == "biomedical"
    res = uner("tag", "-", "--model", "uner-bio", "--engine", "teacher", stdin=BIO)
    assert res.returncode == 0, res.stderr
    ents = _entities(res.stdout)[0]
    assert ents.get("Cisplatin") == "DRUG" and ents.get("nephrotoxicity") == "DISEASE"
    assert ents.get("ovarian carcinoma") == "DISEASE"
    named = _entities(uner("tag", "-", "--model", "uner-bio", "--domain", "general", stdin=BIO).stdout)[0]
    assert "nephrotoxicity" not in named  # the general span policy skips lower-case words: the default mattered


def test_ensemble_of_general_and_bio_models_tags_mixed_text():
    text = "Barack Obama visited Paris .\n" + BIO
    res = uner("tag", "-", "--ensemble", "uner-bio", "--domain", "biomedical", stdin=text)
    assert res.returncode == 0, res.stderr
    people, bio = _entities(res.stdout)
    assert people.get("Barack Obama") == "PERSON" and people.get("Paris") == "LOCATION"
    assert bio.get("Cisplatin") == "DRUG" and bio.get("nephrotoxicity") == "DISEASE"


def test_short_codes_vote_with_their_biomedical_meaning():
    """The general seeds make "IL", "NA", "MG", "ER" places; the uner-bio labels give them what they mean in
    abstracts (labels/uner-bio/REVIEW.md, pass 5), and a code without such a meaning stays a place."""
    res = uner("labels", "show", "--labels", str(LabelsFolder.for_model("uner-bio").path), "--model", "uner-bio",
               "il", "er", "na", "mg", "ny")
    assert res.returncode == 0, res.stderr
    votes, term = {}, None
    for line in res.stdout.splitlines():
        if not line.startswith(" "):
            term = line.split(":")[0]
        elif line.startswith("  votes as:"):
            votes[term] = line.split()[2]  # the type it votes most for
    assert votes == {"il": "GENE", "er": "GENE", "na": "DRUG", "mg": "MEASURE", "ny": "LOCATION"}


def test_uner_bio_types_interleukin_and_receptor_codes_as_genes():
    res = uner("tag", "-", "--model", "uner-bio", "--engine", "teacher",
               stdin="IL - 2 and IFN - gamma were measured in ER - positive patients .\n")
    assert res.returncode == 0, res.stderr
    ents = _entities(res.stdout)[0]
    assert ents.get("IL - 2") == "GENE" and ents.get("ER") == "GENE"  # both LOCATION with the place seeds
