"""The scorer on hand-built gold/prediction pairs, the readers, and an end-to-end eval run."""

from __future__ import annotations

from pathlib import Path

import pytest

from uner.analysis.evaluate import (MAPPINGS_DIR, Mapping, detokenize, entities, read_gold, span_errors, strict_f1,
                                   to_iob2, token_f1_by_type)


def test_entities_are_strict_iob2_chunks():
    assert entities(["B-PER", "I-PER", "O", "B-LOC"]) == {("PER", 0, 2), ("LOC", 3, 4)}
    assert entities(["I-PER", "I-PER"]) == {("PER", 0, 2)}  # a stray I- starts an entity
    assert entities(["B-PER", "I-LOC"]) == {("PER", 0, 1), ("LOC", 1, 2)}
    assert entities(["B-PER", "B-PER"]) == {("PER", 0, 1), ("PER", 1, 2)}


def test_iob1_to_iob2():
    assert to_iob2(["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG"]) == ["B-PER", "I-PER", "O", "B-LOC", "B-LOC", "B-ORG"]
    assert to_iob2(["B-PER", "I-PER"]) == ["B-PER", "I-PER"]


def test_exact_match_is_perfect():
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG"]]
    micro, per = strict_f1(gold, gold)
    assert (micro.precision, micro.recall, micro.f1, micro.support) == (1.0, 1.0, 1.0, 3)
    assert set(per) == {"PER", "LOC", "ORG"}


def test_boundary_and_type_errors():
    gold = [["B-PER", "I-PER", "O", "B-LOC", "O"]]
    # boundary error on PER (only "B-PER"), type error on LOC (predicted ORG), one spurious MISC
    pred = [["B-PER", "O", "O", "B-ORG", "B-MISC"]]
    micro, per = strict_f1(gold, pred)
    assert micro.precision == 0 and micro.recall == 0 and micro.f1 == 0
    # one of two gold entities right, one of three predictions right: P 1/3, R 1/2, F1 0.4
    pred = [["B-PER", "I-PER", "O", "B-ORG", "B-MISC"]]
    micro, per = strict_f1(gold, pred)
    assert micro.precision == pytest.approx(1 / 3) and micro.recall == pytest.approx(0.5)
    assert micro.f1 == pytest.approx(0.4)
    assert per["PER"].f1 == 1.0 and per["LOC"].recall == 0.0 and per["ORG"].precision == 0.0


def test_span_error_classes():
    # "severe heart failure" predicted for "heart failure" (wider), "5 - FU" found as "FU" (narrower), a drug
    # missed, a name crossing an edge (shifted), one exact span of the wrong type, one right, one spurious
    gold = [["O", "B-D", "I-D", "O", "B-C", "I-C", "I-C", "O", "B-C"],
            ["B-P", "I-P", "O", "B-L", "O", "B-O", "O"]]
    pred = [["B-D", "I-D", "I-D", "O", "O", "O", "B-C", "O", "O"],
            ["O", "B-P", "I-P", "B-O", "O", "B-O", "B-C"]]
    assert span_errors(gold, pred) == {"correct": 1, "wrong_type": 1, "wider": 1, "narrower": 1, "shifted": 1,
                                       "missed": 1, "spurious": 1}


def test_iob1_input_scores_like_its_iob2_form(tmp_path):
    f = tmp_path / "iob1.tsv"
    f.write_text("John\tI-PER\nSmith\tI-PER\nin\tO\nParis\tI-LOC\n\ufeff\nBerlin\tI-LOC\nRome\tB-LOC\n")
    sents = list(read_gold(f))
    assert [s.tags for s in sents] == [["B-PER", "I-PER", "O", "B-LOC"], ["B-LOC", "B-LOC"]]
    micro, _ = strict_f1([s.tags for s in sents], [["B-PER", "I-PER", "O", "B-LOC"], ["B-LOC", "O"]])
    assert micro.recall == pytest.approx(3 / 4) and micro.precision == 1.0


def test_conll_four_columns(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n")
    assert [(s.tokens, s.tags) for s in read_gold(f)] == [(["EU", "rejects"], ["B-ORG", "O"])]


def test_given_spans_token_f1_by_hand():
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["B-LOC", "O"]]
    pred = [["B-PER", "I-PER", "O", "B-PER"], ["B-LOC", "O"]]
    mean, per = token_f1_by_type(gold, pred)
    # PER: tp 2, predicted 3, gold 2 -> P 2/3, R 1, F1 0.8; LOC: tp 1, predicted 1, gold 2 -> P 1, R 1/2, F1 2/3
    assert per["PER"].f1 == pytest.approx(0.8)
    assert per["LOC"].f1 == pytest.approx(2 / 3)
    assert mean == pytest.approx((0.8 + 2 / 3) / 2)


def test_mapping_by_file_name_and_subtypes(tmp_path):
    m = Mapping.for_file("/somewhere/conll2003/valid.txt")
    assert m("PERSON") == "PER" and m("LOCATION", "LOCATION_ADJECTIVE") == "MISC" and m("DISEASE") == "O"
    bc = Mapping.for_file("/x/bc5cdr/devel.tsv")
    assert bc("DRUG", "VITAMIN") == "Chemical" and bc("DRUG", "LAB_PROCEDURE") == "O"
    with pytest.raises(ValueError, match="no mapping found"):
        Mapping.for_file(tmp_path / "mystery.tsv")


def test_a_mapping_is_named_by_its_file_or_its_name_as_the_hint_lists_them(tmp_path):
    """Issue 76: the hint listed "conll2003" among the mappings found, and ``--mapping conll2003`` was no such file."""
    assert Mapping.named("conll2003")("PERSON") == "PER"
    assert Mapping.named(MAPPINGS_DIR / "bc5cdr.yaml")("DRUG", "VITAMIN") == "Chemical"
    with pytest.raises(ValueError, match="no mapping found") as hint:
        Mapping.for_file(tmp_path / "mystery.tsv")
    names = str(hint.value).rsplit("one of ", 1)[1].split(", ")
    assert "conll2003" in names and all(Mapping.named(name).labels for name in names)
    with pytest.raises(ValueError, match=r"--mapping conll: no such file, and no mapping of that name \(one of bc2gm"):
        Mapping.named("conll")


def test_uner_eval_refuses_what_is_not_a_gold_file_at_once(tmp_path):
    """Issue 76: prose was scored as "1 sentences" with invented types, an empty file as "0 sentences", both exit 0.
    Now one line and exit 2, before any model loads; a gold file with ``--mapping conll2003`` is scored."""
    from typer.testing import CliRunner

    from uner.cli import app

    prose, empty, gold = tmp_path / "prose.txt", tmp_path / "empty.tsv", tmp_path / "gold.tsv"
    prose.write_text("The patients were treated and went home after the visit.\nAnother line of prose.\n")
    empty.write_text("")
    gold.write_text("Barack\tB-PER\nObama\tI-PER\nvisited\tO\nParis\tB-LOC\n.\tO\n\n")
    for path, message in ((prose, f"{prose}:1: expected a token and its tag (O, B-TYPE or I-TYPE): not a gold file"),
                          (empty, f"{empty}: no sentence; a gold file has a token and its tag on each line")):
        res = CliRunner().invoke(app, ["eval", str(path), "--mapping", "conll2003", "--engine", "student"])
        assert res.exit_code == 2 and res.stderr.startswith("uner: error: " + message) and res.stderr.count("\n") == 1
    res = CliRunner().invoke(app, ["eval", str(gold), "--mapping", "conll2003", "--engine", "student", "--mode",
                                   "end-to-end"])
    assert res.exit_code == 0 and "1 sentences, 2 gold entities" in res.stdout


def test_a_labels_folder_maps_its_own_types_onto_the_datasets_it_names(tmp_path):
    """An adapted folder's mapping (``mappings/*.yaml`` with ``datasets`` path fragments) is found first for the
    files it names; other files still get the shipped mapping; a bad entry names the file."""
    own = tmp_path / "labels" / "mappings"
    own.mkdir(parents=True)
    (own / "crossner-ai.yaml").write_text("datasets: [crossner/ai/]\nmap:\n  ALGORITHM: algorithm\n")
    m = Mapping.for_file(tmp_path / "data" / "crossner" / "ai" / "dev.txt", [own])
    assert m("ALGORITHM") == "algorithm" and m.datasets == ("crossner/ai/",)
    assert Mapping.for_file("/x/conll2003/valid.txt", [own])("PERSON") == "PER"
    with pytest.raises(ValueError, match="no mapping found"):
        Mapping.for_file(tmp_path / "data" / "crossner" / "music" / "dev.txt", [own])
    (own / "crossner-ai.yaml").write_text("datasets: crossner/ai/\nmap:\n  ALGORITHM: algorithm\n")
    with pytest.raises(ValueError, match=r"crossner-ai\.yaml: 'datasets' must be a list"):
        Mapping.for_file(tmp_path / "data" / "crossner" / "ai" / "dev.txt", [own])


@pytest.mark.parametrize("model", ["crossner-ai", str(Path("labels/crossner-ai").resolve())])
def test_uner_eval_takes_an_adapted_folder_as_the_model_with_its_own_mapping(tmp_path, model):
    """``uner eval <crossner ai file> --model crossner-ai`` and nothing else: the shipped adapted folder's labels,
    settings and mapping, and the model its tagger.yaml names (uner-mpnet-base)."""
    from tests.helpers import uner

    gold = tmp_path / "crossner" / "ai" / "dev.txt"
    gold.parent.mkdir(parents=True)
    rows = [("Geoffrey", "B-researcher"), ("Hinton", "I-researcher"), ("studied", "O"), ("at", "O"),
            ("the", "O"), ("University", "B-university"), ("of", "I-university"), ("Edinburgh", "I-university"),
            (".", "O")]
    gold.write_text("".join(f"{w}\t{t}\n" for w, t in rows) + "\n")
    out = uner("eval", str(gold), "--model", model, "--mode", "end-to-end")
    assert out.returncode == 0, out.stderr
    assert "researcher" in out.stdout and "university" in out.stdout
    missing = uner("eval", str(gold), "--model", "no-such-model-or-folder", "--mapping",
                   "labels/crossner-ai/mappings/crossner-ai.yaml")
    assert missing.returncode == 2 and "no-such-model-or-folder" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


def test_an_adapted_folders_student_is_scored_with_the_folders_mapping(tmp_path):
    """An adapted folder once distilled (its ``student/``): ``uner eval`` tags with the student by default, as ``uner
    tag`` does, and maps its types with the folder's own mapping (here the shipped general student stands in)."""
    import shutil

    from tests.helpers import uner
    from uner.paths import student_dir

    folder = tmp_path / "crossner-ai"
    shutil.copytree(Path("labels/crossner-ai").resolve(), folder)
    shutil.copytree(student_dir(), folder / "student")
    gold = tmp_path / "crossner" / "ai" / "dev.txt"
    gold.parent.mkdir(parents=True)
    rows = [("Geoffrey", "B-person"), ("Hinton", "I-person"), ("moved", "O"), ("to", "O"), ("Toronto", "B-location"),
            (".", "O")]
    gold.write_text("".join(f"{w}\t{t}\n" for w, t in rows) + "\n")
    out = uner("eval", str(gold), "--model", str(folder), "--mode", "end-to-end")
    assert out.returncode == 0, out.stderr
    assert "stages: person_titles,sports_teams" in out.stdout  # (the student's own: the general domain's)
    assert "F1 1.000" in out.stdout.splitlines()[2]  # PERSON -> person, LOCATION -> location: the folder's mapping

def test_detokenize_offsets():
    text, offs = detokenize(["New", "York", "."])
    assert text == "New York ." and [text[a:b] for a, b in offs] == ["New", "York", "."]




def test_eval_cli(tmp_path, tiny):

    gold = tmp_path / "conll2003_sample.txt"
    gold.write_text("Barack NNP B-NP B-PER\nObama NNP I-NP I-PER\nvisited VBD B-VP O\nParis NNP B-NP B-LOC\n. . O O\n")
    mapping = tmp_path / "m.yaml"
    mapping.write_text("map:\n  PERSON: PER\n  LOCATION: LOC\n")
    from tests.helpers import uner

    res = uner("eval", str(gold), "--mapping", str(mapping), "--model", str(tiny[0]), "--labels", str(tiny[1]),
               "--errors", str(tmp_path / "err.jsonl"), "--report", str(tmp_path / "r.json"))
    assert res.returncode == 0, res.stderr
    import json

    report = json.loads((tmp_path / "r.json").read_text())
    assert report["sentences"] == 1 and report["gold_entities"] == 2
    conf = report["given_spans"]["confusion"]
    assert sum(conf.values()) == 2 and all(k.split(" -> ")[1] in ("PER", "LOC") for k in conf)
    assert 0 <= report["end_to_end"]["micro"]["f1"] <= 1
    # an ensemble of the same model twice votes exactly like the model alone
    both = uner("eval", str(gold), "--mapping", str(mapping), "--model", str(tiny[0]), "--labels", str(tiny[1]),
                "--ensemble", f"{tiny[0]}:{tiny[1]}", "--report", str(tmp_path / "r2.json"))
    assert both.returncode == 0, both.stderr
    twice = json.loads((tmp_path / "r2.json").read_text())
    assert twice["given_spans"] == report["given_spans"] and twice["end_to_end"] == report["end_to_end"]


def test_eval_takes_the_labels_folders_own_settings(tmp_path, tiny):
    """A labels folder with a tagger.yaml (uner adapt's folders, uner-bio) is scored with its own settings; without
    one, with the mapping's domain; --domain wins over both."""
    import json
    import shutil

    from tests.helpers import uner

    gold = tmp_path / "conll2003_sample.txt"
    gold.write_text("Barack NNP B-NP B-PER\nObama NNP I-NP I-PER\nvisited VBD B-VP O\nParis NNP B-NP B-LOC\n. . O O\n")
    mapping = tmp_path / "m.yaml"
    mapping.write_text("map:\n  PERSON: PER\n  LOCATION: LOC\n")
    labels = Path(shutil.copytree(tiny[1], tmp_path / "labels"))

    def predicted(*extra: str) -> int:
        """How many entities the tagger found (an exact match leaves no error record: the two gold ones)."""
        errors = tmp_path / "errors.jsonl"
        res = uner("eval", str(gold), "--mapping", str(mapping), "--model", str(tiny[0]), "--labels", str(labels),
                   "--mode", "end-to-end", "--errors", str(errors), *extra)
        assert res.returncode == 0, res.stderr
        records = [json.loads(line) for line in errors.read_text().splitlines()]
        return sum(len(r["predicted"]) for r in records) if records else 2

    before = predicted()
    assert before > 0
    (labels / "tagger.yaml").write_text("domain: general\nsettings:\n  min_score: 0.98\n")
    assert predicted() == 0  # no span's top type holds 98 % of the votes
    assert predicted("--domain", "general") == before


def test_uner_tag_takes_an_adapted_folder_as_the_model(tmp_path):
    """``uner tag --model crossner-ai`` (with its worker processes too): the adapted folder's own types come out
    (RESEARCHER is not a type of the shipped labels), and the same file with ``--labels`` given explicitly."""
    import json

    from tests.helpers import uner

    inp = tmp_path / "in.txt"
    inp.write_text("Geoffrey Hinton studied at the University of Edinburgh .\n")
    outs = {}
    for name, args in {"named": ["--model", "crossner-ai"], "workers": ["--model", "crossner-ai", "--workers", "2"],
                       "explicit": ["--labels", "labels/crossner-ai"]}.items():
        outs[name] = tmp_path / f"{name}.jsonl"
        res = uner("tag", str(inp), "-o", str(outs[name]), *args)
        assert res.returncode == 0, res.stderr
    ents = {name: json.loads(out.read_text())["entities"] for name, out in outs.items()}
    assert ("Geoffrey Hinton", "RESEARCHER") in {(e["text"], e["subtype"]) for e in ents["named"]}
    # the same entities; scores alike to bf16's rounding (on a CPU with AMX its sums depend on the thread count)
    spans = {name: [(e["text"], e["start"], e["end"], e["type"], e["subtype"]) for e in found]
             for name, found in ents.items()}
    assert spans["workers"] == spans["named"] == spans["explicit"]
    for found in (ents["workers"], ents["explicit"]):
        assert [e["score"] for e in found] == pytest.approx([e["score"] for e in ents["named"]], abs=0.005)


def test_a_datasets_annotation_convention_is_its_mappings_stages_run_after_the_engines(tmp_path):
    """Issue 77: JNLPBA's DNA / cell-line split (``head_subtypes``, ``named_lines``) is no stage of the biomedical
    domain; ``uner eval`` runs the mapping's stages after the engine's own and prints the list, which ``--stages``
    replaces; a mapping naming an unknown stage fails naming its file. With the shipped biomedical student."""
    from typer.testing import CliRunner

    from tests.helpers import STUDENT_BIO_STAGES
    from uner.cli import app

    gold = tmp_path / "jnlpba" / "devel.tsv"
    gold.parent.mkdir()
    gold.write_text("The\tO\nhuman\tB-DNA\nbeta-globin\tI-DNA\ngene\tI-DNA\nwas\tO\nused\tO\n.\tO\n\n")
    run = ["eval", str(gold), "--model", "uner-bio", "--mode", "end-to-end"]
    res = CliRunner().invoke(app, run)
    listed = ",".join((*STUDENT_BIO_STAGES, "head_subtypes", "named_lines"))
    assert res.exit_code == 0 and f"  stages: {listed}\n" in res.stdout and "F1 1.000" in res.stdout
    res = CliRunner().invoke(app, [*run, "--stages", ",".join(STUDENT_BIO_STAGES)])
    assert res.exit_code == 0 and f"  stages: {','.join(STUDENT_BIO_STAGES)}\n" in res.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("map:\n  GENE: protein\nstages: [head_subtypes, no_such_stage]\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: stages: unknown stage 'no_such_stage'"):
        Mapping.load(bad)
