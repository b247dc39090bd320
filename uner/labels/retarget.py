"""A labels folder carried to another model term by term (``uner labels retarget``).

A compiled table is indexed by its model's vocabulary ids; another model with the same terms (all-mpnet-base-v2
and MiniLM share their WordPieces under other ids) can vote with the same labels once each row follows its term.
Everything a person decided (clusters.yaml, terms.tsv, seeds, types, stages, calibration) is copied as it is;
the copy's ``tagger.yaml`` names the new model where the source folder has one (an adapted folder), so that
``--model <folder>`` runs it.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..io import atomic_dir
from ..paths import LABEL_TABLE_FILE, TAGGER_FILE
from .table import LabelTable


@dataclass(frozen=True)
class Retargeted:
    """What ``retarget`` did: the folder written, the labelled terms carried and those the new vocabulary lacks."""

    folder: Path
    terms: int
    lost: int

    def __str__(self) -> str:
        return f"{self.terms:,} labelled terms carried, {self.lost:,} not in the new vocabulary -> {self.folder}"


def retarget(src: Path, out: Path, old_vocab: list[str], new_vocab: list[str], model: str) -> Retargeted:
    """Copy labels folder ``src`` to ``out`` (a new folder, written whole or not at all) with its table indexed by
    ``new_vocab``; FileExistsError when ``out`` exists, FileNotFoundError when ``src`` has no table."""
    if out.exists():
        raise FileExistsError(f"{out}: already exists; give a new folder")
    table = LabelTable.load(src / LABEL_TABLE_FILE)  # (FileNotFoundError naming the file when missing)
    if table.vocab_size != len(old_vocab):
        raise ValueError(f"{src / LABEL_TABLE_FILE}: indexed by {table.vocab_size} terms, but the model it is "
                         f"carried from has {len(old_vocab)}; give that model as the source model")
    carried, lost = table.carried(old_vocab, new_vocab)

    def write(tmp: Path) -> None:
        shutil.copytree(src, tmp, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.bak", "*.tmp"))
        carried.save(tmp / LABEL_TABLE_FILE)
        settings = tmp / TAGGER_FILE
        if settings.is_file():
            text = settings.read_text(encoding="utf-8")
            line = f"model: {model}"
            text, n = re.subn(r"(?m)^model:.*$", line, text)
            settings.write_text(text if n else text.rstrip("\n") + f"\n{line}\n", encoding="utf-8")

    atomic_dir(out, write)
    return Retargeted(out, len(table.labelled_terms()) - lost, lost)
