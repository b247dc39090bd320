"""A person's own entity types: a YAML file naming types, where they sit in the hierarchy and a few seed terms each,
merged into a labels folder's ``types.yaml`` (or replacing its types), the seeds kept beside it (``seeds.yaml``).

The file, as a person writes it (names are upper-cased; a type is a list of seeds, or a mapping)::

    ALGORITHM: [backpropagation, k-means, support vector machine]
    PROGRAMMING_LANGUAGE:
      parent: OBJECT                 # a subtype of a type of the hierarchy (or of this file)
      description: Languages for writing programs.
      seeds: [python, java]
    seeds:                           # more seeds, for any type of the merged hierarchy
      PERSON: [turing]

Every problem is reported as ``FILE:LINE: message`` and nothing is written. Adding a type the folder already has
under the same parent only adds its seeds, so running the same file again changes nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..io import atomic_write_text
from .folder import LabelsFolder
from .problems import LabelError, compose, line_of
from .types import TypeHierarchy

_KEYS = ("parent", "description", "seeds")
NAME_RE = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass
class NewType:
    """One type of the person's file: its name, parent (None: a top-level type), description and seeds."""

    name: str
    parent: str | None = None
    description: str = ""
    seeds: list[str] = field(default_factory=list)


def read_user_types(path: str | os.PathLike, base: TypeHierarchy, replace: bool = False
                    ) -> tuple[TypeHierarchy, dict[str, list[str]], list[NewType]]:
    """The hierarchy with the file's types merged in (``replace``: instead of ``base``'s types, keeping its
    not-entity labels), the seeds per label, and the types the file names; LabelError with every problem."""
    path = Path(path)
    root = compose(path)
    if not isinstance(root, yaml.MappingNode):
        raise LabelError([f"{path}:1: expected a mapping TYPE: [seed terms] (or TYPE: {{parent, description, seeds}})"])
    problems: list[str] = []
    types = {} if replace else {t: list(subs) for t, subs in base.types.items()}
    seen: dict[str, int] = {}
    new: list[NewType] = []
    extra_seeds: list[tuple[str, yaml.Node]] = []
    for key, val in root.value:
        if key.value == "seeds":
            extra_seeds += [(k.value, v) for k, v in val.value] if isinstance(val, yaml.MappingNode) else []
            if not isinstance(val, yaml.MappingNode):
                problems.append(f"{path}:{line_of(val)}: seeds: expected a mapping TYPE: [terms]")
            continue
        name = str(key.value).upper()
        where = f"{path}:{line_of(key)}"
        if name in seen:
            problems.append(f"{where}: type {name} already named at line {seen[name]}")
            continue
        seen[name] = line_of(key)
        entry = _entry(name, val, where, problems)
        if entry is not None:
            new.append(entry)
    merged = merge_types(base, new, types, {e.name: f"{path}:{seen[e.name]}" for e in new}, problems)
    seeds = {e.name: list(e.seeds) for e in new if e.seeds}
    for label, node in extra_seeds:
        name = merged.canonical(str(label).upper()) or merged.canonical(str(label))
        if name is None:
            problems.append(f"{path}:{line_of(node)}: seeds for unknown type {label!r}")
            continue
        seeds.setdefault(name, []).extend(_terms(node, f"{path}:{line_of(node)}", problems))
    if problems:
        raise LabelError(problems)
    return merged, seeds, new


def merge_types(base: TypeHierarchy, new: list[NewType], types: dict[str, list[str]] | None = None,
                where: dict[str, str] | None = None, problems: list[str] | None = None) -> TypeHierarchy:
    """``base`` (or the type lists ``types`` with ``base``'s descriptions, aliases and not-entity labels) with the
    ``new`` types added, top-level ones first so that a subtype may name a parent among them. Problems go to
    ``problems`` (each prefixed by ``where[name]``); without that list they raise LabelError."""
    raise_now = problems is None
    problems = [] if problems is None else problems
    types = {t: list(subs) for t, subs in base.types.items()} if types is None else types
    where = where or {}
    for entry in sorted(new, key=lambda e: e.parent is not None):
        _add(entry, types, base, where.get(entry.name, entry.name), problems)
    if raise_now and problems:
        raise LabelError(problems)
    descriptions = dict(base.descriptions)
    for entry in new:
        descriptions[entry.name] = entry.description or descriptions.get(entry.name, "")
    return TypeHierarchy(types, list(base.not_entity),
                         {a: t for a, t in base.aliases.items() if t in set(_labels(types)) | set(base.not_entity)},
                         descriptions)


def _entry(name: str, val: yaml.Node, where: str, problems: list[str]) -> NewType | None:
    """A type of the file from its value: a list of seeds or a mapping of ``_KEYS``."""
    if isinstance(val, yaml.SequenceNode):
        return NewType(name, seeds=_terms(val, where, problems))
    if isinstance(val, yaml.ScalarNode) and val.value in ("", "~", "null"):
        return NewType(name)
    if not isinstance(val, yaml.MappingNode):
        problems.append(f"{where}: type {name}: expected a list of seed terms or a mapping ({', '.join(_KEYS)})")
        return None
    body = {k.value: (k, v) for k, v in val.value}
    for unknown in sorted(set(body) - set(_KEYS)):
        problems.append(f"{where}: type {name}: unknown key {unknown!r} (use {', '.join(_KEYS)})")
    parent = body.get("parent", (None, None))[1]
    description = body.get("description", (None, None))[1]
    seeds = body.get("seeds", (None, None))[1]
    return NewType(name, str(parent.value).upper() if parent is not None else None,
                   str(description.value) if description is not None else "",
                   _terms(seeds, where, problems) if seeds is not None else [])


def _terms(node: yaml.Node, where: str, problems: list[str]) -> list[str]:
    if not isinstance(node, yaml.SequenceNode) or not all(isinstance(i, yaml.ScalarNode) for i in node.value):
        problems.append(f"{where}: expected a list of seed terms")
        return []
    return [str(i.value) for i in node.value if str(i.value).strip()]


def _add(entry: NewType, types: dict[str, list[str]], base: TypeHierarchy, where: str, problems: list[str]) -> None:
    """Put ``entry`` into ``types`` (top-level or under its parent), refusing a clash with another label."""
    if entry.name in base.not_entity:
        problems.append(f"{where}: {entry.name} is a not-entity label, not a type")
        return
    parent_now = next((t for t, subs in types.items() if entry.name in subs), entry.name if entry.name in types else None)
    if entry.parent is None:
        if parent_now is not None and parent_now != entry.name:
            problems.append(f"{where}: {entry.name} is already a subtype of {parent_now}")
        types.setdefault(entry.name, [])
        return
    if entry.parent not in types:
        known = ", ".join(types) or "none"
        problems.append(f"{where}: type {entry.name}: unknown parent {entry.parent!r} (top-level types: {known})")
        return
    if parent_now is not None and parent_now != entry.parent:
        problems.append(f"{where}: {entry.name} is already {'a type' if parent_now == entry.name else 'a subtype of ' + parent_now}")
        return
    if entry.name not in types[entry.parent]:
        types[entry.parent].append(entry.name)


def _labels(types: dict[str, list[str]]) -> list[str]:
    return [label for t, subs in types.items() for label in (t, *subs)]


def types_yaml(h: TypeHierarchy, header: str) -> str:
    """``types.yaml`` text for a hierarchy (what ``load_types`` reads back), after the comment ``header``."""
    doc = {"types": {t: {"description": h.descriptions.get(t, ""),
                         **({"subtypes": {s: h.descriptions.get(s, "") for s in subs}} if subs else {})}
                     for t, subs in h.types.items()},
           "not_entity": {n: h.descriptions.get(n, "") for n in h.not_entity}}
    if h.aliases:
        doc["aliases"] = dict(h.aliases)
    comment = "".join(f"# {line}\n" for line in header.splitlines())
    return comment + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=110)


def merged_seeds(path: Path, seeds: dict[str, list[str]]) -> dict[str, list[str]]:
    """The folder's ``seeds.yaml`` (``LABEL: [terms]``) with ``seeds`` added, each term once per label."""
    old = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    out = {k: list(v) for k, v in (old or {}).items()}
    for label, terms in seeds.items():
        have = out.setdefault(label, [])
        have += [t for t in terms if t not in have]
    return out


def add_types(labels: LabelsFolder, types_file: str | os.PathLike, replace: bool = False) -> tuple[list[NewType], dict]:
    """``uner labels add-types``: merge a person's types file into the folder's ``types.yaml`` and its seeds into
    ``seeds.yaml`` (nothing written when the file has a problem: LabelError). The types the file names and the
    seeds per label."""
    types_file = Path(types_file)
    if not types_file.is_file():
        raise FileNotFoundError(f"{types_file}: no such types file")
    merged, seeds, new = read_user_types(types_file, labels.load_types(), replace)
    text = types_yaml(merged, f"Entity types (uner labels add-types {types_file.name}{' --replace' if replace else ''}).\n"
                              "Every label in clusters.yaml and in seed lists names a type or subtype here.")
    seed_doc = merged_seeds(labels.seeds_path, seeds)
    atomic_write_text(labels.types_path, text)
    if seed_doc:
        atomic_write_text(labels.seeds_path, yaml.safe_dump(seed_doc, sort_keys=False, allow_unicode=True))
    return new, seeds


def add_type(labels: LabelsFolder, entry: NewType) -> TypeHierarchy:
    """One new type (the annotation page's "new type"), saved to the folder's ``types.yaml``; the new hierarchy.
    LabelError when the name clashes or the parent is unknown."""
    if not NAME_RE.fullmatch(entry.name):
        raise LabelError([f"{entry.name!r}: a type name is letters, digits and _ (e.g. MUSIC_GENRE)"])
    merged = merge_types(labels.load_types(), [entry])
    atomic_write_text(labels.types_path, types_yaml(merged, "Entity types (a type added on the annotation page).\n"
                      "Every label in clusters.yaml and in seed lists names a type or subtype here."))
    return merged
