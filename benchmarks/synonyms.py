"""Synonym harvesting against WordNet: P@1, P@5, hit@5, antonyms and the term's own inflections among the first
five, and the per-term time (issue 78).

Gold: ``../shared/data/synonyms/wordnet_dev.jsonl`` (Open English WordNet, the dev half of its single-word lemmas;
CC BY 4.0, read from ../shared, never shipped). The draw, deterministic: the gold lemmas that are whole-word
entries of the model's vocabulary, occur at least ``--min-count`` (10) times in the Brown corpus (frequent words)
and have at least two WordNet synonyms that are whole-word entries too, in alphabetical order, then
``random.Random(--seed 78).sample`` of ``--n`` (300) of them. Each word is harvested alone (``uner synonyms W
--top 10``, no corpus unless ``--corpus``); the term's own inflections are taken off the candidates before P@k
(and counted: their share of the first five, before that), so the before and after figures score the same way.

- P@1: the first candidate is a WordNet synonym; P@5: WordNet synonyms among the first five, over five; hit@5: at
  least one among the first five. The ceiling (every in-vocabulary synonym first) is printed beside.
- antonyms: WordNet antonyms among the first five, as a share of all first-five candidates.
- inflections: the term's own inflections (one spaCy lemma under some part of speech, or a regular English
  ending of the other) among the raw first five, as a share of them.
- time: the median over the words of one word's harvest (wall and CPU seconds), after the model is loaded.

    python -m benchmarks.synonyms [--model uner-minilm-l6] [--n 300] [--corpus FILE] [--out records.jsonl]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from uner.io import read_paragraphs
from uner.models import MaskedLM, cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.spans import load_spacy
from uner.vocab import SynonymHarvester

from .teacher_backends import FLAGS, cpu_flags

SHARED = Path(__file__).resolve().parents[1].parent / "shared/data"
GOLD = SHARED / "synonyms/wordnet_dev.jsonl"
BROWN = SHARED / "corpus/brown.txt.gz"


def brown_counts() -> Counter:
    """Lower-cased word counts of the Brown corpus (1.2 M words): what makes a word frequent here."""
    with gzip.open(BROWN, "rt", encoding="utf-8") as f:
        return Counter(w.lower() for line in f for w in re.findall(r"[A-Za-z]+", line))


def draw(gold: Sequence[dict], vocab: set[str], counts: Counter, n: int, seed: int, min_count: int) -> list[dict]:
    """The benchmark's words (see the module docstring), each record with ``in_vocab``: its in-vocabulary synonyms."""
    pool = [dict(g, in_vocab=[s for s in g["synonyms"] if s in vocab]) for g in sorted(gold, key=lambda g: g["word"])
            if g["word"] in vocab and counts[g["word"]] >= min_count]
    pool = [g for g in pool if len(g["in_vocab"]) >= 2]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def regular_forms(word: str) -> set[str]:
    """The regular English inflections of ``word``: -s, -es, -ed, -ing, -er, -est, with a final e dropped, y made
    i or a final consonant doubled."""
    out = {word + e for e in ("s", "es", "ed", "ing", "er", "est")}
    out |= {word + word[-1] + e for e in ("ed", "ing", "er", "est")}
    if word.endswith("e"):
        out |= {word + "d", word + "r", word + "st", word[:-1] + "ing"}
    if word.endswith("y"):
        out |= {word[:-1] + e for e in ("ies", "ied", "ier", "iest")}
    return out


def inflection_test(nlp) -> Callable[[str, str], bool]:
    """``same(term, candidate)``: one is a regular inflection of the other, or both share a spaCy lemma under some
    part of speech (went/go, mice/mouse)."""
    lemmatizer = nlp.get_pipe("lemmatizer")

    def lemmas(word: str) -> set[str]:
        out = {word}
        for pos in ("NOUN", "VERB", "ADJ", "ADV"):
            doc = nlp.make_doc(word)
            doc[0].pos_ = pos
            out.update(lemmatizer.rule_lemmatize(doc[0]))
        return out

    def same(term: str, cand: str) -> bool:
        cand = cand.lower()
        return (cand in regular_forms(term) or term in regular_forms(cand) or bool(lemmas(term) & lemmas(cand)))

    return same


def score(records: Sequence[dict], words: Sequence[dict], same: Callable[[str, str], bool]) -> dict:
    """The figures of the module docstring over ``records`` (one per word, in the order of ``words``)."""
    p1 = p5 = hit = ceiling = n_first = n_ant = n_raw = n_infl = 0.0
    for rec, g in zip(records, words):
        raw = [c["term"].lower() for c in rec.get("synonyms", [])]
        n_raw += len(raw[:5])
        n_infl += sum(same(g["word"], c) for c in raw[:5])
        first = [c for c in raw if not same(g["word"], c)][:5]
        syn, ant = set(g["synonyms"]), set(g["antonyms"])
        good = sum(c in syn for c in first)
        p1 += bool(first) and first[0] in syn
        p5 += good / 5
        hit += good > 0
        ceiling += min(5, len(g["in_vocab"])) / 5
        n_first += len(first)
        n_ant += sum(c in ant for c in first)
    n = max(len(words), 1)
    return {"words": len(words), "P@1": p1 / n, "P@5": p5 / n, "hit@5": hit / n, "ceiling P@5": ceiling / n,
            "antonyms": n_ant / max(n_first, 1), "inflections": n_infl / max(n_raw, 1)}


def timed(harvest: Callable[[str], dict], words: Sequence[dict]) -> tuple[list[dict], list[float], list[float]]:
    """One record per word, the wall seconds and the process's CPU seconds each took (CPU time, unlike wall time,
    does not grow when other jobs share the cores)."""
    records, seconds, cpu = [], [], []
    for g in words:
        t0, c0 = time.perf_counter(), time.process_time()
        records.append(harvest(g["word"]))
        seconds.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return records, seconds, cpu


def report(model: str, figures: dict, seconds: Sequence[float], cpu: Sequence[float], load_s: float) -> str:
    """The figures as printed: one header line, one line of figures."""
    return (f"CPU: {cpu_name()}; native bf16 {cpu_has_bf16()}, AMX {cpu_has_amx()}; flags: "
            f"{' '.join(cpu_flags()) or 'none of ' + ' '.join(FLAGS)}\n"
            f"{model}: {figures['words']} words  P@1 {figures['P@1']:.3f}  P@5 {figures['P@5']:.3f} "
            f"(ceiling {figures['ceiling P@5']:.2f})  hit@5 {figures['hit@5']:.3f}  "
            f"antonyms {figures['antonyms']:.2%}  "
            f"inflections {figures['inflections']:.2%}  median {statistics.median(seconds):.3f} s/term wall, "
            f"{statistics.median(cpu):.3f} s CPU (max {max(seconds):.2f} s; load {load_s:.1f} s; "
            f"{torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="uner-minilm-l6")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=78)
    ap.add_argument("--min-count", type=int, default=10, help="Brown corpus count that makes a word frequent")
    ap.add_argument("--corpus", type=Path, default=None, help="text whose sentences add contexts and patterns")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--out", type=Path, default=None, help="the records, as JSONL")
    args = ap.parse_args()
    if not GOLD.is_file():
        raise SystemExit(f"{GOLD}: WordNet gold not found (../shared is needed)")
    t0 = time.perf_counter()
    mlm = MaskedLM.from_pretrained(args.model, device="cpu")
    harvester = SynonymHarvester(mlm, [p for p in read_paragraphs(args.corpus) if p] if args.corpus else ())
    load_s = time.perf_counter() - t0
    words = draw([json.loads(x) for x in GOLD.open()], set(mlm.vocab), brown_counts(), args.n, args.seed,
                 args.min_count)
    records, seconds, cpu = timed(lambda w: harvester.record(w, args.top), words)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(report(args.model, score(records, words, inflection_test(load_spacy())), seconds, cpu, load_s))


if __name__ == "__main__":
    main()
