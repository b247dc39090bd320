"""Where tagging runs: in this process, over worker processes, or over Ray actors (each with its own model).

A runner is made from the ``load_tagger`` arguments (``Tagger.from_pretrained``'s and ``ensemble``) and ``TagOptions`` and turns input
records into output records, in order. ``RUNNERS`` maps a name to a runner class, so another way of
running is one new class registered here.
"""

from __future__ import annotations

import json
import multiprocessing as mp
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from typing import Protocol

import torch

from ..io import RayOptions, Record, actor_count, batch_records, batched, connect, local_path, map_records, require_ray
from ..labels import LabelsFolder
from ..models import resolve_model
from ..spans import load_spacy
from .config import TaggerConfig
from .loading import load_tagger
from .records import ModelFailure, TagOptions, tag_records


class Runner(Protocol):
    """Tags records in order; ``nlp`` is a spaCy pipeline that tokenizes as the tagging did (CoNLL output),
    ``stages`` the post-typing stages its tagger runs with the labels folder whose word lists they read (what a
    document pass runs after it: ``records.in_documents``). ``threads``: the torch threads each copy of its model
    runs with, for the ``tagger_kwargs`` and settings it would be made with (None: they do not matter)."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int | None = 1) -> None: ...

    def run(self, records: Iterable[Record]) -> Iterator[dict]: ...

    @property
    def nlp(self): ...

    @property
    def stages(self) -> tuple[tuple[str, ...], str | None]: ...

    @classmethod
    def threads(cls, tagger_kwargs: dict, **settings) -> int | None: ...


class SerialRunner:
    """One tagger in this process; the model loads at construction (so a bad model fails early)."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int = 1) -> None:
        self.tagger = load_tagger(**tagger_kwargs)
        self.options = options

    def run(self, records: Iterable[Record]) -> Iterator[dict]:
        return tag_records(self.tagger, records, **asdict(self.options))

    @property
    def nlp(self):
        return self.tagger.nlp

    @property
    def stages(self) -> tuple[tuple[str, ...], str | None]:
        return self.tagger.stages, self.tagger.stage_folder

    @classmethod
    def threads(cls, tagger_kwargs: dict, **settings) -> int | None:
        return tagger_kwargs.get("threads") or torch.get_num_threads()


_WORKER: dict = {}


def teacher_stages(tagger_kwargs: dict) -> tuple[tuple[str, ...], str]:
    """The post-typing stages of the teacher that ``tagger_kwargs`` load, with the labels folder whose word lists
    they read, as ``Tagger.from_pretrained`` finds them, without loading it: for a runner whose workers load it."""
    folder = LabelsFolder.of(tagger_kwargs.get("labels"), tagger_kwargs.get("model"))
    return (tagger_kwargs.get("config") or TaggerConfig.for_labels(folder)).stages, str(folder.path)


def check_models(tagger_kwargs: dict) -> None:
    """ModelNotFoundError (one line) for a missing model or ensemble member, before any worker starts."""
    for name in [tagger_kwargs.get("model"), *(s.rsplit(":", 1)[0] for s in tagger_kwargs.get("ensemble", ()))]:
        resolve_model(name)


def _worker_init(tagger_kwargs: dict, options: TagOptions) -> None:
    """Load the worker's tagger; a failure is kept for its first chunk to report (raised here, it would make the
    pool start a new worker, and fail, forever)."""
    torch.set_num_threads(1)
    try:
        _WORKER["runner"] = SerialRunner(tagger_kwargs, options)
    except Exception as exc:  # (whatever it is, the parent has to hear it once)
        _WORKER["failure"] = f"a worker could not load the tagger: {exc}"


def _worker_run(chunk: list[Record]) -> list[dict]:
    if "failure" in _WORKER:
        raise ModelFailure(_WORKER["failure"])
    return list(_WORKER["runner"].run(chunk))


class ProcessRunner:
    """``workers`` spawned processes (None: one per CPU), each with its own model and one thread; chunks of
    ``batch_size`` records go out and come back in order. Only the workers load the model; construction only checks
    that it can be found."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int | None = 2) -> None:
        check_models(tagger_kwargs)  # fail here, not in every worker
        self.tagger_kwargs = tagger_kwargs
        self.options = options
        self.workers = workers

    def run(self, records: Iterable[Record]) -> Iterator[dict]:
        with mp.get_context("spawn").Pool(self.workers, _worker_init, (self.tagger_kwargs, self.options)) as pool:
            for out in pool.imap(_worker_run, batched(records, self.options.batch_size)):
                yield from out

    @property
    def nlp(self):
        return load_spacy()

    @property
    def stages(self) -> tuple[tuple[str, ...], str]:
        return teacher_stages(self.tagger_kwargs)

    @classmethod
    def threads(cls, tagger_kwargs: dict, **settings) -> int:
        return tagger_kwargs.get("threads") or 1  # (``_worker_init``)


class _RayTagger:
    """One Ray actor's tagger: built once, when the actor starts; each call tags one batch of input rows."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions) -> None:
        self.runner = SerialRunner(tagger_kwargs, options)

    def __call__(self, batch: dict) -> dict:
        return {"record": [json.dumps(r, ensure_ascii=False) for r in self.runner.run(batch_records(batch))]}


class RayRunner:
    """``workers`` Ray Data actors (``map_batches`` with ``concurrency``; None: one per CPU of the cluster),
    each loading the model once, ``options.batch_size`` records per call; input files are read by the
    cluster and records come back in input order (``uner.io.distributed``). Bad records get their ``error``
    from the same code as in the other runners. Joins the cluster at ``address`` (default: starts a local
    Ray) at construction, so a missing Ray or a wrong address fails before any work."""

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int | None = None, *,
                 num_cpus_per_actor: float = 1.0, address: str | None = None) -> None:
        require_ray()
        check_models(tagger_kwargs)  # fail here, not in every actor
        self.cluster = RayOptions(workers, options.batch_size, num_cpus_per_actor, address)
        paths = {k: local_path(str(v)) for k in ("model", "labels", "stop_descriptors") if (v := tagger_kwargs.get(k))}
        self.tagger_kwargs = {**tagger_kwargs, **paths, "threads": tagger_kwargs.get("threads") or self.cluster.threads}
        self.options = options
        connect(address)
        actor_count(self.cluster)  # too many actors for the cluster: fail now

    def run(self, records: Iterable[Record]) -> Iterator[dict]:
        for batch in map_records(records, _RayTagger, (self.tagger_kwargs, self.options), self.cluster):
            for line in batch["record"]:
                yield json.loads(line)

    @property
    def nlp(self):
        return load_spacy()

    @property
    def stages(self) -> tuple[tuple[str, ...], str]:
        return teacher_stages(self.tagger_kwargs)

    @classmethod
    def threads(cls, tagger_kwargs: dict, *, num_cpus_per_actor: float = 1.0, **settings) -> int:
        return tagger_kwargs.get("threads") or RayOptions(num_cpus_per_actor=num_cpus_per_actor).threads


class StudentRunner(SerialRunner):
    """The student tagger (``uner distill``) in this process instead of the masked LM: ``tagger_kwargs["model"]``
    is its pipeline folder (default: the shipped ``uner-student``), ``tagger_kwargs["stages"]`` its post-typing stages
    (default: the folder's), ``tagger_kwargs["min_score"]`` its score cut; the other tagger arguments do not apply."""

    masked_lm = False  # (no dtype to choose, no labels folder)

    def __init__(self, tagger_kwargs: dict, options: TagOptions, workers: int | None = 1) -> None:
        self.tagger = load_tagger(engine="student", **{k: tagger_kwargs.get(k) for k in ("model", "stages", "min_score")})
        self.options = options

    @classmethod
    def threads(cls, tagger_kwargs: dict, **settings) -> None:
        return None  # (no torch model)


RUNNERS: dict[str, type[Runner]] = {"serial": SerialRunner, "processes": ProcessRunner, "ray": RayRunner,
                                    "student": StudentRunner}


def runner_name(name: str | None, workers: int | None = 1) -> str:
    """The runner called ``name``, by default serial for one worker and processes for more; ValueError for a name
    not in ``RUNNERS``."""
    name = name or ("serial" if (workers or 1) == 1 else "processes")
    if name not in RUNNERS:
        raise ValueError(f"unknown runner {name!r} ({', '.join(RUNNERS)})")
    return name


def make_runner(tagger_kwargs: dict, options: TagOptions, workers: int | None = 1, name: str | None = None,
                **settings) -> Runner:
    """The runner called ``name`` (``runner_name``) with ``workers`` copies of the model (None: the runner's
    default, one per CPU); ``settings`` go to it (Ray: ``num_cpus_per_actor``, ``address``)."""
    return RUNNERS[runner_name(name, workers)](tagger_kwargs, options, workers, **settings)


def placement(tagger_kwargs: dict, workers: int | None = 1, name: str | None = None, **settings) -> dict:
    """Of where a run tags, what shapes its records (for the record of a run, ``partial.run_record``): the runner
    (a process pool cuts its batches and caches per chunk) and the torch threads of each copy of the model (they
    size its batches and order its sums: scores move in the 4th decimal); not how many copies run."""
    name = runner_name(name, workers)
    return {"engine": name, "threads": RUNNERS[name].threads(tagger_kwargs, **settings)}
