"""The README's examples run as written: each test takes its code block from README.md itself, so a README change
that breaks an example breaks a test."""

from __future__ import annotations

import re
from pathlib import Path

from uner.labels import load_types
from uner.paths import TYPES_FILE, labels_dir

README = Path(__file__).resolve().parents[1] / "README.md"


def python_block(containing: str) -> str:
    """The one ```python block of README.md that contains ``containing``."""
    blocks = [b for b in re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
              if containing in b]
    assert len(blocks) == 1, f"README.md: {len(blocks)} python blocks with {containing!r}"
    return blocks[0]


def test_the_spacy_example_gives_uner_s_entities(capsys):
    """`nlp.add_pipe("uner", ...)` in spaCy's English pipeline: the entities are uner's (its types, each with its
    type distribution in ``ent._.uner``), not spaCy's own NER's."""
    code = python_block('nlp.add_pipe("uner"')
    scope: dict = {}
    exec(compile(code, str(README), "exec"), scope)
    ents = scope["doc"].ents
    uner_types = set(load_types(labels_dir() / TYPES_FILE).types)
    assert len(ents) >= 2 and {e.label_ for e in ents} <= uner_types, [(e.text, e.label_) for e in ents]
    assert all(e._.uner for e in ents)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == str([(e.text, e.label_) for e in ents]) and len(printed) == 2


def test_the_readme_s_command_outputs_are_what_the_commands_print():
    """Every README block that starts with `$ uner …` shows that command's real output (run from the repository
    root), line by line: a changed model or a changed output format fails here."""
    import json
    import shlex
    import subprocess

    import pytest

    blocks = re.findall(r"^```\n\$ (uner [^\n]+)\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    assert blocks, "README.md: no `$ uner …` output blocks"
    for command, shown in blocks:
        res = subprocess.run(shlex.split(command), cwd=README.parent, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        printed = [json.loads(x) for x in res.stdout.splitlines()]
        for shown_record, record in zip([json.loads(x) for x in shown.splitlines()], printed, strict=True):
            scores = [e.pop("score") for e in shown_record["entities"]]  # (a CPU's bfloat16 moves the 3rd decimal)
            assert scores == pytest.approx([e.pop("score") for e in record["entities"]], abs=0.02), command
            assert shown_record == record, command
