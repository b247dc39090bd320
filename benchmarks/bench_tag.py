"""Batched tagger vs the naive way (fill-mask pipeline once per masked copy), same model and spans.

    python -m benchmarks.bench_tag [--n 300] [--repeats 3] [--threads N] [--dtype auto] [--student PATH]
                                   [--backends-only]

Sentences: CoNLL-2003 valid (../shared/data/ner/conll2003/valid.txt). Prints spans/s and
sentences/s for both, their ratio, and where the batched tagger's time goes; then the student
tagger (``uner distill``; the shipped one unless ``--student``, ``--student none`` to skip) on the same
sentences: sentences/s, its ratio to the batched teacher, and each engine's peak memory (a fresh
process per engine, loading and tagging the same sentences). Last the teacher on each runtime — torch
float32, bfloat16 and today's default (``auto``), ONNX Runtime int8 — with AMX and with AMX refused (a proxy for a
CPU without it), and the compute floor (``teacher_backends``); ``--backends-only`` runs that part alone.

batched: the tagger as ``Tagger.tag`` runs it — spaCy, then documents in batches of
``--batch-size``, its default dtype (``auto``: bfloat16 where it is faster on this CPU — AMX, or a cached
measurement; the chosen dtype and why are printed), distinct
masked inputs once per run. naive: the float32 model through the transformers fill-mask
pipeline, once per masked copy (CS and CI for every span), plus the same spaCy parse.
Both share the process, hence the thread count. The batched tagger's entity types and
top-1 descriptors are also compared with the float32 tagger's (untimed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from transformers import pipeline

from uner.io.corpus import read_paragraphs
from uner.models import auto_cpu_dtype, cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import PredictionCache, Tagger

from .teacher_backends import FLAGS, bench_backends, cpu_flags

CONLL_DEV = Path(__file__).resolve().parents[1].parent / "shared/data/ner/conll2003/valid.txt"


def agreement(fast: PredictionCache, ref: PredictionCache, fast_ents, ref_ents, n_spans: int) -> str:
    """Top-1 / top-k overlap of the predictions both caches hold, and entity-type agreement over all spans."""
    ref_by_text = {key[2]: v for key, v in ref.entries.items()}
    pairs = [(v[0], ref_by_text[key[2]][0]) for key, v in fast.entries.items() if key[2] in ref_by_text]
    top1 = np.mean([a[0] == b[0] for a, b in pairs])
    overlap = np.mean([len(set(a) & set(b)) / len(b) for a, b in pairs])

    def typed(results):
        return {(i, e.start, e.end): e.type for i, ents in enumerate(results) for e in ents}

    a, b = typed(fast_ents), typed(ref_ents)
    differ = sum(a.get(key) != b.get(key) for key in set(a) | set(b))
    return (f"top-1 descriptor {top1:.3f}, top-k overlap {overlap:.3f} on {len(pairs)} distinct masked inputs; "
            f"entity type (or none) {1 - differ / n_spans:.3f} on {n_spans} spans")


_PEAK = """
import json, re, sys
texts = json.load(sys.stdin)
if sys.argv[1] == "student":
    from uner.tagger import Student
    tagger = Student.from_pretrained(sys.argv[2])
else:
    from uner.tagger import Tagger
    tagger = Tagger.from_pretrained(sys.argv[3] if len(sys.argv) > 3 else None, device="cpu", dtype=sys.argv[2])
list(tagger.tag(texts))
print(int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024)
"""


def peak_memory_mb(engine: str, arg: str, texts: list[str], model: str | None = None) -> float:
    """Peak resident memory (MB) of a fresh process that loads ``engine`` (a teacher of ``model``, default the
    embedded one, in dtype ``arg``; a student from folder ``arg``) and tags ``texts`` (VmHWM: ru_maxrss of a child
    can carry the forking parent's peak over exec)."""
    out = subprocess.run([sys.executable, "-c", _PEAK, engine, arg, *([model] if model else [])],
                         input=json.dumps(texts), text=True,
                         capture_output=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bench_student(path: str | None, texts: list[str], teacher_seconds: float, repeats: int, dtype: str,
                  model: str | None = None) -> None:
    """The student's sentences/s on ``texts`` (after a warm-up run, median of ``5 * repeats``: one run takes a
    fraction of a second, so single runs are noisy), its ratio to the teacher, peak memory."""
    from uner.tagger import Student
    from uner.paths import student_dir

    folder = path or str(student_dir())
    student = Student.from_pretrained(folder)
    list(student.tag(texts))
    runs = []
    for _ in range(5 * repeats):
        t0 = time.perf_counter()
        list(student.tag(texts))
        runs.append(time.perf_counter() - t0)
    med = statistics.median(runs)
    print(f"  student  {med:8.2f} s  {len(texts) / med:29.1f} sentences/s  ({folder}: spaCy tokenizer + NER, "
          "no parser, no masked LM)")
    print(f"  student vs batched teacher: {teacher_seconds / med:.1f}x the sentences/s")
    print(f"  peak memory (fresh process, load + tag): teacher {peak_memory_mb('teacher', dtype, texts, model):.0f} MB, "
          f"student {peak_memory_mb('student', folder, texts):.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64, help="documents per batch of the batched tagger")
    ap.add_argument("--dtype", default="auto", help="the batched tagger's dtype (the naive one is float32)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads for both (default: torch's)")
    ap.add_argument("--student", default=None, help="student pipeline folder (default: the shipped one; none: skip)")
    ap.add_argument("--backends-only", action="store_true", help="only the teacher on each runtime")
    args = ap.parse_args()
    if not CONLL_DEV.is_file():
        raise SystemExit(f"{CONLL_DEV}: CoNLL-2003 dev data not found (../shared is needed)")
    if args.threads:
        torch.set_num_threads(args.threads)
    texts = [p for p in read_paragraphs(CONLL_DEV) if len(p.split()) >= 4][: args.n]
    print(f"CPU: {cpu_name()}; native bf16 (AVX512-BF16) {cpu_has_bf16()}, AMX {cpu_has_amx()}; flags: "
          f"{' '.join(cpu_flags()) or 'none of ' + ' '.join(FLAGS)}")
    if args.backends_only:
        bench_backends(texts, args.model, args.repeats)
        return
    tagger = Tagger.from_pretrained(args.model, args.labels, device="cpu", dtype=args.dtype)
    ref = Tagger.from_pretrained(args.model, args.labels, device="cpu", dtype="float32")
    k = tagger.config.top_k
    fill = pipeline("fill-mask", model=ref.mlm.model, tokenizer=ref.mlm.tokenizer, top_k=k, device=-1)
    docs = list(tagger.nlp.pipe(texts))
    spans = [tagger.spans_for_doc(d) for d in docs]
    inputs = [x for t, sp in zip(texts, spans) for s in sp for x in tagger.masked_inputs(t, [s])]
    n_spans = sum(map(len, spans))

    model_time = [0.0]
    top_k = tagger.mlm.top_k

    def timed_top_k(*a, **kw):
        t0 = time.perf_counter()
        out = top_k(*a, **kw)
        model_time[0] += time.perf_counter() - t0
        return out

    tagger.mlm.top_k = timed_top_k

    def batched(tagger=tagger):
        """``Tagger.tag``, with spaCy timed apart."""
        cache = PredictionCache()
        parts = {"spaCy": 0.0, "tagging": 0.0}
        model_time[0] = 0.0
        results = []
        for i in range(0, len(texts), args.batch_size):
            t0 = time.perf_counter()
            d = list(tagger.nlp.pipe(texts[i : i + args.batch_size]))
            sp = [tagger.spans_for_doc(x) for x in d]
            parts["spaCy"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            results += tagger.tag_parsed(d, sp, cache=cache)
            parts["tagging"] += time.perf_counter() - t0
        parts = {"spaCy": parts["spaCy"], "model": model_time[0], "scoring": parts["tagging"] - model_time[0]}
        return parts, results, cache

    def naive():
        t0 = time.perf_counter()
        list(tagger.nlp.pipe(texts))
        ids, weights = [], []
        for x in inputs:
            out = fill(x)
            ids.append([o["token"] for o in out])
            weights.append([o["score"] for o in out])
        tagger.scorer.label_scores(np.array(ids), np.array(weights, dtype=np.float32))
        return time.perf_counter() - t0

    times = {"batched": [], "naive": []}
    breakdown = []
    for _ in range(args.repeats):
        parts, results, cache = batched()
        breakdown.append(parts)
        times["batched"].append(sum(parts.values()))
        times["naive"].append(naive())
    ref_cache = PredictionCache()
    ref_results = [ents for i in range(0, len(texts), args.batch_size)
                   for ents in ref.tag_parsed(docs[i : i + args.batch_size], spans[i : i + args.batch_size],
                                           cache=ref_cache)]
    med = {name: statistics.median(ts) for name, ts in times.items()}
    dtype = str(next(tagger.mlm.model.parameters()).dtype).replace("torch.", "")
    why = auto_cpu_dtype(tagger.mlm.model.config)[1] if args.dtype == "auto" else "as given"
    print(f"--dtype {args.dtype} -> {dtype} ({why})")
    print(f"{len(texts)} CoNLL-2003 dev sentences, {n_spans} spans ({len(inputs)} masked inputs, "
          f"{cache.misses} distinct), model {tagger.mlm.name}, top-{k}, {torch.get_num_threads()} threads, "
          f"{args.repeats} repeats (medians)")
    print(f"  batched: {dtype}, {args.batch_size} documents per batch, {tagger.mlm.max_batch_tokens} tokens per "
          f"forward pass; naive: float32, fill-mask pipeline per masked input")
    for name in ("batched", "naive"):
        print(f"  {name:8s} {med[name]:8.2f} s  {n_spans / med[name]:8.1f} spans/s  {len(texts) / med[name]:7.1f} sentences/s")
    print(f"  speed-up: {med['naive'] / med['batched']:.1f}x")
    print("  batched time: " + ", ".join(f"{k} {statistics.median(b[k] for b in breakdown):.2f} s" for k in breakdown[0]))
    print(f"  batched ({dtype}) vs float32 tagger: " + agreement(cache, ref_cache, results, ref_results, n_spans))
    if args.student != "none":
        bench_student(args.student, texts, med["batched"], args.repeats, dtype, args.model)
    bench_backends(texts, args.model, args.repeats)


if __name__ == "__main__":
    main()
