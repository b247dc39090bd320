"""Every setting of a pretraining run, the learning-rate schedule and the run's seed."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..checks import at_least


EXTEND_INITS = ("mean", "context")  # where --extend-vocab starts new rows (see vocab.py)
SCHEDULES = ("constant", "linear", "cosine")  # the learning rate after warm-up (lr_factor)
HEAD_INITS = ("random", "identity")
SAVE_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class PretrainConfig:
    """Every setting of a pretraining run (saved with the run for reproducibility), validated at construction:
    a bad value raises ValueError with one line naming the field (``uner pretrain`` reports it as the option)."""

    sources: list[str]
    out_dir: str
    init: str | None = None  # model to continue; None = from scratch
    tokenizer: str | None = None  # from scratch: existing tokenizer; None = learn WordPiece
    vocab_size: int = 30522
    cased: bool = False
    layers: int = 6
    hidden: int = 384
    heads: int = 12
    intermediate: int = 1536
    max_len: int = 128
    batch_size: int = 64
    lr: float = 1e-4  # encoder
    head_lr: float = 1e-3  # a freshly added MLM head learns faster
    weight_decay: float = 0.01
    warmup_steps: int = 500
    schedule: str = "linear"  # SCHEDULES: constant | linear | cosine
    max_steps: int | None = None  # at least one of max_steps and max_time: the run stops at whichever ends first
    max_time: float | None = None  # seconds of training; the schedule follows whichever ends first
    mlm_prob: float = 0.15
    whole_word: bool = False
    nsp: bool = False
    head_init: str = "random"  # HEAD_INITS: random | identity (a freshly added BERT head's dense layer starts as I)
    eval_paragraphs: int = 100  # held out from the start of every source
    eval_every: int = 1000
    save_every: int = 1000
    log_every: int = 50
    seed: int | None = None  # None: 0, or one past the seed of the uner run being continued (new windows/masks)
    device: str | None = None
    save_dtype: str = "float32"  # SAVE_DTYPES: the exported model's
    bf16: bool | None = None  # bfloat16 autocast for training steps; None = on GPUs and CPUs with native bf16
    extend_vocab: int = 0  # continuing: add up to this many frequent many-piece corpus words to the vocabulary
    extend_min_count: int = 20  # … words seen at least this often
    extend_min_pieces: int = 3  # … that the tokenizer splits into at least this many pieces
    extend_from: tuple[str, ...] = ()  # … mined from these corpus files (empty: the training sources)
    extend_init: str = "context"  # EXTEND_INITS: new rows start at the "mean" of their pieces or their "context"s' state
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.sources, str) or isinstance(self.extend_from, str):
            raise ValueError("sources and extend_from are lists of corpus files, not one string")
        self.sources = list(self.sources)
        self.extend_from = tuple(str(p) for p in self.extend_from)
        if not self.sources:
            raise ValueError("sources: give at least one corpus file")
        if not str(self.out_dir):
            raise ValueError("out_dir must name a folder")
        for name, allowed in (("schedule", SCHEDULES), ("head_init", HEAD_INITS), ("save_dtype", SAVE_DTYPES),
                              ("extend_init", EXTEND_INITS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {getattr(self, name)!r}")
        if self.max_steps is None and self.max_time is None:
            raise ValueError("max_steps or max_time must be given: without a step or time budget the run never stops")
        at_least(self, 1, "max_steps", "vocab_size", "layers", "hidden", "heads", "intermediate", "batch_size",
                 "log_every", optional=True)
        at_least(self, 0, "warmup_steps", "eval_paragraphs", "eval_every", "save_every", "seed", "extend_vocab",
                 optional=True)
        at_least(self, 1, "extend_min_count", optional=True)
        at_least(self, 2, "extend_min_pieces", optional=True)
        at_least(self, 3, "max_len", optional=True)  # [CLS], a piece, [SEP]
        if self.max_time is not None and not self.max_time > 0:
            raise ValueError(f"max_time must be a positive number of seconds, not {self.max_time!r}")
        for name in ("lr", "head_lr"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in (0, 1], not {getattr(self, name)!r}")
        if not 0 <= self.weight_decay < 1:
            raise ValueError(f"weight_decay must be in [0, 1), not {self.weight_decay!r}")
        if not 0 < self.mlm_prob < 1:
            raise ValueError(f"mlm_prob must be in (0, 1), not {self.mlm_prob!r}")
        if self.init is None and self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be a multiple of heads ({self.heads})")
        if self.extend_vocab and self.init is None:
            raise ValueError("extend_vocab needs init: only a model being continued has a vocabulary to extend")
        if self.device is not None:
            try:
                torch.device(self.device)
            except RuntimeError:
                raise ValueError(f"device must be cpu, cuda, cuda:N, mps or another name torch.device takes, "
                                 f"not {self.device!r}") from None


def lr_factor(cfg: PretrainConfig, step: int, elapsed: float) -> float:
    """Linear warm-up, then the chosen decay over training progress (steps or time, whichever is further)."""
    warm = min(1.0, (step + 1) / cfg.warmup_steps) if cfg.warmup_steps else 1.0
    progress = 0.0
    if cfg.max_steps:
        progress = max(progress, step / cfg.max_steps)
    if cfg.max_time:
        progress = max(progress, elapsed / cfg.max_time)
    progress = min(progress, 1.0)
    if cfg.schedule == "constant":
        return warm
    if cfg.schedule == "cosine":
        return warm * 0.5 * (1 + math.cos(math.pi * progress))
    return warm * (1.0 - progress)


def _seed_of(folder: Path) -> int | None:
    """The seed a uner run trained ``folder`` with (its checkpoint state, else the run's run.json)."""
    if (folder / "trainer.pt").is_file():
        seed = torch.load(folder / "trainer.pt", map_location="cpu", weights_only=False)["state"].get("seed")
        if seed is not None:
            return seed
    run_file = folder.parent / "run.json"
    return json.loads(run_file.read_text()).get("seed") if run_file.is_file() else None


def run_seed(cfg: PretrainConfig) -> int:
    """The seed of the random windows and masks. Continuing a uner run with that run's seed would replay
    exactly its batches (same windows, same masks), so the default is one past it, and reusing it warns."""
    previous = _seed_of(Path(cfg.init)) if cfg.init and Path(cfg.init).is_dir() else None
    if cfg.seed is None:
        return 0 if previous is None else previous + 1
    if previous == cfg.seed:
        warnings.warn(f"{cfg.init} was trained with seed {cfg.seed}: this run replays its windows and masks; "
                      "give another --seed", stacklevel=2)
    return cfg.seed
