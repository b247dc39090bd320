"""`uner adapt` end to end on the shipped model: a person's types merged into a copy of the labels, the types the
corpus writes in lower case found, the label table compiled with their seeds, the corpus's descriptors and tagged
records written for the page; a second run does nothing, and an interrupted descriptor pass continues to the same
file."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.helpers import uner

SAMPLE = Path(__file__).resolve().parents[1] / "examples/sample.txt"
TYPES = """\
ALBUM:
  parent: ENT
  seeds: [album, thriller]
ALGORITHM: [algorithm, backpropagation]
"""


# the person's own corpus beside the sample: algorithms are written in lower case, albums are names
OWN = ("We trained the network with backpropagation and a greedy algorithm .\n"
       "The algorithm beats backpropagation on small data , they say .\n"
       "Her album Thriller sold well , and the album stayed in the charts .\n"
       "Critics still call Thriller a great album and an even better backpropagation of pop .\n")


def test_adapt_makes_a_folder_for_the_page_and_continues_where_it_stopped(tmp_path):
    types = tmp_path / "my-types.yaml"
    types.write_text(TYPES, encoding="utf-8")
    own = tmp_path / "own.txt"
    own.write_text(OWN * 2, encoding="utf-8")
    out = tmp_path / "labels"
    args = ("adapt", str(SAMPLE), str(own), "--types", str(types), "--out", str(out), "--sentences", "6")
    res = uner(*args)
    assert res.returncode == 0, res.stderr
    assert "types: ALBUM, ALGORITHM (4 seed terms)" in res.stdout
    assert f"next: uner annotate {out} --corpus {SAMPLE} --records {out / 'tagged.jsonl'}" in res.stdout
    doc = yaml.safe_load((out / "types.yaml").read_text(encoding="utf-8"))["types"]
    assert "ALBUM" in doc["ENT"]["subtypes"] and "ALGORITHM" in doc
    assert yaml.safe_load((out / "seeds.yaml").read_text(encoding="utf-8"))["ALGORITHM"] == ["algorithm", "backpropagation"]
    from uner.labels import LabelsFolder
    from uner.tagger import TaggerConfig

    config = TaggerConfig.for_labels(LabelsFolder(out))
    assert config.subtype_share == 0.1  # its tagger.yaml: own subtypes win sooner
    assert config.context_margin == 0.0  # … and every span is asked in its sentence (titles are told there)
    assert config.head_joins  # … and names take their complement ("Grammy Award for Best Rock Album")
    assert config.descriptor_weight == config.coordination_weight == 0.3  # … and hear "the album X", "X , Y and Z"
    assert config.name_determiners  # … and "The Lord of the Rings" keeps its "The"
    assert config.name_numbers  # … and "2012 Summer Olympics" keeps its year
    assert config.name_head_weight == 0.2  # … and "Conference on Neural …" hears its head word
    assert config.stages[-1] == "abbreviations"  # … and "NeurIPS" takes the type of the name it is defined for
    # algorithm and backpropagation are lower case in the corpus, Thriller is not: common nouns of ALGORITHM only
    assert "lower-case types: ALGORITHM" in res.stdout
    assert config.common_types == ("ALGORITHM",) and config.span_policy == "named" and config.common_head_weight == 0.5
    shown = uner("labels", "show", "algorithm", "--labels", str(out))
    assert "own labels: ALGORITHM" in shown.stdout, shown.stdout  # the compiled table knows the seed
    lines = (out / "descriptors.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in (out / "tagged.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(records) >= 4
    spans = [s for line in lines for s in json.loads(line)["spans"]]
    assert spans and all(s["terms"] for s in spans)  # every candidate span with its predicted descriptors
    assert any(e["text"] for r in records for e in r["entities"])

    stamps = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    again = uner(*args)
    assert again.returncode == 0 and "compile:" not in again.stdout and "descriptors:" not in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == stamps

    # an interrupted descriptor pass: two sentences written and half of the third
    full_d, full_t = (out / "descriptors.jsonl").read_text(), (out / "tagged.jsonl").read_text()
    (out / "descriptors.jsonl").unlink()
    (out / "tagged.jsonl").unlink()
    (out / "descriptors.jsonl.part").write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])
    (out / "tagged.jsonl.part").write_text("".join(full_t.splitlines(keepends=True)[:3]))  # (one more: cut back)
    resumed = uner(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert f"descriptors: {min(6, len(lines))}/{len(lines)} sentences" in resumed.stdout
    assert (out / "descriptors.jsonl").read_text() == full_d and (out / "tagged.jsonl").read_text() == full_t
    assert not list(out.glob("*.part"))


def test_adapt_refuses_a_bad_types_file_naming_its_line(tmp_path):
    types = tmp_path / "bad.yaml"
    types.write_text("ALBUM:\n  parent: NOPE\n", encoding="utf-8")
    res = uner("adapt", str(SAMPLE), "--types", str(types), "--out", str(tmp_path / "labels"), "--sentences", "2")
    assert res.returncode == 2 and f"{types}:1: type ALBUM: unknown parent 'NOPE'" in res.stderr
    assert not (tmp_path / "labels" / "label_table.npz").exists()


def test_a_spans_strongest_terms_weigh_rank_across_its_inputs():
    from uner.adapt import strongest_terms

    rows = [[{"term": "album"}, {"term": "song"}, {"term": "band"}], [{"term": "song"}, {"term": "record"}],
            [{"term": "record"}, {"term": "band"}, {"term": "album"}]]
    # album 1 + 1/3, song 1/2 + 1, record 1/2 + 1, band 1/3 + 1/2
    assert strongest_terms(rows, keep=3) == ["song", "record", "album"]
    assert strongest_terms(None) == []
