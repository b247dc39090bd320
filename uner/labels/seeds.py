"""Seed term lists: terms with labels, read from the reference formats, our TSV and YAML."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from .problems import LabelError, compose, line_of
from .types import TypeHierarchy


def read_seeds(path: str | os.PathLike, types: TypeHierarchy) -> dict[str, Counter]:
    """Seed terms → label counts, from any of the supported formats.

    Formats: the reference ``term LABEL`` per line (``ner_labeling/*``; a line may hold several
    pairs), ``LABEL1/LABEL2 term`` (``bootstrap_entities.txt``), our TSV ``term<TAB>LABEL[/LABEL…]``,
    and YAML ``LABEL: [terms]``. Unknown labels raise LabelError with FILE:LINE.
    """
    path = Path(path)
    seeds: dict[str, Counter] = {}
    problems: list[str] = []

    def add(term: str, label: str, line: int) -> None:
        name = types.canonical(label)
        if name is None:
            problems.append(f"{path}:{line}: unknown label {label!r}")
            return
        seeds.setdefault(term, Counter())[name] += 1

    if path.suffix in (".yaml", ".yml"):
        root = compose(path)
        if not isinstance(root, yaml.MappingNode):
            raise LabelError([f"{path}:1: expected a mapping LABEL: [terms]"])
        for k, v in root.value:
            for item in v.value if isinstance(v, yaml.SequenceNode) else []:
                add(str(item.value), k.value, line_of(item))
    else:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if "\t" in raw:
                term, _, labels = raw.partition("\t")
                for lab in labels.strip().split("/"):
                    add(term.strip(), lab, n)
                continue
            parts = line.split()
            label_first = len(parts) == 2 and types.canonical(parts[1]) is None and all(
                types.canonical(lab) for lab in parts[0].split("/"))
            if label_first:  # bootstrap_entities.txt: LABEL1/LABEL2 term
                for lab in parts[0].split("/"):
                    add(parts[1], lab, n)
            elif len(parts) % 2 == 0:  # ner_labeling: term LABEL [term LABEL …]
                for term, lab in zip(parts[0::2], parts[1::2]):
                    add(term, lab, n)
            else:
                problems.append(f"{path}:{n}: expected 'term LABEL' or 'LABEL term'")
    if problems:
        raise LabelError(problems)
    return seeds


def seed_files(folder: str | os.PathLike) -> list[Path]:
    """The seed files of a folder laid out as the reference seed data (ner_labeling/*, bootstrap_entities.txt)."""
    folder = Path(folder)
    files = sorted((folder / "ner_labeling").glob("*")) if (folder / "ner_labeling").is_dir() else []
    boot = folder / "bootstrap_entities.txt"
    return files + ([boot] if boot.is_file() else [])


def merge_seeds(parts: Iterable[dict[str, Counter]]) -> dict[str, Counter]:
    """One term → label counts mapping, summing the counts of every part."""
    out: dict[str, Counter] = {}
    for part in parts:
        for term, counts in part.items():
            out.setdefault(term, Counter()).update(counts)
    return out


def load_seeds(paths: Iterable[str | os.PathLike], types: TypeHierarchy) -> dict[str, Counter]:
    """Merged seeds of seed files and seed folders (see ``seed_files``).

    A path that is neither raises FileNotFoundError before any file is read; the first file
    with problems raises LabelError listing them.
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += seed_files(p)
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such seed file or folder")
    return merge_seeds(read_seeds(f, types) for f in files)


def seed_vocab_matches(seeds: dict[str, Counter], vocab: Sequence[str]) -> dict[int, Counter]:
    """Vocabulary id → seed label counts; a seed matches its exact-case entry, else its lower-case one."""
    index = {t: i for i, t in enumerate(vocab)}
    out: dict[int, Counter] = {}
    for term in sorted(seeds):
        i = index.get(term, index.get(term.lower()))
        if i is not None:
            out.setdefault(i, Counter()).update(seeds[term])
    return out
