"""`uner pretrain`: train or continue a masked LM on text files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import app, fail


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
    seed: Annotated[Optional[int], typer.Option(help="Seed of the training windows and masks (default: 0, or one past the seed of the uner run that --init continues).")] = None,
    device: Optional[str] = None,
    save_dtype: Annotated[str, typer.Option(help="dtype of the exported model: float32 | float16 | bfloat16")] = "float32",
    bf16: Annotated[Optional[bool], typer.Option("--bf16/--no-bf16", help="bfloat16 autocast for training steps (default: on GPUs and on CPUs with native bf16).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from OUT/checkpoint.")] = False,
    extend_vocab: Annotated[int, typer.Option(min=0, help="With --init: add up to N frequent corpus words that the tokenizer splits into many pieces to the vocabulary (0: off).")] = 0,
    extend_min_count: Annotated[int, typer.Option(min=1, help="--extend-vocab: only words seen at least this often.")] = 20,
    extend_min_pieces: Annotated[int, typer.Option(min=2, help="--extend-vocab: only words split into at least this many pieces.")] = 3,
    extend_from: Annotated[Optional[list[Path]], typer.Option(help="--extend-vocab: mine words from these corpus files only (repeatable; default: the training sources).")] = None,
    extend_init: Annotated[str, typer.Option(help="--extend-vocab: new rows start at the mean of their pieces (mean) or where the MLM head points in the word's masked contexts (context).")] = "context",
) -> None:
    """Train a masked LM (continue an encoder or start from scratch) on text files."""
    from ..pretrain import PretrainConfig
    from ..pretrain.config import EXTEND_INITS
    from ..pretrain import pretrain as run

    if schedule not in ("linear", "cosine", "constant"):
        fail(f"--schedule: unknown schedule {schedule!r}")
    if head_init not in ("random", "identity"):
        fail(f"--head-init: unknown value {head_init!r}")
    if max_steps is None and max_time is None:
        fail("give --max-steps or --max-time")
    if extend_init not in EXTEND_INITS:
        fail(f"--extend-init: unknown value {extend_init!r} ({' | '.join(EXTEND_INITS)})")
    if extend_vocab and init is None:
        fail("--extend-vocab needs --init: only a model being continued has a vocabulary to extend")
    for path in extend_from or ():
        if not path.is_file():
            fail(f"--extend-from: no such file {path}")
    cfg = PretrainConfig(
        sources=sources, out_dir=str(out), init=init, tokenizer=tokenizer, vocab_size=vocab_size, cased=cased,
        layers=layers, hidden=hidden, heads=heads, intermediate=intermediate, max_len=max_len,
        batch_size=batch_size, lr=lr, head_lr=head_lr, warmup_steps=warmup_steps, schedule=schedule,
        max_steps=max_steps, max_time=max_time, whole_word=whole_word, nsp=nsp, head_init=head_init, eval_paragraphs=eval_paragraphs,
        eval_every=eval_every, save_every=save_every, seed=seed, device=device, save_dtype=save_dtype, bf16=bf16,
        extend_vocab=extend_vocab, extend_min_count=extend_min_count, extend_min_pieces=extend_min_pieces,
        extend_from=tuple(str(p) for p in extend_from or ()), extend_init=extend_init,
    )
    try:
        metrics = run(cfg, resume=resume)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(f"held-out masked-token top-1 {metrics['top1']:.4f}  top-10 {metrics['top10']:.4f}  "
               f"({metrics['masked_tokens']} masked tokens); model in {out / 'model'}")
