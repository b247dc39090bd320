"""Stage 4 of distillation: train the student with spaCy's own training loop and config system.

``student.cfg`` (beside this file) is the pipeline and its hyper-parameters; ``train_student`` points it at
the selected data and a step budget (config overrides, as ``spacy train`` takes them) and keeps the
checkpoint that agrees best with the teacher on the held-out sentences (spaCy's ``model-best``). Given a trained
student (``init``), its components, vectors and labels are where training starts (spaCy's sourced components),
with the labels of the selected data it lacks added (``EntityTagger.grow``): a stronger teacher, or one with more
labels, refines a student that a faster one taught on many more sentences.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import spacy
from spacy.cli.train import train
from spacy.util import load_config

from ..checks import at_least
from ..io import atomic_dir

CONFIG = Path(__file__).resolve().parent / "student.cfg"


def check_casing(lower: float, upper: float) -> None:
    """The case augmenter's shares (augment.py) are valid: each >= 0, together at most 1."""
    if min(lower, upper) < 0 or lower + upper > 1:
        raise ValueError(f"lowercase ({lower}) and uppercase ({upper}) must each be >= 0 and together at most 1 "
                         "(shares of the training examples shown in lower and upper case)")


@dataclass(frozen=True)
class TrainConfig:
    """The step budget of one training run (the rest is ``student.cfg``)."""

    max_steps: int = 20_000
    eval_frequency: int = 1_000
    patience: int = 5_000  # stop after this many steps without a better held-out score
    lowercase: float = 0.2  # share of training sentences shown lower-cased (names in informal text often are)
    uppercase: float = 0.2  # share shown upper-cased (headlines and datelines are): augment.py
    seed: int = 0

    def __post_init__(self) -> None:
        at_least(self, 1, "max_steps", "eval_frequency")
        at_least(self, 0, "patience", "seed")
        check_casing(self.lowercase, self.uppercase)

    def overrides(self, train: Path, heldout: Path, vectors: Path | None = None) -> dict:
        """``student.cfg`` overrides for this run; without ``vectors`` (a spaCy folder of static word vectors,
        ``vectors.build_teacher_vectors``) the student has hash embeddings only."""
        return {"paths.train": str(train), "paths.dev": str(heldout), "training.max_steps": self.max_steps,
                "training.eval_frequency": self.eval_frequency, "training.patience": self.patience,
                "corpora.train.augmenter.lower": self.lowercase,
                "corpora.train.augmenter.upper": self.uppercase, "system.seed": self.seed,
                "paths.vectors": str(vectors) if vectors else None,
                "components.tok2vec.model.embed.include_static_vectors": vectors is not None}


def train_student(data_dir: str | Path, out: str | Path, config: TrainConfig = TrainConfig(),
                  config_path: str | Path = CONFIG, vectors: str | Path | None = None,
                  init: str | Path | None = None) -> Path:
    """Train on ``data_dir/train.spacy`` (choosing the checkpoint on ``data_dir/heldout.spacy``) and save the
    best pipeline as ``out`` (a spaCy pipeline folder, swapped in atomically); spaCy logs its progress.
    ``vectors``: a spaCy folder of static word vectors the student reads beside its hash embeddings; ``init``: a
    trained student folder to go on training (its own vectors then, ``vectors`` is not used), grown by the labels
    of ``data_dir/selection.json`` it lacks."""
    data_dir, out = Path(data_dir), Path(out)
    for name in ("train.spacy", "heldout.spacy"):
        if not (data_dir / name).is_file():
            raise FileNotFoundError(f"{data_dir / name}: missing; run the select stage first")
    overrides = config.overrides(data_dir / "train.spacy", data_dir / "heldout.spacy",
                                 Path(init or vectors) if init or vectors else None)

    def write(tmp: Path) -> None:
        runs, path = tmp / "runs", Path(config_path)
        if init is not None:
            grown = grown_student(Path(init), selected_labels(data_dir), tmp / "init")
            path = sourced_config(config_path, grown, tmp / "sourced.cfg")
            overrides.pop("components.tok2vec.model.embed.include_static_vectors")  # (the source's own setting)
        train(path, runs, overrides=overrides)
        for item in (runs / "model-best").iterdir():
            shutil.move(str(item), tmp / item.name)
        shutil.rmtree(runs)
        if init is not None:
            path.unlink()
            shutil.rmtree(grown)

    atomic_dir(out, write)
    return out


def selected_labels(data_dir: Path) -> list[str]:
    """The entity labels of the selected data (``selection.json``, written by ``select``)."""
    report = json.loads((data_dir / "selection.json").read_text(encoding="utf-8"))
    return sorted(report["entities"])


def grown_student(init: Path, labels: list[str], out: Path) -> Path:
    """A copy of the student ``init`` at ``out`` that also has the entity ``labels`` it lacks (its ``ner``
    component's output widened, ``EntityTagger.grow``)."""
    if not (init / "meta.json").is_file():
        raise FileNotFoundError(f"{init}: not a student pipeline folder (no meta.json)")
    nlp = spacy.load(init)
    nlp.get_pipe("ner").grow(labels)
    nlp.to_disk(out)
    return out


def sourced_config(config_path: str | Path, init: Path, out: Path) -> Path:
    """``config_path`` with its components taken from the trained pipeline ``init`` (weights, labels, settings),
    written to ``out``."""
    cfg = load_config(config_path)
    for name in cfg["nlp"]["pipeline"]:
        cfg["components"][name] = {"source": str(init.resolve())}
    cfg.to_disk(out)
    return out
