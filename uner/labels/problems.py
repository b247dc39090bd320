"""LabelError and reading YAML (as nodes, or a settings file as a mapping), so every problem in a labels file can
name its ``FILE:LINE``."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import yaml

T = TypeVar("T")
WORD_LISTS = "a mapping of word lists"  # what a stage file, ``stages/<name>.yaml``, holds (``read_yaml``)


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
    return _parsed(path, yaml.compose)


def read_yaml(path: str | os.PathLike, what: str = "a mapping") -> dict:
    """The mapping a YAML settings file holds (an empty file: none); LabelError as ``FILE:LINE: message`` for a
    malformed or unreadable file or one that holds anything but ``what``, a mapping, so that a broken file a tagger
    reads is one line, not a traceback."""
    doc = _parsed(Path(path), yaml.safe_load)
    if doc is not None and not isinstance(doc, dict):
        raise LabelError([f"{path}:1: expected {what}"])
    return doc or {}


def _parsed(path: Path, parse: Callable[[str], T]) -> T:
    """``parse`` of a file's text; LabelError naming the line of malformed YAML, or the file that cannot be read."""
    try:
        return parse(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise LabelError([f"{path}:{mark.line + 1 if mark else 1}: malformed YAML: {exc.problem}"]) from None
    except yaml.YAMLError as exc:  # (a character YAML does not allow)
        raise LabelError([f"{path}:1: malformed YAML: {str(exc).splitlines()[0]}"]) from None
    except UnicodeDecodeError:
        raise LabelError([f"{path}:1: not UTF-8 text"]) from None
    except OSError as exc:
        raise LabelError([f"{path}:1: cannot read ({exc.strerror})"]) from None


def mapping(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """A mapping node's entries: key text → (key node, value node)."""
    return {k.value: (k, v) for k, v in node.value}
