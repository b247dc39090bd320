"""The CrossNER worked case of `uner adapt` (docs/accuracy.md §6): a corpus per domain, and its scores.

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


def seed_terms(domain: str) -> list[str]:
    """Every seed term of the domain's types file (lower case)."""
    doc = yaml.safe_load((ROOT / "examples" / "crossner" / domain / "types.yaml").read_text(encoding="utf-8"))
    out = []
    for val in doc.values():
        out += val if isinstance(val, list) else val.get("seeds", [])
    return sorted({str(t).lower() for t in out})


def select(out: Path, min_seeds: int) -> None:
    """Write ``out/<domain>/corpus.txt``: the Wikipedia paragraphs naming ``min_seeds`` of its seed terms."""
    patterns = {d: re.compile(r"\b(" + "|".join(re.escape(t) for t in seed_terms(d)) + r")\b") for d in DOMAINS}
    files = {}
    for d in DOMAINS:
        (out / d).mkdir(parents=True, exist_ok=True)
        files[d] = open(out / d / "corpus.txt", "w", encoding="utf-8")
    kept = dict.fromkeys(DOMAINS, 0)
    for n, para in enumerate(read_paragraphs(WIKI), 1):
        low = para.lower()
        for d, pat in patterns.items():
            if len(set(pat.findall(low))) >= min_seeds:
                files[d].write(para + "\n")
                kept[d] += 1
        if n % 100_000 == 0:
            print(f"{n:,} paragraphs: {kept}", file=sys.stderr)
    for f in files.values():
        f.close()
    print(json.dumps(kept))


def evaluate(labels: str | None, engine: str, limit: int | None, mode: str, model: str | None) -> None:
    """Each domain's dev split scored with its mapping; a table of micro F1 (and per type to a JSON beside)."""
    from uner.analysis.evaluate import evaluate_model

    rows = {}
    for d in DOMAINS:
        result = evaluate_model(SHARED / "ner" / "crossner" / d / "dev.txt",
                                ROOT / "examples" / "crossner" / d / "mapping.yaml", mode, limit,
                                model=model, labels=labels.format(domain=d) if labels else None,
                                student=engine == "student")
        rows[d] = result
        e2e = result.get("end_to_end", {}).get("micro", {})
        given = result.get("given_spans", {}).get("mean_token_f1")
        print(f"{d:<11} end-to-end F1 {e2e.get('f1', float('nan')):.3f} (P {e2e.get('precision', 0):.3f} "
              f"R {e2e.get('recall', 0):.3f})  given spans {given if given is None else round(given, 3)}", flush=True)
    f1 = [r["end_to_end"]["micro"]["f1"] for r in rows.values() if "end_to_end" in r]
    if f1:
        print(f"mean end-to-end F1 {sum(f1) / len(f1):.3f}")
    print(json.dumps({d: {k: v for k, v in r.items() if k != "given_spans" or True} for d, r in rows.items()}),
          file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--out", type=Path, default=ROOT / "runs" / "crossner")
    c.add_argument("--min-seeds", type=int, default=2)
    e = sub.add_parser("eval")
    e.add_argument("--labels", help="labels folder per domain, {domain} filled in (default: the model's)")
    e.add_argument("--engine", choices=("teacher", "student"), default="teacher")
    e.add_argument("--model")
    e.add_argument("--limit", type=int)
    e.add_argument("--mode", default="both")
    a = p.parse_args(argv)
    if a.command == "corpus":
        select(a.out, a.min_seeds)
    else:
        evaluate(a.labels, a.engine, a.limit, a.mode, a.model)


if __name__ == "__main__":
    main()
