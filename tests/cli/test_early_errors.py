"""Early errors answer before torch, transformers and spaCy load (issue 40: 5–11 s of imports before one line):
``import uner`` loads its names on first use, the command line imports only the command it runs, and ``uner tag``
checks its input and output paths before it imports the tagger."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from uner.cli._util import COMMANDS, app

HEAVY = ("torch", "transformers", "spacy")
# runs the console script's `main` in-process, then prints the heavy libraries it loaded (none: an empty line)
IN_PROCESS = ("import sys\nfrom uner.cli import main\nsys.argv[0] = 'uner'\ntry:\n    main()\nfinally:\n"
              f"    print(*sorted(set({HEAVY!r}) & set(sys.modules)))\n")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", IN_PROCESS, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", ["missing input", "missing output folder", "output is a folder"])
def test_a_bad_path_is_one_line_and_exit_2_before_the_model_layers_load(tmp_path, case):
    text = tmp_path / "x.txt"
    text.write_text("Paris is in France .\n")
    args, message = {
        "missing input": ([str(tmp_path / "missing.txt")], f"{tmp_path / 'missing.txt'}: no such file"),
        "missing output folder": ([str(text), "-o", str(tmp_path / "none" / "o.jsonl")],
                                  f"{tmp_path / 'none' / 'o.jsonl'}: folder {tmp_path / 'none'} does not exist"),
        "output is a folder": ([str(text), "-o", str(tmp_path)], f"{tmp_path}: is a directory; give an output file name"),
    }[case]
    res = run("tag", *args)
    assert (res.returncode, res.stderr.splitlines()) == (2, [f"uner: error: {message}"])
    assert res.stdout == "\n", f"loaded {res.stdout.strip()}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]  # nothing written


def test_a_bad_option_is_told_before_the_model_layers_load():
    res = run("tag", "x.txt", "--bogus")
    assert res.returncode == 2 and "No such option: --bogus" in res.stderr
    assert res.stdout == "\n", f"loaded {res.stdout.strip()}"


def test_import_uner_loads_the_model_layers_only_when_a_name_is_used():
    probe = (f"import sys, uner\nprint(*sorted(set({HEAVY!r}) & set(sys.modules)))\n"
             f"uner.Tagger\nprint(*sorted(set({HEAVY!r}) & set(sys.modules)))\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert res.stdout.splitlines() == ["", " ".join(sorted(HEAVY))]


def test_commands_names_every_command_with_the_module_that_defines_it():
    """The lazy group finds a command by ``COMMANDS`` alone: a command missing there, or under another module, would
    not run (or only after another command's module happened to load)."""
    for module in set(COMMANDS.values()):
        importlib.import_module(f"uner.cli.{module}")
    defined = {c.name or c.callback.__name__: c.callback.__module__ for c in app.registered_commands}
    defined |= {g.name: g.typer_instance.registered_commands[0].callback.__module__ for g in app.registered_groups}
    assert defined == {name: f"uner.cli.{module}" for name, module in COMMANDS.items()}
