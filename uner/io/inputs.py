"""What an input argument names — a file, a folder, a glob, ``-`` — and the records of those files, in order.

A folder means every file under it (hidden ones skipped) and a glob every file it matches, both sorted,
so a run over several files gives the records of each file in turn, ids and line numbers as that file
alone gives them, and each record's ``file`` says which file it came from (its path inside the folder, or
as the glob matched it). ``FileRecords`` is an iterable of ``uner.io.Record`` that also says which files it
reads, so a runner on a cluster can have its workers read them (``uner.io.distributed``), and what they
hold, so a resumed run can check that its input is the one it began with.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from .records import InputError, Record, check_input, input_format, read_records


def input_files(spec: str) -> list[str]:
    """The files ``spec`` names: itself (a file, a FIFO, ``-``), every file under a folder, or a glob's matches."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(str(p) for p in path.rglob("*")
                       if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts))
        if not files:
            raise InputError(f"{spec}: folder has no files")
        return files
    if not path.exists() and glob.has_magic(spec):
        files = sorted(p for p in glob.glob(spec, recursive=True) if Path(p).is_file())
        if not files:
            raise InputError(f"{spec}: no files match")
        return files
    check_input(spec)
    return [spec]


@dataclass(frozen=True)
class FileRecords:
    """The records of ``files`` in order, less the first ``skip``; with ``keep_bad`` a bad line is a record
    with an ``error`` (one record per line), else it raises InputError naming ``FILE:LINE``. ``names`` (one per
    file, or none) go into the records' ``file`` field."""

    files: tuple[str, ...]
    fmt: str | None = None
    encoding: str = "utf-8"
    keep_bad: bool = True
    skip: int = 0
    names: tuple[str | None, ...] = ()

    @classmethod
    def find(cls, spec: str, fmt: str | None = None, encoding: str = "utf-8", keep_bad: bool = True) -> FileRecords:
        """The records of what ``spec`` names (see ``input_files``), each named by its file when ``spec`` is a
        folder or a glob (a single file's records stay as they are); InputError when it names nothing readable."""
        files = tuple(input_files(spec))
        input_format(files[0], fmt)  # an unknown --input-format fails here, before any work
        if Path(spec).is_dir():
            names = tuple(Path(f).relative_to(spec).as_posix() for f in files)
        else:
            names = files if files != (spec,) else ()
        return cls(files, fmt, encoding, keep_bad, names=names)

    def __iter__(self) -> Iterator[Record]:
        return itertools.islice(self._records(), self.skip, None)

    def _records(self) -> Iterator[Record]:
        for path, name in zip(self.files, self.names or itertools.repeat(None)):
            for rec in read_records(path, self.fmt, keep_bad=self.keep_bad, encoding=self.encoding):
                rec.file = name
                yield rec

    def after(self, n: int) -> FileRecords:
        """The same records less the first ``n`` more (a resumed run)."""
        return replace(self, skip=self.skip + n)

    @property
    def on_disk(self) -> bool:
        """Whether every file is a regular file, which another process (a worker) can open by its path."""
        return all(Path(f).is_file() for f in self.files)

    def parts(self) -> list[FileRecords]:
        """Each file still to read as the records of that file alone (named as here), less the first ones that
        are skipped (counted by reading the files before)."""
        out, left = [], self.skip
        for n, f in enumerate(self.files):
            part = replace(self, files=(f,), names=self.names[n : n + 1], skip=0)
            count = sum(1 for _ in part) if left else 0
            if left and count <= left:
                left -= count
                continue
            out.append(replace(part, skip=left))
            left = 0
        return out

    def fingerprint(self) -> list[dict]:
        """What a resumed run must find unchanged: each file's absolute path and, for a regular file, its size
        and SHA-256 (stdin and FIFOs can be read only once, so theirs go unchecked)."""
        out = []
        for f in self.files:
            entry: dict = {"path": f if f == "-" else os.path.abspath(f)}
            if f != "-" and Path(f).is_file():
                with open(f, "rb") as handle:
                    entry["size"] = os.fstat(handle.fileno()).st_size
                    entry["sha256"] = hashlib.file_digest(handle, "sha256").hexdigest()
            out.append(entry)
        return out
