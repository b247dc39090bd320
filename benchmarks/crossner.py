"""The CrossNER worked case of `uner adapt` (docs/log/accuracy.md §6): a corpus per domain, and its scores.

``corpus``: one pass over the Wikipedia sample of ``../shared/data/corpus`` keeps, for each domain, the paragraphs
that name at least ``--min-seeds`` distinct seed terms of that domain's types file (examples/crossner/<domain>/
types.yaml) -- a stand-in for the corpus a user would bring. ``eval``: ``uner eval`` of each domain's dev split
with its mapping, for the shipped labels or an adapted folder per domain, in one table.

    python -m benchmarks.crossner corpus --out runs/crossner
    python -m benchmarks.crossner eval --labels runs/crossner/{domain}/labels --engine teacher
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

from uner.io.corpus import read_paragraphs

DOMAINS = ("ai", "literature", "music", "politics", "science")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
WIKI = SHARED / "corpus" / "enwiki_2013_subset.txt.xz"


GENERIC = ("COUNTRY", "EVENT", "AWARD")  # types every domain has: their seeds do not tell a domain's paragraphs


def seed_terms(domain: str) -> list[str]:
    """The seed terms of the domain's own types (lower case; not those of ``GENERIC``)."""
    doc = yaml.safe_load((ROOT / "examples" / "crossner" / domain / "types.yaml").read_text(encoding="utf-8"))
    out = []
    for name, val in doc.items():
        if name not in GENERIC:
            out += val if isinstance(val, list) else val.get("seeds", [])
    return sorted({str(t).lower() for t in out})


def select(out: Path, min_seeds: int) -> None:
    """Write ``out/<domain>/corpus.txt``: the Wikipedia paragraphs naming ``min_seeds`` of its seed terms."""
    words = {d: {t for t in seed_terms(d) if " " not in t and "-" not in t} for d in DOMAINS}
    phrases = {d: re.compile(r"\b(" + "|".join(re.escape(t) for t in seed_terms(d) if t not in words[d]) + r")\b")
               for d in DOMAINS}
    files = {}
    for d in DOMAINS:
        (out / d).mkdir(parents=True, exist_ok=True)
        files[d] = open(out / d / "corpus.txt", "w", encoding="utf-8")
    kept = dict.fromkeys(DOMAINS, 0)
    for n, para in enumerate(read_paragraphs(WIKI), 1):
        low = para.lower()
        tokens = set(re.findall(r"\w+", low))
        for d in DOMAINS:
            if len(tokens & words[d]) + len(set(phrases[d].findall(low))) >= min_seeds:
                files[d].write(para + "\n")
                kept[d] += 1
        if n % 100_000 == 0:
            print(f"{n:,} paragraphs: {kept}", file=sys.stderr)
    for f in files.values():
        f.close()
    print(json.dumps(kept))


def evaluate(labels: str | None, engine: str, limit: int | None, mode: str, model: str | None,
             report: Path | None) -> None:
    """Each domain's dev split scored with its mapping: micro F1 per domain and their mean (every result, per
    type, to ``report``)."""
    from uner.analysis.evaluate import evaluate_model
    from uner.tagger.loading import student_for

    rows = {}
    for d in DOMAINS:
        result = evaluate_model(SHARED / "ner" / "crossner" / d / "dev.txt",
                                ROOT / "labels" / f"crossner-{d}" / "mappings" / f"crossner-{d}.yaml", mode, limit,
                                model=None if engine == "student" else model,
                                labels=labels.format(domain=d) if labels else None,
                                student=(model or student_for()) if engine == "student" else None)
        rows[d] = result
        e2e = result.get("end_to_end", {}).get("micro", {})
        given = result.get("given_spans", {}).get("mean_token_f1")
        print(f"{d:<11} end-to-end F1 {e2e.get('f1', float('nan')):.3f} (P {e2e.get('precision', 0):.3f} "
              f"R {e2e.get('recall', 0):.3f})  given spans {given if given is None else round(given, 3)}", flush=True)
    f1 = [r["end_to_end"]["micro"]["f1"] for r in rows.values() if "end_to_end" in r]
    if f1:
        print(f"mean end-to-end F1 {sum(f1) / len(f1):.3f}")
    if report:
        report.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--out", type=Path, default=ROOT / "runs" / "crossner")
    c.add_argument("--min-seeds", type=int, default=3)
    e = sub.add_parser("eval")
    e.add_argument("--labels", help="labels folder per domain, {domain} filled in (default: the model's)")
    e.add_argument("--engine", choices=("teacher", "student"), default="teacher")
    e.add_argument("--model")
    e.add_argument("--limit", type=int)
    e.add_argument("--mode", default="both")
    e.add_argument("--report", type=Path, help="write every result, per type, here (JSON)")
    a = p.parse_args(argv)
    if a.command == "corpus":
        select(a.out, a.min_seeds)
    else:
        evaluate(a.labels, a.engine, a.limit, a.mode, a.model, a.report)


if __name__ == "__main__":
    main()
