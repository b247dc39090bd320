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


def predictions(stdout: str) -> list[list[str]]:
    """Predicted tokens per mask line of `uner fill` output."""
    rows = []
    for line in stdout.splitlines():
        if line.strip().startswith("mask "):
            rows.append(re.findall(r"(\S+) -?\d+\.\d+(?: \[\w+\])?", line.split(":", 1)[1]))
    return rows


# the biomedical domain's stages, in order
BIO_STAGES = ("abbreviations", "phrase_bounds", "word_endings", "hyphen_compounds", "name_pieces", "piece_bounds",
              "degree_modifiers", "leading_counts", "rarely_tagged", "contained_names", "derived_adjectives", "lexicon",
              "class_nouns", "bare_heads", "coordinated_heads", "head_subtypes", "named_lines")
