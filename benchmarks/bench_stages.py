"""What the post-typing stages cost beside the tagging itself: the biomedical student over dev sentences, then
each stage list run over its entities, in one process; medians of --repeats, as a share of the student's time.

    python -m benchmarks.bench_stages --gold ../shared/data/ner/bc5cdr/devel.tsv --n 2000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from uner.analysis.evaluate import read_gold
from uner.models import cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import Student, run_stages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gold", required=True)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--model", default="uner-student-bio")
    ap.add_argument("--stages", nargs="+", default=["abbreviations", "phrase_bounds", "abbreviations,phrase_bounds"])
    args = ap.parse_args()
    texts = [" ".join(s.tokens) for s in list(read_gold(args.gold))[: args.n]]
    print(f"CPU: {cpu_name()}; native bf16 {cpu_has_bf16()}, AMX {cpu_has_amx()}; {len(texts)} sentences of {args.gold}")
    student = Student.from_pretrained(args.model, stages=())
    list(student.tag(texts[:64]))  # (warm-up)
    times, ents = [], None
    for _ in range(args.repeats):
        t = time.perf_counter()
        ents = list(student.tag(texts))
        times.append(time.perf_counter() - t)
    base = statistics.median(times)
    print(f"  student, no stages  {base:7.3f} s  {len(texts) / base:8.1f} sentences/s  ({sum(map(len, ents))} entities)")
    for spec in args.stages:
        names = tuple(spec.split(","))
        run_stages(texts[0], ents[0], names)  # (loads the stages' word lists once)
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            for text, found in zip(texts, ents):
                run_stages(text, found, names)
            times.append(time.perf_counter() - t)
        cost = statistics.median(times)
        print(f"  + {spec:30s} {cost:7.3f} s  = {100 * cost / base:5.1f} % of the student's time")


if __name__ == "__main__":
    main()
