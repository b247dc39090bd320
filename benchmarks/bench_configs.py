"""Tagging speed of the previous release's settings vs this release's domains, same model, one run.

    python -m benchmarks.bench_configs [--n 200] [--repeats 3]

The same CoNLL-2003 dev sentences are tagged end to end (spaCy parse, candidate spans, every masked
input through the model, scoring) under each setting; each repeat starts with an empty prediction
cache. Prints the median wall time, sentences/s, masked inputs per sentence and the ratio to the
previous settings, with the CPU's bf16/AMX flags (they change the model's speed a lot).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from uner.analysis.evaluate import detokenize, read_gold
from uner.models import cpu_has_amx, cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.tagger import CI_TEMPLATES, PredictionCache, Tagger, TaggerConfig

GOLD = Path(__file__).resolve().parents[1].parent / "shared/data/ner/conll2003/valid.txt"
SETTINGS = {
    "previous (nouns, 1 template)": TaggerConfig(span_policy="nouns", ci_templates=(CI_TEMPLATES["is a"],),
                                                 top_k=5, cs_weight=0.3, min_score=0.3,
                                                 subtype_share=0.5),
    "general without name votes": TaggerConfig.for_domain("general", name_weight=0.0, name_not_entity=1.0),
    "general before the name in context": TaggerConfig.for_domain(
        "general", ci_templates=tuple(CI_TEMPLATES[n] for n in ("is a", "comma", "and other")), top_k=5),
    "general": TaggerConfig.for_domain("general"),
    "biomedical": TaggerConfig.for_domain("biomedical"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="sentences")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not GOLD.is_file():
        raise SystemExit(f"{GOLD}: missing (../shared is needed)")
    texts = [detokenize(s.tokens)[0] for s in list(read_gold(GOLD))[: args.n]]
    tagger = Tagger.from_pretrained(device="cpu")
    print(f"CPU: {cpu_name()}; native bf16 (AVX512-BF16) {cpu_has_bf16()}, AMX {cpu_has_amx()}; "
          f"model dtype {next(iter(tagger.mlm.model.parameters())).dtype}; {len(texts)} sentences")
    medians = {}
    for name, cfg in SETTINGS.items():
        tagger.config = cfg
        times, inputs = [], 0
        for _ in range(args.repeats):
            cache = PredictionCache()
            t0 = time.perf_counter()
            list(tagger.tag(texts, cache=cache))
            times.append(time.perf_counter() - t0)
            inputs = cache.misses
        medians[name] = statistics.median(times)
        base = medians[next(iter(SETTINGS))]
        print(f"  {name:<36} {medians[name]:7.2f} s  {len(texts) / medians[name]:6.1f} sentences/s  "
              f"{inputs / len(texts):5.1f} distinct masked inputs/sentence  x{base / medians[name]:.2f} of previous speed")


if __name__ == "__main__":
    main()
