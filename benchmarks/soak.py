"""Soak test: an engine over many real paragraphs of each corpus, as ``uner tag`` runs them (``tag_records``).

A run must never end on one paragraph: it reports crashes (an exception out of the run; must be 0), records
with an ``error``, paragraphs/s and resident memory at 10 %, 50 % and 100 % of the run (must stay flat).
Paragraphs are the corpus lines cut at sentence ends into pieces of 40–400 characters, in file order.

    python -m benchmarks.soak --engine student --paragraphs 100000
    python -m benchmarks.soak --engine teacher --paragraphs 1000
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import resource
import time
from collections.abc import Iterator
from pathlib import Path

from uner.io import read_paragraphs
from uner.io import Record
from uner.models import cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import load_tagger, tag_records

CORPORA = {  # name -> (files, teacher model, student model)
    "wikipedia": (["enwiki_2013_subset.txt.xz"], None, None),
    "news": (["reuters21578.txt.gz", "bbc_news_2004.txt.xz", "abc.txt.gz"], None, None),
    "biomedical": (["biomed_abstracts.txt.xz", "biomed_docs.txt.xz"], "uner-bio", "uner-student-bio"),
    "books": (["gutenberg_books_sample.txt.xz"], None, None),
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _pieces(line: str) -> Iterator[str]:
    """One line cut at sentence ends into pieces of up to 400 characters (a longer sentence stays whole)."""
    piece = ""
    for sentence in _SENTENCE_END.split(line):
        if piece and len(piece) + 1 + len(sentence) > 400:
            if len(piece) >= 40:
                yield piece
            piece = ""
        piece = f"{piece} {sentence}".strip()
    if 40 <= len(piece) <= 400:
        yield piece


def paragraphs(files: list[Path], limit: int) -> Iterator[str]:
    """The first ``limit`` pieces of 40–400 characters of the files' lines, in file order."""
    return itertools.islice((p for path in files for line in read_paragraphs(path) for p in _pieces(line)), limit)


def rss_mb() -> float:
    """Resident memory of this process now (MB)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(engine: str, corpus: str, files: list[Path], limit: int, model: str | None, batch_size: int) -> dict:
    tagger = load_tagger(engine=engine, model=model, **({} if engine == "student" else {"device": "cpu"}))
    texts = list(paragraphs(files, limit))
    marks = {max(1, round(len(texts) * p)): f"rss_{int(p * 100)}" for p in (0.1, 0.5, 1.0)}
    row = {"engine": engine, "corpus": corpus, "model": model or "default", "paragraphs": len(texts), "crashes": 0,
           "errors": 0, "rss_start": round(rss_mb())}
    records = (Record(n, str(n), t, {}) for n, t in enumerate(texts, 1))
    t0 = time.perf_counter()
    done = 0
    try:
        for out in tag_records(tagger, records, batch_size=batch_size):
            done += 1
            row["errors"] += "error" in out
            if done in marks:
                row[marks[done]] = round(rss_mb())
    except Exception as exc:  # a crash: the whole run would have ended here
        row["crashes"] = 1
        row["crash"] = f"after {done} paragraphs: {type(exc).__name__}: {exc}"
    row["seconds"] = round(time.perf_counter() - t0, 1)
    row["per_second"] = round(done / row["seconds"], 1)
    row["peak_rss"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", choices=["teacher", "student"], default="student")
    parser.add_argument("--paragraphs", type=int, default=100_000, help="per corpus")
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--corpus-dir", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "data" / "corpus")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--out", type=Path, help="append each row here as JSON")
    args = parser.parse_args()
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; native bf16 (AVX512-BF16) {cpu_has_bf16()}, AMX {cpu_has_amx()}",
          flush=True)
    print("| engine | corpus | model | paragraphs | crashes | error records | paragraphs/s | RSS MB at 10 / 50 / 100 % |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for corpus in args.corpora:
        names, teacher_model, student_model = CORPORA[corpus]
        row = soak(args.engine, corpus, [args.corpus_dir / n for n in names], args.paragraphs,
                   student_model if args.engine == "student" else teacher_model, args.batch_size)
        rss = " / ".join(str(row.get(k, "-")) for k in ("rss_10", "rss_50", "rss_100"))
        print(f"| {row['engine']} | {corpus} | {row['model']} | {row['paragraphs']:,} | {row['crashes']} | "
              f"{row['errors']} | {row['per_second']} | {rss} |" + (f" {row['crash']}" if row["crashes"] else ""),
              flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
