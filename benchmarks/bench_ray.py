"""Tagging throughput: one process vs the Ray engine with 1 and 2 actors, same sentences, same machine.

    python -m benchmarks.bench_ray [--n 1000] [--batch-size 64] [--dtype auto]

Sentences: CoNLL-2003 valid (../shared/data/ner/conll2003/valid.txt, sentences of 4+ tokens joined by
spaces; the example file repeated where that is missing), written to one .txt file that every run reads.
single process: ``SerialRunner`` with torch's threads and with 1 thread, model loaded before the clock.
Ray: a local Ray started once (its start-up is timed apart), then one ``RayRunner`` job per actor count,
timed from submission to the last record, so it includes each actor's start and model load (a job's fixed
cost; the steady rate after it is also printed). Each run's entities (offsets and types) are compared with
the first run's: under bfloat16 a span's scores depend a little on which inputs share its model batch.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import torch

from uner.io.corpus import read_paragraphs
from uner.io.distributed import connect
from uner.io.inputs import FileRecords
from uner.models import cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import TagOptions
from uner.tagger.runners import RayRunner, SerialRunner

ROOT = Path(__file__).resolve().parents[1]
CONLL_DEV = ROOT.parent / "shared/data/ner/conll2003/valid.txt"


def sentences(n: int) -> tuple[list[str], str]:
    """``n`` sentences and where they came from."""
    if CONLL_DEV.is_file():
        texts = [p for p in read_paragraphs(CONLL_DEV) if len(p.split()) >= 4]
        source = "CoNLL-2003 dev"
    else:
        texts, source = (ROOT / "examples" / "sample.txt").read_text().splitlines(), "examples/sample.txt repeated"
    return [texts[i % len(texts)] for i in range(n)], source


def timed(runner, records: FileRecords) -> tuple[float, float, list[dict]]:
    """Seconds to the last record, seconds to the first, and the records."""
    t0 = time.perf_counter()
    out, first = [], None
    for rec in runner.run(records):
        first = first if first is not None else time.perf_counter() - t0
        out.append(rec)
    return time.perf_counter() - t0, first or 0.0, out


def agreement(out: list[dict], reference: list[dict]) -> str:
    """Share of records whose entities have the reference's offsets and types."""
    def key(rec: dict) -> list:
        return [(e["start"], e["end"], e["type"]) for e in rec["entities"]]

    same = sum(key(a) == key(b) for a, b in zip(out, reference)) / len(reference)
    return f"entities as the first run's in {same:.1%} of records"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--dtype", default="auto")
    args = ap.parse_args()
    texts, source = sentences(args.n)
    options = TagOptions(batch_size=args.batch_size)
    kwargs = {"dtype": args.dtype}
    print(f"CPU: {cpu_name()}; {os.cpu_count()} cores; native bf16 (AVX512-BF16) {cpu_has_bf16()}, "
          f"AMX {cpu_has_amx()}; load average at start {os.getloadavg()[0]:.1f}")
    print(f"{len(texts)} sentences ({source}), {args.batch_size} per batch, --dtype {args.dtype}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentences.txt"
        path.write_text("\n".join(texts) + "\n")
        records = FileRecords.find(str(path))
        rows, reference = [], None
        threads = torch.get_num_threads()
        for label, n_threads in ((f"single process, {threads} threads", threads), ("single process, 1 thread", 1)):
            t0 = time.perf_counter()
            runner = SerialRunner({**kwargs, "threads": n_threads}, options)
            load = time.perf_counter() - t0
            total, _, out = timed(runner, records)
            reference = reference or out
            rows.append((label, total, f"model load {load:.1f} s before the clock; {agreement(out, reference)}"))
        t0 = time.perf_counter()
        connect()
        print(f"Ray start-up (local, ray.init): {time.perf_counter() - t0:.1f} s")
        for actors in (1, 2):
            total, first, out = timed(RayRunner(kwargs, options, actors), records)
            steady = (len(texts) - args.batch_size) / max(total - first, 1e-9)
            rows.append((f"Ray, {actors} actor{'s' if actors > 1 else ''} (1 thread each)", total,
                         f"first batch after {first:.1f} s (actor start, model load), then {steady:.1f} records/s; "
                         f"{agreement(out, reference)}"))
    base = rows[0][1]
    for label, total, note in rows:
        print(f"  {label:36s} {total:7.1f} s  {len(texts) / total:7.1f} records/s  {base / total:5.2f}x  ({note})")


if __name__ == "__main__":
    main()
