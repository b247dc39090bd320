"""Ray Data jobs (``pip install 'uner[ray]'``): the engine of ``uner tag --engine ray`` and ``uner embed --engine ray``
(their actors: ``uner.tagger.runners`` and ``uner.vectors.embeddings``).

Records go through ``map_batches`` with a callable class, so each of ``num_actors`` actors builds its model
once and then handles one batch per call. Input files named by a ``FileRecords`` are read by the cluster
(one read task per file, so the shards of a big corpus are read in parallel; on a cluster their paths must
be the same on every node, e.g. a shared file system); stdin, a FIFO or records in memory are collected
here first. Order: ``preserve_order`` makes Ray's streaming executor hand on blocks in input order (it
holds back any that finish early), so results come back in the order the records went in — no sort and
no shuffle of the corpus — and an output file is line for line what the serial engine writes.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from .inputs import FileRecords
from .records import InputError, Record

INSTALL_HINT = "pip install 'uner[ray]'"


class MissingExtra(ImportError):
    """An optional extra (Ray, ONNX Runtime) is not installed; the message is one line saying how to install it."""


def require_ray():
    """The ``ray`` module with Ray Data, or MissingExtra."""
    try:
        import ray
        import ray.data  # noqa: F401  (the data extra: pyarrow, pandas)
    except ImportError:
        raise MissingExtra(f"--engine ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


@dataclass(frozen=True)
class RayOptions:
    """How a job maps onto Ray: actors (``concurrency``; None: cluster CPUs / ``num_cpus_per_actor``),
    records per ``map_batches`` call, CPUs reserved per actor (its torch threads), and the cluster
    (``address``: "auto" for the one ``ray start --head`` runs here, ``ray://HOST:10001``; None starts a local one)."""

    num_actors: int | None = None
    batch_size: int = 64
    num_cpus_per_actor: float = 1.0
    address: str | None = None

    @property
    def threads(self) -> int:
        """Torch threads per actor: its CPUs."""
        return max(1, int(self.num_cpus_per_actor))


def connect(address: str | None = None) -> None:
    """Join the cluster at ``address`` or start a local Ray (once per process); results keep input order.

    A local Ray gets one logical CPU more than the machine has: input blocks are cut to one batch each by
    a light task that needs a CPU, and with one actor per core it would otherwise never be scheduled."""
    ray = require_ray()
    if not ray.is_initialized():  # workers' output stays in Ray's logs: stdout may be the JSONL output
        ray.init(address=address, num_cpus=None if address else (os.cpu_count() or 1) + 1, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.WARNING)
    ray.data.DataContext.get_current().execution_options.preserve_order = True


def actor_count(options: RayOptions) -> int:
    """How many actors fit beside the one CPU that the input's reading needs: ``options.num_actors``
    (ValueError when they do not fit) or, by default, as many as fit."""
    ray = require_ray()
    cpus = ray.cluster_resources().get("CPU", 1) - 1
    fit = int(cpus // options.num_cpus_per_actor)
    if fit < 1 or (options.num_actors or 0) > fit:
        raise ValueError(f"{options.num_actors or 1} actor(s) of {options.num_cpus_per_actor:g} CPUs do not fit in the "
                         f"cluster's CPUs beside the one kept for reading the input ({cpus:g} left): use at most "
                         f"{fit} actor(s) or fewer --num-cpus-per-actor")
    return options.num_actors or fit


def map_records(records: Iterable[Record], actor: type, args: tuple, options: RayOptions) -> Iterator[dict]:
    """Batches (column name → array) that ``actor(*args)`` returns for ``batch_records`` of the records, in
    input order. An exception raised in the cluster (a file that cannot be read) is raised here as itself."""
    ray = require_ray()
    connect(options.address)
    pool = ray.data.ActorPoolStrategy(size=actor_count(options))
    # blocks of one batch each, so that every actor gets work even from a single input file
    results = _dataset(records).repartition(target_num_rows_per_block=options.batch_size).map_batches(
        actor, fn_constructor_args=args, batch_size=options.batch_size, compute=pool,
        num_cpus=options.num_cpus_per_actor, batch_format="numpy")
    try:
        yield from results.iter_batches(batch_size=None, batch_format="numpy")
    except ray.exceptions.RayTaskError as exc:
        if isinstance(getattr(exc, "cause", None), Exception):
            raise exc.cause from None
        raise


def _dataset(records: Iterable[Record]):
    ray = require_ray()
    if isinstance(records, FileRecords) and records.on_disk:
        starts = [{"path": os.path.abspath(part.files[0]), "name": part.files[0], "file": (part.names or ("",))[0],
                   "skip": part.skip} for part in records.parts()]
        reading = {"fmt": records.fmt, "encoding": records.encoding, "keep_bad": records.keep_bad}
        # num_cpus=0: reading is light, and the actors may hold every CPU (a task waiting for one would never run)
        return ray.data.from_items(starts, override_num_blocks=max(1, len(starts))).flat_map(
            _read_file, fn_kwargs=reading, num_cpus=0)
    return ray.data.from_items([_row(r) for r in records])


def _read_file(item: dict, **reading) -> Iterator[dict]:
    """The rows of one input file (in a Ray task), opened by its absolute path, named in errors as given."""
    path, name = item["path"], item["name"]
    try:
        for rec in FileRecords((path,), skip=int(item["skip"]), names=(item["file"] or None,), **reading):
            yield _row(rec, path, name)
    except InputError as exc:
        raise InputError(str(exc).replace(path, name, 1)) from None


def _row(rec: Record, path: str = "", name: str = "") -> dict:
    error = (rec.error or "").replace(path, name, 1) if path else rec.error or ""
    return {"line": rec.line, "id": rec.id, "text": rec.text, "fields": json.dumps(rec.fields, ensure_ascii=False),
            "error": error, "file": rec.file or ""}


def batch_records(batch: dict[str, np.ndarray]) -> list[Record]:
    """The records of a batch of rows, as the reader made them."""
    columns = (batch[k] for k in ("line", "id", "text", "fields", "error", "file"))
    return [Record(int(line), str(id_), str(text), json.loads(fields), str(error) or None, str(file) or None)
            for line, id_, text, fields, error, file in zip(*columns)]


def local_path(path: str) -> str:
    """An existing path made absolute (workers may not share this process's working folder), else unchanged."""
    return os.path.abspath(path) if os.path.exists(path) else path
