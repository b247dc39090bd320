"""What the post-typing stages cost beside the tagging itself: the biomedical student over dev sentences, then
each stage list run over its entities, then the last list with the document pass over the sentences before each
(``run_in_context``, ``uner eval --context``), in one process; medians of --repeats, as a share of the student's time,
and each list's first pass, read afresh (no memo of what an earlier pass judged: a corpus's new text; the process's
own cold start paid before any list), also as the student's sentences per second with the stages and how many fewer
that is.
With ``--teacher N``, then the biomedical teacher over the first N sentences with its settings and with one of
them changed (``--teacher-setting``, default ``inner_names=0``: the step off), taking turns (each pass with a fresh
prediction cache): the ratio of the two speeds.

    python -m benchmarks.bench_stages --gold ../shared/data/ner/bc5cdr/devel.tsv --n 2000 --repeats 5 [--teacher 300]
        [--teacher-setting context_margin=0.3]

With ``--text FILE`` instead of ``--gold``, the sentences of unlabelled documents (one a line; .gz, .xz read as
such), split as ``uner distill`` splits its corpus, after the first ``--skip`` lines: with ``--repeats 1`` and
``--context 0``, one pass over a corpus's new text, each list's memos filling as a corpus run fills them:

    python -m benchmarks.bench_stages --text ../shared/data/corpus/biomed_abstracts.txt.xz --skip 40000 --n 20000
        --repeats 1 --context 0 --stages <the domain's stages, comma-separated>
"""

from __future__ import annotations

import argparse
import statistics
import time
from itertools import islice

from uner.analysis.evaluate import read_gold
from uner.distill.sample import sentences
from uner.io.corpus import open_text
from uner.labels import LabelsFolder
from uner.models import cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import Student, Tagger, TaggerConfig, run_in_context, run_stages
from uner.tagger.stages import forget_loaded
from uner.vocab.phrase_counts import cached_tokens, token_hash

from .sweep_folder import assignment, typed
from .teacher_backends import FLAGS, cpu_flags


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--gold", help="a dev file: its sentences")
    source.add_argument("--text", help="unlabelled documents, one a line: their sentences")
    ap.add_argument("--skip", type=int, default=0, help="with --text: the lines passed over first")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--model", default="uner-student-bio")
    bio = TaggerConfig.for_domain("biomedical").stages
    ap.add_argument("--stages", nargs="+", default=[*bio, ",".join(bio)], help="each alone, then all in order")
    ap.add_argument("--context", type=int, default=20, help="the document pass reads this many sentences back")
    ap.add_argument("--teacher", type=int, default=0, help="then the uner-bio teacher on this many sentences")
    ap.add_argument("--teacher-setting", default="inner_names=0", type=assignment,
                    help="NAME=VALUE: the teacher's setting compared with the domain's")
    args = ap.parse_args()
    if args.gold:
        texts = [" ".join(s.tokens) for s in list(read_gold(args.gold))[: args.n]]
    else:
        with open_text(args.text) as lines:
            texts = list(islice(sentences(line.strip() for line in islice(lines, args.skip, None)), args.n))
    print(f"CPU: {cpu_name()}; native bf16 {cpu_has_bf16()}, AMX {cpu_has_amx()}; flags: "
          f"{' '.join(cpu_flags()) or 'none of ' + ' '.join(FLAGS)}; {len(texts)} sentences of "
          f"{args.gold or args.text}")
    student = Student.from_pretrained(args.model, stages=())
    list(student.tag(texts[:64]))  # (warm-up)
    times, ents = [], None
    for _ in range(args.repeats):
        t = time.perf_counter()
        ents = list(student.tag(texts))
        times.append(time.perf_counter() - t)
    base = statistics.median(times)
    print(f"  student, no stages  {base:7.3f} s  {len(texts) / base:8.1f} sentences/s  ({sum(map(len, ents))} entities)")
    for spec in args.stages:  # (untimed: the process's cold start, tables paged in, paid here and not by a list)
        for text, found in zip(texts, ents):
            run_stages(text, found, tuple(spec.split(",")))
    for spec in args.stages:
        names = tuple(spec.split(","))
        forget_loaded()  # (each list's first pass starts with no memo of what an earlier list judged)
        cached_tokens.cache_clear()
        token_hash.cache_clear()
        run_stages(texts[0], ents[0], names)  # (loads the stages' word lists once)
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            for text, found in zip(texts, ents):
                run_stages(text, found, names)
            times.append(time.perf_counter() - t)
        cost, first = statistics.median(times), times[0]
        print(f"  + {spec:30s} {cost:7.3f} s  = {100 * cost / base:5.1f} % of the student's time (first pass, "
              f"before the stages' memos of what they judged: {100 * first / base:5.1f} %, the student with them "
              f"{len(texts) / (base + first):.1f} sentences/s, {100 * first / (base + first):.1f} % fewer)")
    if args.context:
        names, times = tuple(args.stages[-1].split(",")), []
        for _ in range(args.repeats):
            t = time.perf_counter()
            list(run_in_context(texts, (run_stages(text, found, names) for text, found in zip(texts, ents)), names,
                                context=args.context))
            times.append(time.perf_counter() - t)
        cost = statistics.median(times)
        label = f"{args.stages[-1]} in context {args.context}"
        print(f"  + {label:30s} {cost:7.3f} s  = {100 * cost / base:5.1f} % of the student's time")

    if args.teacher:
        bench_teacher_setting(texts[: args.teacher], args.repeats, *args.teacher_setting)


def bench_teacher_setting(texts: list[str], repeats: int, name: str, value: str) -> None:
    """The biomedical teacher with its domain's settings and with ``name`` set to ``value``, taking turns;
    medians, and the domain's time as a share of the other's."""
    folder = LabelsFolder.of(None, "uner-bio")
    domain = TaggerConfig.for_labels(folder)
    taggers = {"domain": Tagger.from_pretrained("uner-bio", config=domain),
               f"{name}={value}": Tagger.from_pretrained("uner-bio", config=TaggerConfig.for_labels(
                   folder, **{name: typed(domain, name, float(value))}))}
    for tagger in taggers.values():
        list(tagger.tag(texts[:16]))  # (warm-up: loads the steps' tables)
    times: dict[str, list[float]] = {k: [] for k in taggers}
    for _ in range(repeats):
        for key, tagger in taggers.items():
            t = time.perf_counter()
            list(tagger.tag(texts))
            times[key].append(time.perf_counter() - t)
    (a, ta), (b, tb) = ((k, statistics.median(v)) for k, v in times.items())
    print(f"  teacher (uner-bio), {a} ({getattr(domain, name)}) {ta:7.2f} s {len(texts) / ta:6.1f} sentences/s; "
          f"{b} {tb:7.2f} s {len(texts) / tb:6.1f} sentences/s; the domain's time {100 * ta / tb:.1f} % of the other's")

if __name__ == "__main__":
    main()
