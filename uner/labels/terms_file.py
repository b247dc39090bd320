"""Editing one term's line of ``terms.tsv`` (per-term labels that override the clusters), keeping
every other line and comment as it is."""

from __future__ import annotations

import os
from pathlib import Path

from ..io import atomic_write_text
from .problems import LabelError
from .types import TypeHierarchy

HEADER = "# Per-term human labels (term<TAB>LABEL[/LABEL]); a term listed here overrides its clusters.\n"


def set_term_labels(path: str | os.PathLike, term: str, labels: list[str], types: TypeHierarchy) -> list[str]:
    """Give ``term`` exactly ``labels`` in ``terms.tsv`` (an empty list removes its line), atomically.

    The term's first line is replaced in place, later lines for it are dropped, a new term is appended.
    Returns the canonical labels written; LabelError (nothing written) for an unknown label or a term
    that cannot be a TSV field."""
    path = Path(path)
    if not term or term != term.strip() or any(c in term for c in "\t\r\n"):
        raise LabelError([f"{path}:1: term {term!r} cannot be written to terms.tsv"])
    names = []
    for label in labels:
        name = types.canonical(label)
        if name is None:
            raise LabelError([f"{path}:1: unknown label {label!r} (not in types.yaml)"])
        if name not in names:
            names.append(name)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.is_file() else [HEADER]
    new = f"{term}\t{'/'.join(names)}\n" if names else ""
    out, placed = [], False
    for line in lines:
        if "\t" in line and line.partition("\t")[0].strip() == term and not line.lstrip().startswith("#"):
            if not placed:
                out.append(new)
                placed = True
            continue
        out.append(line)
    if not placed and new:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append(new)
    atomic_write_text(path, "".join(out))
    return names
