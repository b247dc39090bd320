"""Reading inputs: text/JSONL records (one per input line, bad ones named by ``FILE:LINE``), ``batched``,
vector files."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import numpy as np

from .corpus import open_text

T = TypeVar("T")
BINARY_SNIFF = 8192  # a file with a NUL character among its first this many is binary (as git and grep judge)


class InputError(ValueError):
    """Bad input, with the file and line it came from."""


@dataclass
class Record:
    """One input document: its position, id, text and any other JSON fields (or why it is bad), and the name of
    its file when the input is several files (a folder or a glob: ids alone may repeat across them)."""

    line: int
    id: str
    text: str
    fields: dict
    error: str | None = None
    file: str | None = None


DOC_FIELD = "doc"  # the JSONL field whose value a document's records share (``uner tag --documents``)


def begins_document(rec: Record, before: Record | None) -> bool:
    """Whether ``rec`` begins a document, where the consecutive records of one make it (``uner tag --documents``):
    the first record of a file; a text line after a blank one (a blank line ends a document); a JSONL record whose
    ``doc`` field is missing or not the record's before (a record without one is a document of its own)."""
    if before is None or rec.file != before.file:
        return True
    if not rec.fields and not before.fields:  # (text lines)
        return not before.text.strip()
    return rec.fields.get(DOC_FIELD) is None or rec.fields.get(DOC_FIELD) != before.fields.get(DOC_FIELD)


def input_format(path: str, given: str | None = None) -> str:
    """``txt`` or ``jsonl``: the given format, else from the file extension (stdin: txt)."""
    if given:
        if given not in ("txt", "jsonl"):
            raise InputError(f"unknown input format {given!r} (txt or jsonl)")
        return given
    return "jsonl" if str(path).endswith((".jsonl", ".jsonl.gz", ".jsonl.xz")) else "txt"


def check_input(path: str) -> None:
    """InputError (one line) unless ``path`` is ``-`` (stdin) or a readable file or FIFO (``<(…)``)."""
    if path == "-":
        return
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path}: is a directory, not an input file")
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if not os.access(p, os.R_OK):
        raise InputError(f"{path}: cannot be read (permission denied)")


def _open_lines(path: str, encoding: str) -> IO[str]:
    """``path`` (plain, .gz, .xz; ``-``: stdin) as text lines split at newlines only; undecodable bytes come
    through as lone surrogates (``surrogateescape``) so that each line can report its own; a UTF-8 BOM is dropped."""
    if encoding.replace("_", "-").lower() in ("utf-8", "utf8"):
        encoding = "utf-8-sig"
    if path == "-":
        stdin = sys.stdin.buffer
        stdin = stdin if hasattr(stdin, "peek") else io.BufferedReader(stdin)  # (peeked: ``_binary``)
        return io.TextIOWrapper(stdin, encoding=encoding, errors="surrogateescape", newline="\n")
    return open_text(path, encoding, errors="surrogateescape", newline="\n")


def _binary(handle: IO[str]) -> bool:
    """Whether the text ``handle`` opens a binary file: a NUL character in its first ``BINARY_SNIFF`` bytes, decoded
    in its encoding (UTF-16 text holds NUL bytes, not characters); peeked, so nothing is consumed, and a stream waits
    only for its first data."""
    head = handle.buffer.peek(BINARY_SNIFF)[:BINARY_SNIFF]
    return "\0" in codecs.getincrementaldecoder(handle.encoding)("surrogateescape").decode(head)


def _surrogate(text: str) -> int | None:
    """Index of the first lone surrogate in ``text`` (an undecodable byte under ``surrogateescape``, or an
    unpaired ``\\ud800``-style JSON escape), None when there is none: such text cannot be written as UTF-8."""
    return next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)


def read_records(path: str, fmt: str | None = None, text_field: str = "text",
                 keep_bad: bool = False, encoding: str = "utf-8") -> Iterator[Record]:
    """Stream records from a .txt (one document per line) or .jsonl file (also .gz/.xz, a FIFO), or stdin for ``-``.

    Lines end at a newline (a carriage return before it is dropped), so there is one record per line as ``wc -l``
    counts them. A malformed JSONL line or a line that is not valid ``encoding`` raises InputError
    naming ``FILE:LINE``, or with ``keep_bad`` comes back as a record whose ``error`` says so (so
    outputs keep one line per input line); nothing is decoded with replacement characters. A binary file (a NUL
    character in its first ``BINARY_SNIFF`` bytes: an executable, an image) is not read line by line: InputError,
    or with ``keep_bad`` one record whose ``error`` says so.
    """
    kind = input_format(path, fmt)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    check_input(path)
    handle = _open_lines(path, encoding)
    name = "<stdin>" if path == "-" else path
    try:
        if _binary(handle):
            problem = f"{name}: a binary file (a NUL character in its first {BINARY_SNIFF:,} bytes), not text: not read"
            if not keep_bad:
                raise InputError(problem)
            yield Record(1, "1", "", {}, problem)
            return
        for n, line in enumerate(handle, 1):
            line = line.removesuffix("\n").removesuffix("\r")
            problem = None
            if (bad := _surrogate(line)) is not None:
                problem = (f"{name}:{n}: not valid {encoding} (byte 0x{ord(line[bad]) - 0xDC00:02x} at column "
                           f"{bad + 1}); give the file's encoding with --encoding")
            elif kind == "txt":
                yield Record(n, str(n), line, {})
                continue
            elif not line.strip():
                if keep_bad:
                    yield Record(n, str(n), "", {})
                continue
            else:
                try:
                    obj = json.loads(line)
                    if not isinstance(obj, dict) or not isinstance(obj.get(text_field), str):
                        problem = f"{name}:{n}: expected an object with a string field {text_field!r}"
                    elif _surrogate(obj[text_field] + str(obj.get("id", ""))) is not None:
                        problem = f"{name}:{n}: unpaired surrogate escape (\\ud800-\\udfff) in {text_field!r} or 'id'"
                except json.JSONDecodeError as exc:
                    problem = f"{name}:{n}: invalid JSON ({exc.msg})"
            if problem is None:
                yield Record(n, str(obj.get("id", n)), obj[text_field], obj)
            elif keep_bad:
                yield Record(n, str(n), "", {}, problem)
            else:
                raise InputError(problem)
    finally:
        if path != "-":
            handle.close()
        elif not handle.closed:  # leave sys.stdin open (once closed, by whoever gave it, there is nothing to leave)
            handle.detach()


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` items (the last may be shorter), streaming."""
    if size < 1:
        raise ValueError("batch size must be at least 1")
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def load_vectors(path: str | os.PathLike) -> np.ndarray:
    """A 2-D float vector file (.npy), memory-mapped; InputError when it is not one."""
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a .npy vector file ({exc})") from None
    if arr.ndim != 2:
        raise InputError(f"{path}: expected a 2-D array of vectors, got shape {arr.shape}")
    return arr

