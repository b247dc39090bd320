"""Writing outputs safely: the one atomic write, and the check that an output file can be written.

Every writer in uner goes through ``atomic_path`` (a temp file beside the target, renamed on
success, removed on failure) or ``atomic_dir`` for folders, so a crash never leaves a half-written file."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np


@contextmanager
def atomic_path(path: str | os.PathLike, resumable: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` that replaces it only if the block succeeds. ``resumable``: the path is
    ``PATH.part`` and stays when the block fails, so that a long job that appends to it continues where it stopped."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if resumable:
        part = target.with_name(target.name + ".part")
        yield part
        os.replace(part, target)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the result gets a normal file's mode
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a text file (UTF-8) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def atomic_dir(target: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """Fill a fresh temporary folder beside ``target`` with ``write(tmp)``, then swap it in for ``target``;
    on failure the temporary folder is removed and ``target`` is left as it was."""
    target = Path(target)
    tmp = target.with_name(target.name + ".tmp")
    old = target.with_name(target.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        write(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    tmp.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def write_npz(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Save arrays as a deterministic .npz (sorted names, zip entries dated 1980: byte-identical re-runs), atomically."""
    with atomic_path(path) as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for name in sorted(arrays):
                buf = io.BytesIO()
                np.save(buf, arrays[name], allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, buf.getvalue())


def save_npy(path: str | os.PathLike, array: np.ndarray) -> None:
    """np.save, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)


def check_output(out: str) -> None:
    """ValueError (one line) unless ``out`` is ``-`` or a file path in an existing, writable folder."""
    if out == "-":
        return
    path = Path(out)
    if path.is_dir():
        raise ValueError(f"{out}: is a directory; give an output file name")
    if not path.parent.is_dir():
        raise ValueError(f"{out}: folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ValueError(f"{out}: folder {path.parent} is not writable")
