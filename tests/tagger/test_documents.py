"""Issue 76, item 1: one evaluation path. `uner tag --documents` reads a user's documents (a blank line ends one in a
.txt, JSONL records share a 'doc' field) as `uner eval --context` reads a gold file's (-DOCSTART- lines): one function
runs the document stages over both (``run_in_context``), so the same sentences give the same entities."""

from __future__ import annotations

import filecmp
import io
import json
from pathlib import Path

import pytest

from tests.helpers import uner
from tests.tagger.test_resume import failing_writes
from uner.analysis.evaluate import Mapping, evaluate
from uner.tagger import ProcessRunner, SerialRunner, SetupError, Student, TagOptions, tag_file
from uner.tagger.stages import DOCUMENT_CONTEXT

# two documents: the first defines "ALD" and tags "mangiferin", which its later sentences say too little of for the
# bio student alone; the second holds two of those sentences again, with nothing before them to carry either
DOCUMENTS = [["Boys with adrenoleukodystrophy ( ALD ) lose myelin .", "We examined analogs of mangiferin .",
              "ALD is due to a gene in Xq28 .", "Thus mangiferin acts on both receptors ."],
             ["ALD is due to a gene in Xq28 .", "Thus mangiferin acts on both receptors ."]]
SENTENCES = [s for doc in DOCUMENTS for s in doc]


@pytest.fixture(scope="module")
def bio_student():
    return Student.from_pretrained("uner-student-bio")


def _evaluated(student, tmp_path: Path, context: int) -> list[list[tuple]]:
    """The entities ``evaluate`` finds in each sentence of a gold file of ``DOCUMENTS`` (a -DOCSTART- line before
    each), as (text, type, subtype, score), read from its errors file: each sentence's last token is gold as a type
    that no entity maps to, so every sentence is an error record, in order."""
    gold = tmp_path / "documents.tsv"
    gold.write_text("".join("-DOCSTART-\tO\n\n" + "".join("".join(f"{t}\tO\n" for t in s.split()[:-1]) + ".\tB-END\n\n"
                                                          for s in doc) for doc in DOCUMENTS))
    errors = tmp_path / f"errors-{context}.jsonl"
    evaluate(student, gold, Mapping({}, "ENT"), "end-to-end", errors_path=errors, context=context)
    found = [json.loads(line) for line in errors.read_text().splitlines()]
    assert [r["text"] for r in found] == SENTENCES
    return [[(p[0], p[1], p[2], p[4]) for p in r["predicted"]] for r in found]


def test_uner_tag_documents_gives_the_entities_of_uner_eval_context(bio_student, tmp_path):
    """The same six sentences through ``evaluate`` (``uner eval --context 20``) on a gold file with -DOCSTART- lines,
    and through ``uner tag --documents`` on a .txt (blank lines) and a .jsonl ('doc' fields) in one folder (each file
    its own documents): entity for entity the same. And the document pass did something: each sentence alone gives
    other entities, and the second document's sentences get nothing from the first's."""
    in_context, alone = _evaluated(bio_student, tmp_path, DOCUMENT_CONTEXT), _evaluated(bio_student, tmp_path, 0)
    assert in_context[:4] != alone[:4] and in_context[4:] == alone[4:]
    assert in_context[2] != in_context[4] and in_context[3] != in_context[5]  # (the same text, another document)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("\n\n".join("\n".join(doc) for doc in DOCUMENTS) + "\n")
    (folder / "b.jsonl").write_text("".join(json.dumps({"doc": n, "text": s}) + "\n"
                                            for n, doc in enumerate(DOCUMENTS) for s in doc))
    out = tmp_path / "out.jsonl"
    res = uner("tag", str(folder), "--documents", "--engine", "student", "--model", "uner-student-bio", "-o", str(out))
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["text"] for r in records] == [*DOCUMENTS[0], "", *DOCUMENTS[1], *SENTENCES]  # (one per line, in order)
    for name in ("a.txt", "b.jsonl"):
        tagged = [[(e["text"], e["type"], e["subtype"], e["score"]) for e in r["entities"]]
                  for r in records if r["file"] == name and r["text"]]
        assert tagged == in_context, name


def test_a_resumed_document_run_reads_its_document_again_from_the_start(tmp_path, monkeypatch):
    """Interrupted after the third sentence of the first document (a cache block of two: a plain resume would tag
    again from the third, without the definition of ALD and the tagged mangiferin before it): the resumed run starts
    at the document's start and writes the uninterrupted run's file, byte for byte. Stdin cannot be read twice."""
    inp, full, out = tmp_path / "in.txt", tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    inp.write_text("\n\n".join("\n".join(doc) for doc in DOCUMENTS) + "\n")
    kwargs = {"model": "uner-student-bio"}
    options = TagOptions(batch_size=1, cache_block=2)
    run = {"options": options, "runner": "student", "documents": True}
    assert tag_file(str(inp), str(full), kwargs, **run).errors == 0
    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        failing_writes(m, 3, KeyboardInterrupt())
        tag_file(str(inp), str(out), kwargs, **run)
    assert Path(str(out) + ".partial").read_text().count("\n") == 3
    assert tag_file(str(inp), str(out), kwargs, resume=True, **run) == (len(SENTENCES) + 1, 0)
    assert filecmp.cmp(out, full, shallow=False)
    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        failing_writes(m, 3, KeyboardInterrupt())
        m.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(inp.read_bytes())))
        tag_file("-", str(out), kwargs, **run)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(inp.read_bytes())))
    with pytest.raises(SetupError, match="reads the input's start again"):
        tag_file("-", str(out), kwargs, resume=True, **run)


def test_a_runner_whose_workers_load_the_teacher_names_its_stages_as_the_teacher_does(tiny):
    """The document pass runs in this process after any runner: one whose workers load the model (processes, Ray)
    names the stages and the labels folder the teacher there reads, without loading it."""
    kwargs = {"model": str(tiny[0]), "labels": tiny[1]}
    assert ProcessRunner(kwargs, TagOptions(), 2).stages == SerialRunner(kwargs, TagOptions()).stages
