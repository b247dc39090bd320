"""Concurrent runs and exact resume (issue 21, items 13-14): a second `uner tag` on the same output refuses at
once and leaves the first run's output its own; `--resume` after kill -9 gives a byte-identical file under
bfloat16, because batches and prediction caches are cut at fixed document positions. Issue 40: `--resume`
refuses a partial file made from another input or with other settings (exit 2, the file untouched), and a
full disk stops the run with one line and exit 3, leaving whole records that `--resume` continues."""

from __future__ import annotations

import errno
import filecmp
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers import UNER, uner
from uner.cli import app
from uner.models import load_vocabulary
from uner.tagger import TagOptions, formats, tag_file


def sentences(n: int, seed: int = 0) -> list[str]:
    """``n`` varied sentences of shipped-vocabulary words (some capitalised), 4-30 words long."""
    words = [w for w in load_vocabulary()[0] if w.isalpha() and len(w) > 2]
    rnd = random.Random(seed)
    return [" ".join(w.capitalize() if rnd.random() < 0.3 else w for w in rnd.sample(words, rnd.randint(4, 30))) + " ."
            for _ in range(n)]


def lines_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


class FailingFile:
    """An output file whose ``write`` fails after ``good`` writes: as a full disk does (``exc`` an OSError: half
    of the next write lands, then it raises), or as an interrupted run (any other ``exc``: it raises at once)."""

    def __init__(self, handle, good: int, exc: BaseException) -> None:
        self.handle, self.good, self.exc, self.torn = handle, good, exc, False

    def write(self, data) -> int:
        if self.good:
            self.good -= 1
            return self.handle.write(data)
        if isinstance(self.exc, OSError) and not self.torn:
            self.torn = True
            return self.handle.write(data[: len(data) // 2])
        raise self.exc

    def __getattr__(self, name: str):
        return getattr(self.handle, name)

    def __enter__(self) -> FailingFile:
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()


def failing_writes(monkeypatch, good: int, exc: BaseException) -> None:
    """The output writers' files fail after ``good`` writes (see FailingFile)."""
    monkeypatch.setattr(formats, "open", lambda *a, **k: FailingFile(open(*a, **k), good, exc), raising=False)


def tag(*args: str):
    """``uner tag ARGS`` in this process (so that a test can make its writes fail)."""
    return CliRunner().invoke(app, ["tag", *args])


def test_second_run_on_the_same_output_refuses_at_once(tiny, tmp_path):
    args = ["--model", str(tiny[0]), "--labels", str(tiny[1])]
    out = tmp_path / "o.jsonl"
    partial = tmp_path / "o.jsonl.partial"
    first = subprocess.Popen([*UNER.split(), "tag", "-", "-o", str(out), *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first.stdin.write("Paris is big .\nLondon .\n")
    first.stdin.flush()
    deadline = time.monotonic() + 120
    while not partial.exists() and time.monotonic() < deadline:  # run A has claimed the output
        time.sleep(0.1)
    assert partial.exists() and first.poll() is None
    other = tmp_path / "other.txt"
    other.write_text("Tokyo is far .\n" * 5)
    for extra in ([], ["--resume"]):
        t0 = time.perf_counter()
        res = uner("tag", str(other), "-o", str(out), *args, *extra)
        assert res.returncode == 2, res.stderr
        assert res.stderr == f"uner: error: {out}: another uner run is writing it (o.jsonl.partial is locked)\n"
        assert time.perf_counter() - t0 < 30  # at once: before any model loads
    first.stdin.write("Berlin .\n")
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert [line.split('"text": "')[1].split('"')[0] for line in out.read_text().splitlines()] == \
        ["Paris is big .", "London .", "Berlin ."]  # run A's records, and only those
    assert not partial.exists()


def test_resume_after_kill_is_byte_identical_under_bf16(tmp_path):
    """The shipped model in bfloat16 with --explain (logits to 3 decimals): a resume that re-batched from the
    interruption point (the old behaviour) changed 4 of the 27 records after it on this machine."""
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(sentences(40)) + "\n")
    args = ["--dtype", "bfloat16", "--explain", "--batch-size", "8"]
    full = tmp_path / "full.jsonl"
    res = uner("tag", str(inp), "-o", str(full), *args)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "part.jsonl"
    partial = Path(str(out) + ".partial")
    run = subprocess.Popen([*UNER.split(), "tag", str(inp), "-o", str(out), *args],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while lines_in(partial) < 14 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    if run.returncode == 0:  # (finished before the kill on a fast machine: interrupt its output instead)
        out.rename(partial)
    kept = partial.read_bytes().split(b"\n")
    assert len(kept) > 14 and not out.exists()
    partial.write_bytes(b"\n".join(kept[:13]) + b"\n" + kept[13][:25])  # 13 whole lines, the 14th torn
    res = uner("tag", str(inp), "-o", str(out), "--resume", *args)
    assert res.returncode == 0, res.stderr
    assert filecmp.cmp(out, full, shallow=False) and not partial.exists()


def test_resume_restarts_at_the_last_cache_block(tiny, tmp_path):
    """Past a block boundary a resumed run starts at that boundary (tagging again, and dropping, what the
    partial file holds after it): the same batches and caches as an uninterrupted run."""
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(sentences(45, seed=1)) + "\n")
    kwargs = {"model": str(tiny[0]), "labels": tiny[1], "dtype": "bfloat16", "device": "cpu"}
    options = TagOptions(batch_size=4, explain=True, cache_block=16)
    assert options.block == 16 and options.restart_point(37) == 32 and options.restart_point(15) == 0
    full, out = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    assert tag_file(str(inp), str(full), kwargs, options=options).errors == 0
    with pytest.MonkeyPatch.context() as m, pytest.raises(KeyboardInterrupt):  # an interrupted run: its partial file
        failing_writes(m, 1, KeyboardInterrupt())
        tag_file(str(inp), str(out), kwargs, options=options)
    lines = full.read_text().splitlines(keepends=True)
    Path(str(out) + ".partial").write_text("".join(lines[:37]) + lines[37][:10])
    assert tag_file(str(inp), str(out), kwargs, options=options, resume=True).errors == 0
    assert filecmp.cmp(out, full, shallow=False)


def test_resume_refuses_another_input_or_settings_and_continues_its_own(tiny, tmp_path, monkeypatch):
    """Issue 40, item 4: killed after 12 of the 20 lines of a two-file folder, then resumed with another input,
    other settings or a changed file: one line naming what differs, exit 2, the partial file byte for byte as it
    was; resumed with its own input: the uninterrupted run's output, byte for byte."""
    folder = tmp_path / "in"
    folder.mkdir()
    a, b, other = folder / "a.txt", folder / "b.txt", tmp_path / "other.txt"
    a.write_text("\n".join(sentences(10, seed=2)) + "\n")
    b.write_text("\n".join(sentences(10, seed=3)) + "\n")
    other.write_text(a.read_text())
    args = ["--model", str(tiny[0]), "--labels", str(tiny[1]), "--dtype", "float32", "--batch-size", "4"]
    full, out, partial = tmp_path / "full.jsonl", tmp_path / "o.jsonl", tmp_path / "o.jsonl.partial"
    assert tag(str(folder), "-o", str(full), *args).exit_code == 0
    with monkeypatch.context() as m:
        failing_writes(m, 3, KeyboardInterrupt())
        assert tag(str(folder), "-o", str(out), *args).exit_code != 0
    kept = partial.read_bytes()
    assert kept.count(b"\n") == 12 and not out.exists()
    assert [json.loads(line)["file"] for line in kept.splitlines()] == ["a.txt"] * 10 + ["b.txt"] * 2
    refused = {
        f"from {a}, {b}, not {other}": [str(other), *args],
        "with other settings (tagger.config.min_score 0.2, now 0.5)": [str(folder), *args, "--min-score", "0.5"],
        'with other settings (engine "serial", now "processes"; ': [str(folder), *args, "--engine", "processes",
                                                                   "--workers", "2"],
    }
    for what, given in refused.items():
        res = tag(*given, "-o", str(out), "--resume")
        assert res.exit_code == 2 and res.stderr.startswith(f"uner: error: --resume: {partial} was made {what}")
        assert res.stderr.endswith("; run without --resume to start again\n") and res.stderr.count("\n") == 1
        assert partial.read_bytes() == kept
    original = b.read_text()
    b.write_text(original.replace(" .", " !", 1))
    res = tag(str(folder), "-o", str(out), "--resume", *args)
    assert res.exit_code == 2 and f"was made from {b} as it was before it changed;" in res.stderr
    b.write_text(original)
    res = tag(str(folder), "-o", str(out), "--resume", *args)
    assert res.exit_code == 0, res.output
    assert filecmp.cmp(out, full, shallow=False) and not partial.exists()
    assert not (tmp_path / "o.jsonl.partial.meta.json").exists()


def test_resume_refuses_a_partial_made_with_other_threads_or_runner(tiny, tmp_path, monkeypatch):
    """Issue 76: a partial file made in one process with one torch thread, resumed with two threads or by worker
    processes (they cut other batches: scores move in the 4th decimal), is refused in one line, untouched; its record
    names the runner and threads it was made with (it said "engine": null and nothing of threads)."""
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(sentences(12, seed=6)) + "\n")
    base = ["--model", str(tiny[0]), "--labels", str(tiny[1]), "--dtype", "float32", "--batch-size", "4"]
    own = [*base, "--engine", "serial", "--threads", "1"]
    out, partial = tmp_path / "o.jsonl", tmp_path / "o.jsonl.partial"
    with monkeypatch.context() as m:
        failing_writes(m, 1, KeyboardInterrupt())
        assert tag(str(inp), "-o", str(out), *own).exit_code != 0
    made = json.loads((tmp_path / "o.jsonl.partial.meta.json").read_text())["settings"]
    assert (made["engine"], made["threads"]) == ("serial", 1)
    kept = partial.read_bytes()
    for other, what in (([*base, "--engine", "serial", "--threads", "2"], "threads 1, now 2"),
                        ([*base, "--engine", "processes", "--workers", "2", "--threads", "1"],
                         'engine "serial", now "processes"')):
        res = tag(str(inp), "-o", str(out), "--resume", *other)
        assert res.exit_code == 2 and res.stderr == (f"uner: error: --resume: {partial} was made with other settings "
                                                     f"({what}); run without --resume to start again\n")
        assert partial.read_bytes() == kept
    assert tag(str(inp), "-o", str(out), "--resume", *own).exit_code == 0 and not partial.exists()


def test_a_full_disk_is_one_line_and_exit_3_and_leaves_whole_records_to_resume(tiny, tmp_path, monkeypatch):
    """Issue 40, item 5: the disk fills up in the middle of a write (half of it lands): one line naming the file
    and the error, exit 3 (not 1: that is "some lines had errors"), a partial file of whole records only, and
    `--resume` then gives the uninterrupted run's output."""
    inp = tmp_path / "in.txt"
    inp.write_text("\n".join(sentences(20, seed=4)) + "\n")
    args = ["--model", str(tiny[0]), "--labels", str(tiny[1]), "--dtype", "float32", "--batch-size", "4"]
    full, out, partial = tmp_path / "full.jsonl", tmp_path / "o.jsonl", tmp_path / "o.jsonl.partial"
    assert tag(str(inp), "-o", str(full), *args).exit_code == 0
    with monkeypatch.context() as m:
        failing_writes(m, 2, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
        res = tag(str(inp), "-o", str(out), *args)
    assert res.exit_code == 3 and "Traceback" not in res.output and res.stderr.count("uner:") == 1
    assert res.stderr.endswith(f"\nuner: error: could not write {partial}: [Errno 28] No space left on device\n")
    assert partial.read_bytes() == b"".join(full.read_bytes().splitlines(keepends=True)[:8]) and not out.exists()
    res = tag(str(inp), "-o", str(out), "--resume", *args)
    assert res.exit_code == 0, res.output
    assert filecmp.cmp(out, full, shallow=False) and not partial.exists()
