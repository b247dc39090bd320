"""Reading inputs and writing outputs safely: text/JSONL records, atomic files."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np


class InputError(ValueError):
    """Bad input, with the file and line it came from."""


@dataclass
class Record:
    """One input document: its position, id, text and any other JSON fields."""

    line: int
    id: str
    text: str
    fields: dict


def input_format(path: str, given: str | None = None) -> str:
    """``txt`` or ``jsonl``: the given format, else from the file extension (stdin: txt)."""
    if given:
        if given not in ("txt", "jsonl"):
            raise InputError(f"unknown input format {given!r} (txt or jsonl)")
        return given
    return "jsonl" if str(path).endswith((".jsonl", ".jsonl.gz", ".jsonl.xz")) else "txt"


def read_records(path: str, fmt: str | None = None, text_field: str = "text") -> Iterator[Record]:
    """Stream records from a .txt (one document per line) or .jsonl file, or stdin for ``-``.

    A malformed JSONL line raises InputError naming ``FILE:LINE``.
    """
    from .corpus import open_text

    kind = input_format(path, fmt)
    handle: IO[str] = sys.stdin if path == "-" else open_text(path)
    name = "<stdin>" if path == "-" else path
    try:
        for n, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if kind == "txt":
                yield Record(n, str(n), line, {})
                continue
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{name}:{n}: invalid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get(text_field), str):
                raise InputError(f"{name}:{n}: expected an object with a string field {text_field!r}")
            yield Record(n, str(obj.get("id", n)), obj[text_field], obj)
    finally:
        if handle is not sys.stdin:
            handle.close()


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` that replaces it only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def save_npy(path: str | os.PathLike, array: np.ndarray) -> None:
    """np.save, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)


def load_vectors(path: str | os.PathLike) -> np.ndarray:
    """A 2-D float vector file (.npy), memory-mapped; InputError when it is not one."""
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a .npy vector file ({exc})") from None
    if arr.ndim != 2:
        raise InputError(f"{path}: expected a 2-D array of vectors, got shape {arr.shape}")
    return arr
