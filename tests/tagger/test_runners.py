"""Runners: the serial and the process runner give the same records, in input order, errors included."""

from __future__ import annotations

import shutil

import pytest

from uner.io import Record
from tests.helpers import uner
from uner.tagger import RUNNERS, ProcessRunner, SerialRunner, TagOptions, make_runner

TEXTS = ["Barack Obama visited Paris with executives of Toyota .", "", "Aspirin treats headaches .",
         "Paris is big .", "Obama met Toyota executives in Tokyo ."]


def _records() -> list[Record]:
    recs = [Record(n, f"r{n}", t, {}) for n, t in enumerate(TEXTS, 1)]
    recs.insert(2, Record(3, "3", "", {}, "in.jsonl:3: invalid JSON (Expecting value)"))
    recs.append(Record(7, "r7", "Paris is big .", {"spans": [[0, 5]]}))
    recs.append(Record(8, "r8", "Paris .", {"spans": [[3, 99]]}))
    return recs


@pytest.fixture(scope="module")
def kwargs(tiny) -> dict:
    return {"model": str(tiny[0]), "labels": tiny[1], "device": "cpu", "dtype": "float32"}


def test_serial_and_process_runners_give_identical_records(kwargs):
    options = TagOptions(batch_size=2, explain=True)  # chunks cut between records with and without errors
    serial = list(SerialRunner(kwargs, options).run(_records()))
    parallel = list(ProcessRunner(kwargs, options, workers=2).run(_records()))
    assert parallel == serial
    assert [r["id"] for r in serial] == [r.id for r in _records()]
    assert "error" in serial[2] and "spans" in serial[-1]["error"]
    assert serial[0]["entities"] and all("descriptors" in e for e in serial[0]["entities"])


def test_make_runner_picks_by_workers_and_rejects_unknown_names(kwargs):
    assert isinstance(make_runner(kwargs, TagOptions()), SerialRunner)
    assert isinstance(make_runner(kwargs, TagOptions(), workers=3), ProcessRunner)
    assert set(RUNNERS) == {"serial", "processes", "ray", "student"}
    with pytest.raises(ValueError, match="unknown runner 'nope'"):
        make_runner(kwargs, TagOptions(), name="nope")


def test_process_runner_fails_early_on_a_missing_model(tmp_path):
    from uner.models import ModelNotFoundError

    with pytest.raises(ModelNotFoundError):
        ProcessRunner({"model": str(tmp_path / "nothing")}, TagOptions(), workers=2)


def test_ensemble_runs_through_every_runner_and_fails_early_on_a_missing_member(kwargs, tiny, tmp_path):
    from uner.models import ModelNotFoundError
    from uner.tagger import Ensemble

    twice = {**kwargs, "ensemble": (f"{tiny[0]}:{tiny[1]}",)}
    runner = SerialRunner(twice, TagOptions(batch_size=2))
    assert isinstance(runner.tagger, Ensemble) and len(runner.tagger.members) == 2
    alone = list(SerialRunner(kwargs, TagOptions(batch_size=2)).run(_records()))
    assert list(runner.run(_records())) == alone  # the same model twice votes like the model alone
    assert list(ProcessRunner(twice, TagOptions(batch_size=2), workers=2).run(_records())) == alone
    with pytest.raises(ModelNotFoundError):
        ProcessRunner({**kwargs, "ensemble": (str(tmp_path / "nothing"),)}, TagOptions(), workers=2)


def test_a_worker_that_cannot_load_the_tagger_stops_the_run_with_one_line(tiny, tmp_path):
    """A labels table that only the workers read is broken: one line naming it and exit 2, not a pool that starts
    failing workers forever (the bug: the subprocess timed out)."""
    labels = tmp_path / "labels"
    shutil.copytree(tiny[1], labels)
    (labels / "label_table.npz").write_text("not a table\n")
    (tmp_path / "in.txt").write_text("Paris is big .\n")
    out = tmp_path / "out.jsonl"
    for workers in ("1", "2"):
        run = uner("tag", str(tmp_path / "in.txt"), "--model", str(tiny[0]), "--labels", str(labels),
                   "--workers", workers, "-o", str(out))
        assert run.returncode == 2, run.stderr
        last = run.stderr.strip().splitlines()[-1]
        assert f"{labels / 'label_table.npz'}: not a label table" in last and "Traceback" not in run.stderr
        assert not out.exists() and not list(tmp_path.glob("out.jsonl.*"))
