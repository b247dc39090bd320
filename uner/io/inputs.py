"""What an input argument names — a file, a folder, a glob, ``-`` — and the records of those files, in order.

A folder means every file under it (hidden ones skipped) and a glob every file it matches, both sorted,
so a run over several files gives the records of each file in turn, ids and line numbers as that file
alone gives them. ``FileRecords`` is an iterable of ``uner.io.Record`` that also says which files it
reads, so a runner on a cluster can have its workers read them (``uner.io.distributed``).
"""

from __future__ import annotations

import glob
import itertools
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
    with an ``error`` (one record per line), else it raises InputError naming ``FILE:LINE``."""

    files: tuple[str, ...]
    fmt: str | None = None
    encoding: str = "utf-8"
    keep_bad: bool = True
    skip: int = 0

    @classmethod
    def find(cls, spec: str, fmt: str | None = None, encoding: str = "utf-8", keep_bad: bool = True) -> FileRecords:
        """The records of what ``spec`` names (see ``input_files``); InputError when it names nothing readable."""
        files = tuple(input_files(spec))
        input_format(files[0], fmt)  # an unknown --input-format fails here, before any work
        return cls(files, fmt, encoding, keep_bad)

    def __iter__(self) -> Iterator[Record]:
        records = itertools.chain.from_iterable(
            read_records(f, self.fmt, keep_bad=self.keep_bad, encoding=self.encoding) for f in self.files)
        return itertools.islice(records, self.skip, None)

    def after(self, n: int) -> FileRecords:
        """The same records less the first ``n`` more (a resumed run)."""
        return replace(self, skip=self.skip + n)

    @property
    def on_disk(self) -> bool:
        """Whether every file is a regular file, which another process (a worker) can open by its path."""
        return all(Path(f).is_file() for f in self.files)

    def starts(self) -> list[tuple[str, int]]:
        """Each file still to read, with how many of its first records to skip (counted by reading the files before)."""
        out, left = [], self.skip
        for f in self.files:
            count = sum(1 for _ in replace(self, files=(f,), skip=0)) if left else 0
            if left and count <= left:
                left -= count
                continue
            out.append((f, left))
            left = 0
        return out
