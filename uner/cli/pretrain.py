"""`uner pretrain`: train or continue a masked LM on text files.

Every option but ``--resume`` is a ``PretrainConfig`` field: the option's default is the field's (None here
means "not given"), and the config validates what is given."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..pretrain import pretrain as run_pretrain
from ..pretrain.config import EXTEND_INITS, HEAD_INITS, SAVE_DTYPES, SCHEDULES, PretrainConfig
from ._config import as_options, config_option, given, option_names
from ._util import app, fail

OPTIONS = option_names(PretrainConfig, renamed={"out_dir": "--out"}, skip=("sources", "extra"))


def _opt(name: str, help: str, *decls: str, **kwargs):
    return config_option(PretrainConfig, name, *decls, help=help, **kwargs)


@app.command()
def pretrain(
    sources: Annotated[list[str], typer.Argument(help="Corpus files (.txt/.gz/.xz, or CoNLL/TSV token files), each PATH or PATH:WEIGHT.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder: cache, checkpoint, log, final model/.")],
    init: Annotated[Optional[str], _opt("init", "Continue from this model (adds an MLM head if it has none); omit to train from scratch.")] = None,
    tokenizer: Annotated[Optional[str], _opt("tokenizer", "From scratch: reuse this model's tokenizer instead of learning WordPiece.")] = None,
    vocab_size: Annotated[Optional[int], _opt("vocab_size", "From scratch: WordPiece vocabulary size.")] = None,
    cased: Annotated[Optional[bool], _opt("cased", "From scratch: keep the case of the text.", "--cased/--no-cased")] = None,
    layers: Annotated[Optional[int], _opt("layers", "From scratch: encoder layers.")] = None,
    hidden: Annotated[Optional[int], _opt("hidden", "From scratch: hidden size (a multiple of --heads).")] = None,
    heads: Annotated[Optional[int], _opt("heads", "From scratch: attention heads.")] = None,
    intermediate: Annotated[Optional[int], _opt("intermediate", "From scratch: feed-forward size.")] = None,
    max_len: Annotated[Optional[int], _opt("max_len", "Tokens per training window.")] = None,
    batch_size: Annotated[Optional[int], _opt("batch_size", "Windows per step.")] = None,
    lr: Annotated[Optional[float], _opt("lr", "Peak learning rate of the encoder, in (0, 1].")] = None,
    head_lr: Annotated[Optional[float], _opt("head_lr", "Peak learning rate of a freshly added MLM head.")] = None,
    weight_decay: Annotated[Optional[float], _opt("weight_decay", "AdamW weight decay, in [0, 1).")] = None,
    warmup_steps: Annotated[Optional[int], _opt("warmup_steps", "Steps of linear warm-up.")] = None,
    schedule: Annotated[Optional[str], _opt("schedule", f"Learning rate after warm-up: {' | '.join(SCHEDULES)}.")] = None,
    max_steps: Annotated[Optional[int], _opt("max_steps", "Training steps (give this, --max-time or both).")] = None,
    max_time: Annotated[Optional[float], _opt("max_time", "Training-time budget in seconds (the run stops at whichever budget ends first).")] = None,
    mlm_prob: Annotated[Optional[float], _opt("mlm_prob", "Share of tokens masked, in (0, 1).")] = None,
    whole_word: Annotated[Optional[bool], _opt("whole_word", "Mask whole words, not single word pieces.", "--whole-word/--no-whole-word")] = None,
    nsp: Annotated[Optional[bool], _opt("nsp", "Add a next-sentence-prediction head and loss (BERT only).", "--nsp/--no-nsp")] = None,
    head_init: Annotated[Optional[str], _opt("head_init", f"A freshly added BERT head's dense layer: {' | '.join(HEAD_INITS)}.")] = None,
    eval_paragraphs: Annotated[Optional[int], _opt("eval_paragraphs", "Paragraphs held out from the start of every source.")] = None,
    eval_every: Annotated[Optional[int], _opt("eval_every", "Steps between held-out evaluations (0: only at the end).")] = None,
    save_every: Annotated[Optional[int], _opt("save_every", "Steps between checkpoints (0: only at the end).")] = None,
    log_every: Annotated[Optional[int], _opt("log_every", "Steps between log.jsonl lines.")] = None,
    seed: Annotated[Optional[int], _opt("seed", "Seed of the training windows and masks (default: 0, or one past the seed of the uner run that --init continues).")] = None,
    device: Annotated[Optional[str], _opt("device", "cpu | cuda | cuda:N … (default: cuda when there is one).")] = None,
    save_dtype: Annotated[Optional[str], _opt("save_dtype", f"dtype of the exported model: {' | '.join(SAVE_DTYPES)}.")] = None,
    bf16: Annotated[Optional[bool], _opt("bf16", "bfloat16 autocast for training steps (default: on GPUs and on CPUs with native bf16).", "--bf16/--no-bf16")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from OUT/checkpoint.")] = False,
    extend_vocab: Annotated[Optional[int], _opt("extend_vocab", "With --init: add up to N frequent corpus words that the tokenizer splits into many pieces to the vocabulary (0: off).")] = None,
    extend_min_count: Annotated[Optional[int], _opt("extend_min_count", "--extend-vocab: only words seen at least this often.")] = None,
    extend_min_pieces: Annotated[Optional[int], _opt("extend_min_pieces", "--extend-vocab: only words split into at least this many pieces.")] = None,
    extend_from: Annotated[Optional[list[Path]], typer.Option(help="--extend-vocab: mine words from these corpus files only (repeatable; default: the training sources).")] = None,
    extend_init: Annotated[Optional[str], _opt("extend_init", f"--extend-vocab: new rows start at the mean of their pieces (mean) or where the MLM head points in the word's masked contexts (context): {' | '.join(EXTEND_INITS)}.")] = None,
) -> None:
    """Train a masked LM (continue an encoder or start from scratch) on text files."""
    options = dict(locals())  # (the parameters: what was given is not None)
    options["extend_from"] = tuple(str(p) for p in extend_from) if extend_from else None
    try:
        cfg = PretrainConfig(sources=sources, out_dir=str(out), **given(options, set(OPTIONS) - {"out_dir"}))
    except ValueError as exc:
        fail(as_options(str(exc), OPTIONS))
    for path in cfg.extend_from:
        if not Path(path).is_file():
            fail(f"--extend-from: no such file {path}")
    try:
        metrics = run_pretrain(cfg, resume=resume)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(f"held-out masked-token top-1 {metrics['top1']:.4f}  top-10 {metrics['top10']:.4f}  "
               f"({metrics['masked_tokens']} masked tokens); model in {out / 'model'}")
