"""Teachers and students side by side on the same sentences, in one run: sentences/s (medians) and peak memory.

    python -m benchmarks.bench_teachers [--teachers uner-minilm-l6,uner-mpnet-base] [--students uner-student,…]
                                        [--n 100] [--repeats 3]

Sentences: CoNLL-2003 valid (../shared/data/ner/conll2003/valid.txt), those of four words or more. Each teacher
runs as ``Tagger.tag`` does (its default dtype, ``auto``: the choice and why are printed), after a warm-up pass,
with a fresh prediction cache per repeat; each student likewise (five times the repeats: one run is short). The
ratios are to the first teacher. Peak memory: a fresh process per engine, loading it and tagging the sentences.
"""

from __future__ import annotations

import argparse
import statistics
import time

from uner.io.corpus import read_paragraphs
from uner.models import auto_cpu_dtype, cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.paths import student_dir
from uner.tagger import PredictionCache, Student, Tagger

from .bench_tag import CONLL_DEV, peak_memory_mb
from .teacher_backends import FLAGS, cpu_flags


def median_seconds(run, repeats: int) -> float:
    """The median time of ``repeats`` calls of ``run`` after one untimed warm-up call."""
    run()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--teachers", default="uner-minilm-l6,uner-mpnet-base")
    ap.add_argument("--students", default="uner-student")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not CONLL_DEV.is_file():
        raise SystemExit(f"{CONLL_DEV}: CoNLL-2003 dev data not found (../shared is needed)")
    texts = [p for p in read_paragraphs(CONLL_DEV) if len(p.split()) >= 4][: args.n]
    print(f"CPU: {cpu_name()}; native bf16 (AVX512-BF16) {cpu_has_bf16()}, AMX {cpu_has_amx()}; flags: "
          f"{' '.join(cpu_flags()) or 'none of ' + ' '.join(FLAGS)}")
    print(f"{len(texts)} CoNLL-2003 dev sentences, medians of {args.repeats} (students: {5 * args.repeats})")
    base = None
    for name in args.teachers.split(","):
        tagger = Tagger.from_pretrained(name, device="cpu", dtype="auto")
        seconds = median_seconds(lambda: list(tagger.tag(texts, cache=PredictionCache())), args.repeats)
        dtype = str(next(tagger.mlm.model.parameters()).dtype).replace("torch.", "")
        base = base or seconds
        memory = peak_memory_mb("teacher", "auto", texts, name)
        print(f"  teacher {name:<18} {len(texts) / seconds:8.1f} sentences/s  {base / seconds:5.2f}x  "
              f"peak {memory:5.0f} MB  ({dtype}: {auto_cpu_dtype(tagger.mlm.model.config)[1]})")
        del tagger
    for name in args.students.split(","):
        folder = str(student_dir(name))
        student = Student.from_pretrained(folder)
        seconds = median_seconds(lambda: list(student.tag(texts)), 5 * args.repeats)
        memory = peak_memory_mb("student", folder, texts)
        print(f"  student {name:<18} {len(texts) / seconds:8.1f} sentences/s  {base / seconds:5.2f}x  "
              f"peak {memory:5.0f} MB")


if __name__ == "__main__":
    main()
