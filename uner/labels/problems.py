"""LabelError and reading YAML as nodes, so every problem in a labels file can name its ``FILE:LINE``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml


class LabelError(ValueError):
    """One or more problems, each ``FILE:LINE: message``."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def line_of(node: yaml.Node) -> int:
    """The 1-based line a YAML node starts on."""
    return node.start_mark.line + 1


def compose(path: Path) -> yaml.Node | None:
    """The YAML node tree of a file; malformed or unreadable files raise LabelError with the line."""
    try:
        return yaml.compose(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise LabelError([f"{path}:{mark.line + 1 if mark else 1}: malformed YAML: {exc.problem}"]) from None
    except OSError as exc:
        raise LabelError([f"{path}:1: cannot read ({exc.strerror})"]) from None


def mapping(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """A mapping node's entries: key text → (key node, value node)."""
    return {k.value: (k, v) for k, v in node.value}
