"""Where tagging runs: in this process, or over worker processes (each with its own model).

A runner is made from the ``Tagger.from_pretrained`` arguments and ``TagOptions`` and turns input
records into output records, in order. ``RUNNERS`` maps a name to a runner class, so another way of
running (a Ray cluster …) is one new class registered here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict
from typing import Protocol

from ..io import Record, batched
from ..spans import load_spacy
from .core import Tagger
from .records import TagOptions, tag_records


class Runner(Protocol):
    """Tags records in order; ``nlp`` is a spaCy pipeline that tokenizes as the tagging did (CoNLL output)."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int = 1) -> None: ...

    def run(self, records: Iterable[Record]) -> Iterator[dict]: ...

    @property
    def nlp(self): ...


class SerialRunner:
    """One tagger in this process; the model loads at construction (so a bad model fails early)."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int = 1) -> None:
        self.tagger = Tagger.from_pretrained(**tagger_kwargs)
        self.options = options

    def run(self, records: Iterable[Record]) -> Iterator[dict]:
        return tag_records(self.tagger, records, **asdict(self.options))

    @property
    def nlp(self):
        return self.tagger.nlp


_WORKER: dict = {}


def _worker_init(tagger_kwargs: dict, options: TagOptions) -> None:
    import torch

    torch.set_num_threads(1)
    _WORKER["runner"] = SerialRunner(tagger_kwargs, options)


def _worker_run(chunk: list[Record]) -> list[dict]:
    return list(_WORKER["runner"].run(chunk))


class ProcessRunner:
    """``workers`` spawned processes, each with its own model and one thread; chunks of ``batch_size``
    records go out and come back in order. Only the workers load the model; construction only checks
    that it can be found."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int = 2) -> None:
        from ..models import resolve_model

        resolve_model(tagger_kwargs.get("model"))  # fail here, not in every worker
        self.tagger_kwargs = tagger_kwargs
        self.options = options
        self.workers = workers

    def run(self, records: Iterable[Record]) -> Iterator[dict]:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(self.workers, _worker_init, (self.tagger_kwargs, self.options)) as pool:
            for out in pool.imap(_worker_run, batched(records, self.options.batch_size)):
                yield from out

    @property
    def nlp(self):
        return load_spacy()


RUNNERS: dict[str, type[Runner]] = {"serial": SerialRunner, "processes": ProcessRunner}


def make_runner(tagger_kwargs: dict, options: TagOptions, workers: int = 1, name: str | None = None) -> Runner:
    """The runner called ``name`` (default: serial for one worker, processes for more)."""
    name = name or ("serial" if workers == 1 else "processes")
    if name not in RUNNERS:
        raise ValueError(f"unknown runner {name!r} ({', '.join(RUNNERS)})")
    return RUNNERS[name](tagger_kwargs, options, workers)
