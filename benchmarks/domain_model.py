"""A domain model against the general one on held-out domain text, in one run (issue 18).

    python -m benchmarks.domain_model --model uner-minilm-l6 --model uner-bio-minilm-l6 [--sentences 500]

Held-out text: the first ``--sentences`` sentences of each biomedical dev split (no model was trained on
dev text). For each model:

- masked-token accuracy, top-1 and top-10: 15 % of each model's own tokens masked with the same seed, as
  ``uner pretrain`` measures it (a whole word that is one token for the domain model is one harder
  prediction than its first piece is for the general model, so the comparison does not favour it);
- tokenisation: the fraction of the dev splits' gold entity words (all sentences) that are one
  vocabulary item, and the mean pieces per word.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

from uner.analysis.evaluate import entities, read_gold, to_iob2
from uner.io.corpus import Source
from uner.models import resolve_model
from uner.pretrain import build_eval_set, evaluate_mlm, load_caches, piece_stats

NER = Path(__file__).resolve().parents[1].parent / "shared/data/ner"
BIO_DEV = ["bc5cdr/devel.tsv", "ncbi-disease/devel.tsv", "jnlpba/devel.tsv", "bc2gm/devel.tsv"]


def entity_words(path: Path) -> list[str]:
    """Every word inside a gold entity of a dev file (repeats kept: frequent names weigh more)."""
    words = []
    for sent in read_gold(path):
        for _, start, end in entities(to_iob2(sent.tags)):
            words += sent.tokens[start:end]
    return words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append", required=True, help="a model name or folder (repeatable)")
    ap.add_argument("--sentences", type=int, default=500, help="held-out sentences per dev split")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    files = [NER / f for f in BIO_DEV]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise SystemExit(f"dev data missing: {', '.join(missing)} (../shared is needed)")
    words = {f.parent.name: entity_words(f) for f in files}
    torch.manual_seed(args.seed)
    print(f"held-out text: the first {args.sentences} sentences of {', '.join(BIO_DEV)}; CPU, float32")
    for name in args.model:
        folder = resolve_model(name)
        tokenizer = AutoTokenizer.from_pretrained(folder)
        model = AutoModelForMaskedLM.from_pretrained(folder, dtype=torch.float32)
        with tempfile.TemporaryDirectory() as tmp:
            caches = load_caches([Source(f) for f in files], tokenizer, Path(tmp), args.sentences)
            eval_set = build_eval_set(caches, tokenizer, 128, 0.15, args.seed)
        with torch.inference_mode():
            m = evaluate_mlm(model, eval_set, torch.device("cpu"), amp=False)
        print(f"\n{name} (vocabulary {len(tokenizer)}): masked-token top-1 {m['top1']:.4f}  top-10 {m['top10']:.4f}"
              f"  loss {m['loss']:.3f}  ({m['masked_tokens']} masked tokens)")
        for ds, ws in words.items():
            s = piece_stats(ws, tokenizer)
            print(f"  {ds:14s} entity words {s['words']:6d}: one vocabulary item {s['single']:.3f}, "
                  f"mean pieces {s['mean_pieces']:.2f}")


if __name__ == "__main__":
    main()
