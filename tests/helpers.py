"""Running the installed ``uner`` console script from tests."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

UNER = shutil.which("uner") or f"{sys.executable} -m uner.cli"


def uner(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run ``uner ARGS`` and capture its output (text)."""
    return subprocess.run([*UNER.split(), *args], input=stdin, capture_output=True, text=True, timeout=300)


def tagged_record(text: str, *tagged: tuple[str, str]) -> dict:
    """A record of ``uner tag`` output: ``text`` with an entity of each (part, type), in order (each part found after
    the one before)."""
    ents, at = [], 0
    for part, type_ in tagged:
        start = text.index(part, at)
        ents.append({"text": part, "start": start, "end": start + len(part), "type": type_, "subtype": None})
        at = start + len(part)
    return {"text": text, "entities": ents}


def table_stage_folder(path, stage: str, table, **settings) -> str:
    """A labels folder at ``path`` whose ``stages/<stage>.yaml`` holds ``settings`` and names ``table`` (a learned
    table with ``save``), saved beside it: what a stage that reads a table is tested with."""
    import yaml

    (path / "stages").mkdir(parents=True)
    table.save(path / "stages" / f"{stage}.tsv")
    (path / "stages" / f"{stage}.yaml").write_text(yaml.safe_dump({"table": f"{stage}.tsv", **settings}),
                                                   encoding="utf-8")
    return str(path)


def predictions(stdout: str) -> list[list[str]]:
    """Predicted tokens per mask line of `uner fill` output."""
    rows = []
    for line in stdout.splitlines():
        if line.strip().startswith("mask "):
            rows.append(re.findall(r"(\S+) -?\d+\.\d+(?: \[\w+\])?", line.split(":", 1)[1]))
    return rows


# the biomedical domain's stages, in order
BIO_STAGES = ("abbreviations", "phrase_bounds", "word_endings", "hyphen_compounds", "name_pieces", "degree_modifiers",
              "leading_counts", "rarely_tagged", "lexicon", "class_nouns", "bare_heads", "coordinated_heads",
              "trailing_heads", "repeated_names")
# the shipped biomedical student's (its tagger.yaml): those of the domain's that still pay through it, and conventions
STUDENT_BIO_STAGES = ("abbreviations", "phrase_bounds", "word_endings", "hyphen_compounds", "name_pieces",
                      "rarely_tagged", "lexicon", "coordinated_heads", "trailing_heads", "repeated_names")
# JNLPBA's: the domain's, then the two its mapping turns on (its annotation convention: uner/mappings/jnlpba.yaml)
JNLPBA_STAGES = (*BIO_STAGES, "head_subtypes", "named_lines")
