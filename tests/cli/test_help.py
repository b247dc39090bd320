"""Issue 76: help text is Rich markup, where a bracket that reads as a tag is dropped: `uner tag --help` said
"pip install 'uner'" for 'uner[ray]'. Every option's help escapes such brackets, and the help shows them."""

from __future__ import annotations

import importlib
import re

import pytest
import typer
from typer.testing import CliRunner

from uner.cli import app
from uner.cli._util import COMMANDS

TAG_LIKE = re.compile(r"(?<!\\)\[[a-z#/@][^\[]*?\]")  # what Rich reads as a style tag ("[ray]", "[bold]")


def _commands(command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_no_help_text_holds_a_bracket_that_rich_would_drop():
    for module in set(COMMANDS.values()):
        importlib.import_module(f"uner.cli.{module}")
    swallowed = [(" ".join(path), match) for path, command in _commands(typer.main.get_command(app))
                 for text in [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
                 for match in TAG_LIKE.findall(text)]
    assert swallowed == []


@pytest.mark.parametrize("command, shown", [(["tag"], ["pip install 'uner[ray]'", "pip install 'uner[onnx]'"]),
                                            (["labels", "add-types"], ["TYPE: [seed terms]"])])
def test_the_help_shows_the_brackets(command, shown):
    res = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0
    text = re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", res.output))
    for words in shown:
        assert words in text
