"""The ``OUT.partial`` file a run writes before it is renamed to ``OUT``: locked for the run (two runs never
write one output), resumable for JSONL, and beside it a sidecar, ``OUT.partial.meta.json``, that records the
input (paths, sizes, SHA-256) and the settings it is made from, so that ``--resume`` continues only the run
it would repeat and refuses, untouched, a partial file made from another input or with other settings.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..io import atomic_write_text
from .formats import WriteError


class OutputInUseError(RuntimeError):
    """Another run is writing the same output file."""


class ResumeMismatch(ValueError):
    """``--resume`` found a partial output made from another input or with other settings."""


def resume_point(partial: Path) -> int:
    """Complete JSON lines in a partial output file; a torn last line is cut off (a truncation: no space needed)."""
    if not partial.is_file():
        return 0
    data = partial.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep != len(data):
        os.truncate(partial, keep)
    return data.count(b"\n")


def sidecar(partial: Path) -> Path:
    """The file beside a partial output that records what it is made from."""
    return partial.with_name(partial.name + ".meta.json")


def run_record(inputs: list[dict], settings: dict) -> dict:
    """What a run's output is made from, as JSON data: ``inputs`` (``FileRecords.fingerprint``) and the
    ``settings`` that shape its records (dataclasses, paths and sets allowed)."""
    return {"inputs": inputs, "settings": _plain(settings)}


def _plain(value):
    """``value`` as JSON data that compares equal across runs: dataclasses as dicts, sets sorted, paths as text."""
    if dataclasses.is_dataclass(value):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=json.dumps)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def _flat(value, key: str = "") -> dict:
    """Nested dicts as one dict of dotted keys (``tagger.config.min_score``)."""
    if not isinstance(value, dict) or not value:
        return {key: value}
    return {k: v for name, item in value.items() for k, v in _flat(item, f"{key}.{name}" if key else name).items()}


def _listed(paths: list[str]) -> str:
    return ", ".join(paths) if len(paths) <= 3 else f"{paths[0]} … {paths[-1]} ({len(paths)} files)"


def _difference(old: dict, new: dict) -> str | None:
    """How the run that made a partial output (``old``) differs from this one (``new``), as the end of "it was
    made …"; None when it does not."""
    paths = [[f["path"] for f in run["inputs"]] for run in (old, new)]
    if paths[0] != paths[1]:
        return f"from {_listed(paths[0])}, not {_listed(paths[1])}"
    changed = [now["path"] for was, now in zip(old["inputs"], new["inputs"]) if was != now]
    if changed:
        return f"from {changed[0]} as it was before it changed"
    was, now = _flat(old["settings"]), _flat(new["settings"])
    keys = [k for k in {**was, **now} if was.get(k, ...) != now.get(k, ...)]
    if not keys:
        return None
    shown = "; ".join(f"{k} {_shown(was, k)}, now {_shown(now, k)}" for k in keys[:3])
    return f"with other settings ({shown}{'; …' if len(keys) > 3 else ''})"


def _shown(settings: dict, key: str) -> str:
    """A setting's value for a one-line message: JSON, cut at 40 characters; ``unset`` when it has none."""
    if key not in settings:
        return "unset"
    text = json.dumps(settings[key], ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _check_resume(partial: Path, run: dict) -> None:
    """ResumeMismatch unless the (non-empty) partial file's sidecar records ``run``: one line saying what differs."""
    try:
        old = json.loads(sidecar(partial).read_text(encoding="utf-8"))
        difference = _difference(old, run)
    except (OSError, ValueError, KeyError, TypeError):
        difference = f"by a run that left no readable record of its input and settings ({sidecar(partial).name})"
    if difference:
        raise ResumeMismatch(f"--resume: {partial} was made {difference}; run without --resume to start again")


def _lock(path: Path, out: str) -> int:
    """An open descriptor of ``path`` (created if missing) under an exclusive lock; OutputInUseError at once
    when another process holds it. The kernel drops the lock when its holder dies, even by kill -9."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputInUseError(f"{out}: another uner run is writing it ({path.name} is locked)") from None
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)  # the file was renamed or removed by the run that held it: lock the one there now


@contextlib.contextmanager
def claim_partial(out: str, resume: bool, run: dict | None = None) -> Iterator[tuple[Path | None, int]]:
    """The ``OUT.partial`` file a run writes before ``complete`` renames it to ``out`` (None for stdout), locked
    for the run, and how many records it already holds: its complete lines with ``resume``, else 0 (a stale
    one is emptied). ``run`` (``run_record``) goes into its sidecar; with ``resume`` and a ``run``, a partial
    file whose sidecar records another run (or none) raises ResumeMismatch and is left as it is. A partial
    file left empty is removed at the end, with its sidecar; WriteError when the sidecar cannot be written."""
    if out == "-":
        yield None, 0
        return
    partial = Path(out + ".partial")
    fd = _lock(partial, out)
    try:
        if not resume:
            os.ftruncate(fd, 0)
        elif run is not None and os.fstat(fd).st_size:
            _check_resume(partial, run)
        if run is not None:
            try:
                atomic_write_text(sidecar(partial), json.dumps(run, ensure_ascii=False, indent=1) + "\n")
            except OSError as exc:
                raise WriteError(sidecar(partial), exc) from None
        yield partial, resume_point(partial) if resume else 0
    finally:
        with contextlib.suppress(FileNotFoundError):  # still ours (not renamed to ``out``) and empty: remove
            if os.fstat(fd).st_size == 0 and os.stat(partial).st_ino == os.fstat(fd).st_ino:
                partial.unlink()
                sidecar(partial).unlink(missing_ok=True)
        os.close(fd)


def complete(partial: Path | None, out: str) -> None:
    """A finished partial file renamed to ``out`` (nothing for stdout), its sidecar removed first, while the
    lock still holds the name; WriteError when either fails."""
    if partial is None:
        return
    try:
        sidecar(partial).unlink(missing_ok=True)
        partial.replace(out)
    except OSError as exc:
        raise WriteError(out, exc) from None
