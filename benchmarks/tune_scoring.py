"""Tune the tagger's scoring on the dev splits: one model pass, many scoring variants.

    python -m benchmarks.tune_scoring [--limit 300] [--datasets conll2003,wnut17,bc5cdr,ncbi-disease]

The masked inputs of every candidate and gold span go through the model once (top-k at the
largest k any variant needs); each variant then re-scores those cached descriptors, so the
table compares scoring choices on identical model outputs. Dev splits only (../shared/data/ner).
Prints, per variant and dataset, end-to-end strict micro F1 and given-spans mean token F1.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import time
from pathlib import Path

from uner.analysis.evaluate import evaluate
from uner.labels import Calibration
from uner.models import MaskPrediction
from uner.tagger import CI_TEMPLATES as TEMPLATES
from uner.tagger import LabelScorer, Tagger, TaggerConfig

NER = Path(__file__).resolve().parents[1].parent / "shared/data/ner"
DEV = {"conll2003": "conll2003/valid.txt", "wnut17": "wnut17/dev.conll", "bc5cdr": "bc5cdr/devel.tsv",
       "ncbi-disease": "ncbi-disease/devel.tsv", "jnlpba": "jnlpba/devel.tsv", "bc2gm": "bc2gm/devel.tsv"}


FOUR = tuple(TEMPLATES[n] for n in ("is a", "comma", "such as", "and other"))
WITH_CONTEXT = tuple(TEMPLATES[n] for n in ("is a", "comma", "and other", "name in context"))


def _vary(base: TaggerConfig, **changes) -> TaggerConfig:
    """``base`` with some fields changed; weighting fields (normalise, sharpness, direct) included."""
    w = {k: changes.pop(k) for k in ("normalise", "sharpness", "direct", "not_entity") if k in changes}
    if "ci_templates" in changes:  # other templates: equal weights unless given
        changes.setdefault("ci_weights", ())
    return dataclasses.replace(base, weighting=dataclasses.replace(base.weighting, **w), **changes)


def variants(base: TaggerConfig) -> dict[str, TaggerConfig]:
    """Every variant: ``base`` with one choice changed."""
    def _v(**changes) -> TaggerConfig:
        return _vary(base, **changes)

    return {
        "reference (raw counts; one-hot; no own labels; CS=CI; top-20)": _v(
            normalise=0.0, sharpness=16.0, direct=0.0, not_entity=1.0, cs_weight=0.5, top_k=20),
        "default": base,
        "normalise 0 (raw counts)": _v(normalise=0.0),
        "normalise 1 (full)": _v(normalise=1.0),
        "OTHER x1": _v(not_entity=1.0),
        "OTHER x0.3": _v(not_entity=0.3),
        "sharpness 1": _v(sharpness=1.0),
        "sharpness 8": _v(sharpness=8.0),
        "own labels 0": _v(direct=0.0),
        "own labels 0.75": _v(direct=0.75),
        "CS weight 0 (CI only)": _v(cs_weight=0.0),
        "CS weight 0.15": _v(cs_weight=0.15),
        "CS weight 0.5": _v(cs_weight=0.5),
        "CS weight 1 (CS only)": _v(cs_weight=1.0),
        "top-k 3": _v(top_k=3),
        "top-k 10": _v(top_k=10),
        "top-k 20": _v(top_k=20),
        "min score 0": _v(min_score=0.0),
        "min score 0.4": _v(min_score=0.4),
        "span policy named": _v(span_policy="named"),
        "named; common nouns >0.5": _v(span_policy="named", common_min_score=0.5),
        "named; common nouns >0.8": _v(span_policy="named", common_min_score=0.8),
        "subtype share 0.3": _v(subtype_share=0.3),
        "subtype share 0.8": _v(subtype_share=0.8),
        **{f"CI template '{name}' alone": _v(ci_templates=(t,)) for name, t in TEMPLATES.items()},
        "CI templates is a + comma": _v(ci_templates=(TEMPLATES["is a"], TEMPLATES["comma"])),
        "CI templates all four": _v(ci_templates=FOUR),
        "CI templates all four 2:2:1:1": _v(ci_templates=FOUR, ci_weights=(2, 2, 1, 1)),
        "CI templates all four 1:2:1:1": _v(ci_templates=FOUR, ci_weights=(1, 2, 1, 1)),
        "CI templates is a + comma + and other": _v(
            ci_templates=(TEMPLATES["is a"], TEMPLATES["comma"], TEMPLATES["and other"])),
        "is a + comma + and other + name in context": _v(ci_templates=WITH_CONTEXT),
        "is a + comma + and other + name in context 1:1:1:2": _v(ci_templates=WITH_CONTEXT, ci_weights=(1, 1, 1, 2)),
        "is a + comma + and other + name in context 1:1:1:3": _v(ci_templates=WITH_CONTEXT, ci_weights=(1, 1, 1, 3)),
        "min score 0.2": _v(min_score=0.2),
        "all four 2:2:1:1; min score 0.2": _v(ci_templates=FOUR, ci_weights=(2, 2, 1, 1),
                                              min_score=0.2),
        "all four; min score 0.2": _v(ci_templates=FOUR, min_score=0.2),
        "all four; min score 0.2; CS 0.2": _v(ci_templates=FOUR, min_score=0.2, cs_weight=0.2),
        "all four; min score 0.2; CS 0.4": _v(ci_templates=FOUR, min_score=0.2, cs_weight=0.4),
        "all four; min score 0.2; top-k 10": _v(ci_templates=FOUR, min_score=0.2, top_k=10),
    }


def _literal(value: str):
    """A --base/--try value as a number when it is one."""
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value


def parse_changes(spec: str) -> dict:
    """``field=value,…`` as TaggerConfig changes; ``ci=is a+comma`` names templates of TEMPLATES and
    ``ci_weights=2+1`` their weights."""
    changes = {}
    for kv in filter(None, spec.split(",")):
        key, value = kv.split("=", 1)
        if key == "ci":
            changes["ci_templates"] = tuple(TEMPLATES[name] for name in value.split("+"))
        elif key == "ci_weights":
            changes["ci_weights"] = tuple(float(w) for w in value.split("+"))
        else:
            changes[key] = _literal(value)
    return changes


class CachedNLP:
    """Wraps a spaCy pipeline: each distinct text is parsed once per run (variants re-read the same docs)."""

    def __init__(self, nlp) -> None:
        self.nlp, self.docs = nlp, {}

    @property
    def pipe_names(self) -> list[str]:
        return self.nlp.pipe_names

    def pipe(self, texts, **kwargs):
        """Each text's doc, parsed (with ``kwargs``: what ``parse_for_spans`` leaves out) the first time it comes."""
        texts = list(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.docs]
        self.docs.update(zip(missing, self.nlp.pipe(missing, **kwargs)))
        return [self.docs[t] for t in texts]

    def make_doc(self, text):
        return self.nlp.make_doc(text)


class CachedTopK:
    """Wraps ``MaskedLM.top_k``: each text is predicted once at ``k_max``; smaller k are prefixes."""

    def __init__(self, top_k, k_max: int, path: Path | None = None) -> None:
        self.top_k, self.k_max, self.path = top_k, k_max, path
        self.cache = pickle.loads(path.read_bytes()) if path is not None and path.is_file() else {}

    def save(self) -> None:
        if self.path is not None:
            self.path.write_bytes(pickle.dumps(self.cache))

    def __call__(self, texts, k: int = 20):
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self.cache.update(zip(missing, self.top_k(missing, k=self.k_max)))
        return [[MaskPrediction(p.ids[:k], p.tokens[:k], p.logits[:k]) for p in self.cache[t]] for t in texts]


def cached_tagger(model: str | None, labels: str | None, k_max: int, cache: Path | None) -> tuple[Tagger, CachedTopK]:
    """The tagger (uncalibrated, CPU) with its model outputs and spaCy parses cached across variants."""
    tagger = Tagger.from_pretrained(model, labels, device="cpu", calibrate=False)
    cached = CachedTopK(tagger.mlm.top_k, k_max, cache)
    tagger.mlm.top_k = cached
    tagger.nlp = CachedNLP(tagger.nlp)
    return tagger, cached


def configure(tagger: Tagger, cfg: TaggerConfig, calibration: Calibration = Calibration()) -> None:
    """Score with ``cfg`` and ``calibration`` from now on (same model, table and caches)."""
    tagger.config = cfg
    tagger.scorer = LabelScorer(tagger.table, tagger.types, tagger.mlm.vocab, weighting=cfg.weighting,
                                calibration=calibration)


def dev_scores(tagger: Tagger, names: list[str], limit: int) -> list[float]:
    """End-to-end strict micro F1 and given-spans mean token F1 per dataset, interleaved."""
    cells = []
    for n in names:
        rep = evaluate(tagger, NER / DEV[n], mode="both", limit=limit)
        cells += [rep["end_to_end"]["micro"]["f1"], rep["given_spans"]["mean_token_f1"]]
    return cells


def dev_arguments(description: str) -> argparse.ArgumentParser:
    """The options every dev-split tuning script shares: model, labels, sentences per set, sets, output cache."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--model", default=None)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--limit", type=int, default=300, help="first N sentences of each dev split")
    ap.add_argument("--datasets", default=",".join(DEV))
    ap.add_argument("--cache", type=Path, default=None,
                    help="pickle of model outputs to reuse across runs (same model only)")
    return ap


def check_data(names: list[str]) -> None:
    missing = [n for n in names if not (NER / DEV[n]).is_file()]
    if missing:
        raise SystemExit(f"{NER}: dev data missing for {', '.join(missing)} (../shared is needed)")


def main() -> None:
    ap = dev_arguments(__doc__.splitlines()[0])
    ap.add_argument("--domain", default="general", help="the TaggerConfig.for_domain settings variants start from")
    ap.add_argument("--base", default="",
                    help="changes to the defaults every variant starts from, e.g. span_policy=named,min_score=0.2")
    ap.add_argument("--variants", default=None, help="comma-separated variant names (default: all)")
    ap.add_argument("--try", dest="tries", action="append", default=[],
                    help="an extra variant, e.g. 'ci=is a+comma,ci_weights=2+1,min_score=0.2' (repeatable)")
    args = ap.parse_args()
    names = args.datasets.split(",")
    check_data(names)
    base = _vary(TaggerConfig.for_domain(args.domain), **parse_changes(args.base))
    configs = variants(base)
    configs.update({spec: _vary(base, **parse_changes(spec)) for spec in args.tries})
    tagger, cached = cached_tagger(args.model, args.labels, max(c.top_k for c in configs.values()), args.cache)
    chosen = args.variants.split(",") if args.variants else [v for v in configs if v not in args.tries]
    chosen += args.tries
    print(f"{'variant':<62}" + "".join(f"{n + ' e2e':>18}{n + ' given':>18}" for n in names) + f"{'mean e2e':>10}{'mean given':>11}")
    for vname in chosen:
        configure(tagger, configs[vname])
        t0 = time.perf_counter()
        cells = dev_scores(tagger, names, args.limit)
        means = [sum(cells[0::2]) / len(names), sum(cells[1::2]) / len(names)]
        print(f"{vname:<62}" + "".join(f"{c:>18.3f}" for c in cells + means) + f"   ({time.perf_counter() - t0:.0f} s)",
              flush=True)
        cached.save()


if __name__ == "__main__":
    main()
