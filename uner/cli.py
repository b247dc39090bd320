"""The ``uner`` command line: thin Typer commands over the Python API."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Unsupervised NER with masked language models.")

ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model folder, embedded name or hub id (default: the embedded model).")]


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit non-zero."""
    typer.echo(f"uner: error: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def fill(
    texts: Annotated[Optional[list[str]], typer.Argument(help="Texts containing [MASK]; '-' or none reads lines from stdin.")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read texts from this file, one per line.")] = None,
    model: ModelOpt = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1)] = 10,
) -> None:
    """Fill in the blanks: top-k predictions with logits at every [MASK]."""
    from .models import MaskedLM, ModelNotFoundError

    lines = list(texts or [])
    if file is not None:
        if not file.is_file():
            fail(f"{file}: no such file")
        lines += [ln.rstrip("\n") for ln in file.open(encoding="utf-8")]
    if not lines or lines == ["-"]:
        lines = [ln.rstrip("\n") for ln in sys.stdin]
    lines = [ln for ln in lines if ln.strip()]
    try:
        mlm = MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))
    lines = [ln.replace("[MASK]", mlm.mask_token) for ln in lines]
    try:
        results = mlm.top_k(lines, k=top_k)
    except ValueError as exc:
        fail(str(exc))
    for text, preds in zip(lines, results):
        typer.echo(text)
        if not preds:
            typer.echo(f"  (no {mlm.mask_token} in this text)")
        for m, p in enumerate(preds, 1):
            cells = "  ".join(f"{tok} {logit:.2f}" for tok, logit in zip(p.tokens, p.logits))
            typer.echo(f"  mask {m}: {cells}")


@app.command()
def pretrain(
    sources: Annotated[list[str], typer.Argument(help="Corpus files (.txt/.gz/.xz, or CoNLL/TSV token files), each PATH or PATH:WEIGHT.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder: cache, checkpoint, log, final model/.")],
    init: Annotated[Optional[str], typer.Option(help="Continue from this model (adds an MLM head if it has none); omit to train from scratch.")] = None,
    tokenizer: Annotated[Optional[str], typer.Option(help="From scratch: reuse this model's tokenizer instead of learning WordPiece.")] = None,
    vocab_size: int = 30522,
    cased: bool = False,
    layers: int = 6,
    hidden: int = 384,
    heads: int = 12,
    intermediate: int = 1536,
    max_len: int = 128,
    batch_size: int = 64,
    lr: float = 1e-4,
    head_lr: float = 1e-3,
    warmup_steps: int = 500,
    schedule: Annotated[str, typer.Option(help="linear | cosine | constant")] = "linear",
    max_steps: Optional[int] = None,
    max_time: Annotated[Optional[float], typer.Option(help="Training-time budget in seconds.")] = None,
    whole_word: Annotated[bool, typer.Option("--whole-word", help="Mask whole words, not single word pieces.")] = False,
    nsp: Annotated[bool, typer.Option("--nsp", help="Add a next-sentence-prediction head and loss (BERT only).")] = False,
    head_init: Annotated[str, typer.Option(help="A freshly added BERT head's dense layer: random | identity.")] = "random",
    eval_paragraphs: int = 100,
    eval_every: int = 1000,
    save_every: int = 1000,
    seed: int = 0,
    device: Optional[str] = None,
    save_dtype: Annotated[str, typer.Option(help="dtype of the exported model: float32 | float16 | bfloat16")] = "float32",
    resume: Annotated[bool, typer.Option("--resume", help="Continue from OUT/checkpoint.")] = False,
) -> None:
    """Train a masked LM (continue an encoder or start from scratch) on text files."""
    from .pretrain import PretrainConfig
    from .pretrain import pretrain as run

    if schedule not in ("linear", "cosine", "constant"):
        fail(f"--schedule: unknown schedule {schedule!r}")
    if head_init not in ("random", "identity"):
        fail(f"--head-init: unknown value {head_init!r}")
    if max_steps is None and max_time is None:
        fail("give --max-steps or --max-time")
    cfg = PretrainConfig(
        sources=sources, out_dir=str(out), init=init, tokenizer=tokenizer, vocab_size=vocab_size, cased=cased,
        layers=layers, hidden=hidden, heads=heads, intermediate=intermediate, max_len=max_len,
        batch_size=batch_size, lr=lr, head_lr=head_lr, warmup_steps=warmup_steps, schedule=schedule,
        max_steps=max_steps, max_time=max_time, whole_word=whole_word, nsp=nsp, head_init=head_init, eval_paragraphs=eval_paragraphs,
        eval_every=eval_every, save_every=save_every, seed=seed, device=device, save_dtype=save_dtype,
    )
    try:
        metrics = run(cfg, resume=resume)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(f"held-out masked-token top-1 {metrics['top1']:.4f}  top-10 {metrics['top10']:.4f}  "
               f"({metrics['masked_tokens']} masked tokens); model in {out / 'model'}")


@app.command()
def cluster(
    model: ModelOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output folder (default: labels/<model>/).")] = None,
    limit: Annotated[Optional[int], typer.Option(help="Quick run on the first N non-special vocabulary entries.")] = None,
    subset: Annotated[Optional[Path], typer.Option(help="Quick run on the terms listed in this file.")] = None,
    preserve: Annotated[Optional[Path], typer.Option(help="Short terms (<3 chars) to cluster anyway, one per line.")] = None,
    max_bin: int = 20,
    tail_min: int = 10,
    min_chars: int = 3,
    neighbourhood: int = 20,
    block_rows: int = 1024,
) -> None:
    """Cluster the vocabulary by cosine tails: graph, neighbourhoods, clusters.yaml, summary."""
    from .clustering import ClusterParams, cluster_vocabulary, read_term_list
    from .models import ModelNotFoundError

    for f in (subset, preserve):
        if f is not None and not f.is_file():
            fail(f"{f}: no such file")
    try:
        params = ClusterParams(max_bin=max_bin, tail_min=tail_min, min_chars=min_chars,
                               neighbourhood=neighbourhood, block_rows=block_rows)
        _, _, summary, folder = cluster_vocabulary(
            model, out, params=params, limit=limit, subset=read_term_list(subset) if subset else None,
            preserve=read_term_list(preserve) if preserve else (),
        )
    except (ModelNotFoundError, ValueError) as exc:
        fail(str(exc))
    typer.echo(f"{summary['clusters']} clusters over {summary['vocabulary']} terms "
               f"({summary['clustered_terms']} clustered), mean tail length {summary['mean_tail_length']}, "
               f"{summary['edges']} edges -> {folder}")
    typer.echo("cluster sizes: " + ", ".join(f"{k}: {v}" for k, v in summary["cluster_size_histogram"].items()))


@app.command()
def neighbors(
    term: str,
    model: ModelOpt = None,
    graph: Annotated[Optional[Path], typer.Option(help="Folder with graph.npz (default: labels/<model>/).")] = None,
    top: Annotated[int, typer.Option(help="Show at most this many per list.")] = 30,
) -> None:
    """Out-, in- and mutual neighbours of TERM in the directed neighbour graph."""
    from .clustering import default_output_dir
    from .graph import GRAPH_FILE, NeighbourGraph
    from .models import DEFAULT_MODEL

    folder = graph or default_output_dir(model or DEFAULT_MODEL)
    if not (folder / GRAPH_FILE).is_file():
        fail(f"{folder / GRAPH_FILE}: no graph; run `uner cluster` first")
    g = NeighbourGraph.load(folder)
    try:
        out_n, in_n, mutual = g.out_neighbours(term), g.in_neighbours(term), g.mutual_neighbours(term)
    except KeyError as exc:
        fail(str(exc.args[0]))

    def show(name: str, items: list[tuple[str, float]]) -> None:
        cells = "  ".join(f"{t} {c:.2f}" for t, c in items[:top])
        typer.echo(f"{name} ({len(items)}): {cells}")

    typer.echo(f"{term}: tail length {g.tail_length(term)}, cut-off cosine {g.thresholds[g.id(term)]:.2f}")
    show("out", out_n)
    show("in", in_n)
    show("mutual", mutual)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
