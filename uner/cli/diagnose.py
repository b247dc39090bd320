"""`uner diagnose`: embedding-space diagnostics of a model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ._util import ModelOpt, app, fail, load_mlm


@app.command()
def diagnose(
    corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files for word frequencies and sentences.")],
    model: ModelOpt = None,
    max_paragraphs: int = 20000,
    sentences: Annotated[int, typer.Option(help="Corpus paragraphs embedded for the anisotropy figures.")] = 2000,
    plots: Annotated[Optional[Path], typer.Option(help="Write PNG plots here (needs matplotlib).")] = None,
) -> None:
    """Norms and k-NN distances by frequency rank, anisotropy before/after whitening, decoder bias vs frequency."""
    from ..clustering import special_mask
    from ..corpus import read_paragraphs
    from ..diagnostics import anisotropy, bias_report, frequency_buckets, token_frequencies, whitened_anisotropy
    from ..embeddings import embed_many

    for f in corpus:
        if not f.is_file():
            fail(f"{f}: no such file")
    mlm = load_mlm(model)
    counts = token_frequencies(mlm, [str(f) for f in corpus], max_paragraphs)
    special = special_mask(mlm.vocab, mlm.tokenizer.all_special_tokens)
    typer.echo(f"(a) word embeddings by frequency rank ({int(counts.sum())} tokens counted)")
    typer.echo(f"  {'ranks':>12} {'terms':>6} {'mean count':>10} {'L2 norm':>8} {'3-NN L2':>8}")
    buckets = frequency_buckets(mlm.word_embeddings(), counts, special)
    for b in buckets:
        typer.echo(f"  {b['ranks']:>12} {b['terms']:>6} {b['mean_count']:>10.1f} {b['l2_norm']:>8.3f} {b['knn_l2']:>8.3f}")
    texts = [p for f in corpus for p in read_paragraphs(f) if p][:sentences]
    typer.echo(f"(b) anisotropy: mean cosine of random pairs of {len(texts)} paragraph vectors")
    vecs = embed_many(mlm, texts, ["cls-head", "cls", "mean", "first-last-mean"])
    for name, v in vecs.items():
        typer.echo(f"  {name:>16}: raw {anisotropy(v):.3f}   whitened {whitened_anisotropy(v):.3f}")
    rep = bias_report(mlm, counts, exclude=special)
    typer.echo(f"(c) decoder bias vs log corpus frequency over {rep['terms_seen']} seen terms: "
               f"Spearman {rep['spearman_bias_log_freq']:.3f}")
    typer.echo("  top 30: " + " ".join(f"{t}({b:.2f})" for t, b in rep["top"]))
    typer.echo("  bottom 30: " + " ".join(f"{t}({b:.2f})" for t, b in rep["bottom"]))
    if plots is not None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            fail("--plots needs matplotlib (pip install matplotlib)")
        plots.mkdir(parents=True, exist_ok=True)
        seen = (counts > 0) & ~special
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.scatter(np.log(counts[seen]), mlm.decoder_bias()[seen], s=1, alpha=0.3)
        ax.set_xlabel("log corpus frequency")
        ax.set_ylabel("MLM decoder bias")
        fig.tight_layout()
        fig.savefig(plots / "bias_vs_frequency.png", dpi=120)
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.bar([b["ranks"] for b in buckets], [b["l2_norm"] for b in buckets])
        ax.set_ylabel("mean L2 norm")
        ax.set_xlabel("frequency rank bucket")
        fig.tight_layout()
        fig.savefig(plots / "norm_by_rank.png", dpi=120)
        typer.echo(f"plots -> {plots}")
