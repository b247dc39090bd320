"""The entity type hierarchy of ``types.yaml``: types, subtypes, not-entity labels and aliases."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .problems import LabelError, compose, line_of, mapping


@dataclass
class TypeHierarchy:
    """Types with their subtypes, the not-entity labels, and aliases used by seed lists."""

    types: dict[str, list[str]]
    not_entity: list[str]
    aliases: dict[str, str] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        """Every label in table order: each type followed by its subtypes, then the not-entity labels."""
        out = []
        for t, subs in self.types.items():
            out.append(t)
            out.extend(subs)
        return out + list(self.not_entity)

    def parent(self, label: str) -> str:
        """The top-level type of a label (itself for types and not-entity labels)."""
        for t, subs in self.types.items():
            if label == t or label in subs:
                return t
        return label

    def canonical(self, label: str) -> str | None:
        """The label as the hierarchy names it (aliases resolved), or None if unknown."""
        label = self.aliases.get(label, label)
        return label if label in set(self.labels) else None


def load_types(path: str | os.PathLike) -> TypeHierarchy:
    """Read and check ``types.yaml``; raises LabelError listing every problem with its line."""
    path = Path(path)
    root = compose(path)
    problems: list[str] = []
    if not isinstance(root, yaml.MappingNode):
        raise LabelError([f"{path}:1: expected a mapping with 'types'"])
    top = mapping(root)
    if "types" not in top or not isinstance(top["types"][1], yaml.MappingNode):
        raise LabelError([f"{path}:1: missing mapping 'types'"])
    types: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    seen: dict[str, int] = {}

    def claim(name: str, node: yaml.Node) -> None:
        if name in seen:
            problems.append(f"{path}:{line_of(node)}: label {name} already defined at line {seen[name]}")
        seen[name] = line_of(node)

    for key, val in top["types"][1].value:
        claim(key.value, key)
        if not isinstance(val, yaml.MappingNode):
            problems.append(f"{path}:{line_of(val)}: type {key.value} needs 'description' and 'subtypes'")
            continue
        body = mapping(val)
        descriptions[key.value] = body["description"][1].value if "description" in body else ""
        subs = body.get("subtypes", (None, None))[1]
        names = []
        if isinstance(subs, yaml.MappingNode):
            for sk, sv in subs.value:
                claim(sk.value, sk)
                names.append(sk.value)
                descriptions[sk.value] = sv.value if isinstance(sv, yaml.ScalarNode) else ""
        elif subs is not None:
            problems.append(f"{path}:{line_of(subs)}: subtypes of {key.value} must be a mapping name: description")
        types[key.value] = names
    not_entity = []
    if "not_entity" in top:
        for k, v in top["not_entity"][1].value:
            claim(k.value, k)
            not_entity.append(k.value)
            descriptions[k.value] = v.value
    if "OTHER" not in not_entity:
        problems.append(f"{path}:1: 'not_entity' must define OTHER")
    aliases = {}
    if "aliases" in top:
        known = set(seen)
        for k, v in top["aliases"][1].value:
            if v.value not in known:
                problems.append(f"{path}:{line_of(v)}: alias {k.value} points to unknown label {v.value}")
            aliases[k.value] = v.value
    for name in top:
        if name not in ("types", "not_entity", "aliases"):
            problems.append(f"{path}:{line_of(top[name][0])}: unknown key {name!r}")
    if problems:
        raise LabelError(problems)
    return TypeHierarchy(types, not_entity, aliases, descriptions)
