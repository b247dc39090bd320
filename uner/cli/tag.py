"""`uner tag`: entities of every input line, as JSONL, CoNLL or HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import LabelsOpt, ModelOpt, app, fail


@app.command()
def tag(
    input: Annotated[str, typer.Argument(help=".txt (one document per line), .jsonl (text, optional id and spans) or - (stdin).")],
    out: Annotated[str, typer.Option("--out", "-o", help="Output file (.jsonl, .conll, .html) or - for stdout.")] = "-",
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    input_format: Annotated[Optional[str], typer.Option(help="txt | jsonl (default: from the extension; stdin: txt).")] = None,
    output_format: Annotated[Optional[str], typer.Option(help="jsonl | conll | html (default: from the extension).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Documents per model batch.")] = 64,
    top_k: Annotated[Optional[int], typer.Option(min=1, help="Descriptors per masked input (default: the tagger's, 5).")] = None,
    inline: Annotated[bool, typer.Option(help="Type only the spans marked term:__entity__ in the text.")] = False,
    explain: Annotated[bool, typer.Option(help="Add the descriptors that voted, with logits and labels.")] = False,
    resume: Annotated[bool, typer.Option(help="Continue an interrupted run of the same command.")] = False,
    stop_descriptors: Annotated[Optional[Path], typer.Option(help="Descriptors to ignore, whitespace-separated.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes, each with its own copy of the model.")] = 1,
    dtype: Annotated[str, typer.Option(help="Model weights: auto (bfloat16 on CPUs with native bf16, float16 on "
                                            "GPUs, else float32) | float32 | bfloat16 | float16.")] = "auto",
    threads: Annotated[Optional[int], typer.Option(min=1, help="Torch threads per process (default: torch's).")] = None,
) -> None:
    """Tag entities: one output record per input line, in order; bad lines get an error field."""
    from ..tagger import SetupError, TaggerConfig, TagOptions, tag_file

    config = TaggerConfig(top_k=top_k) if top_k else TaggerConfig()
    tagger_kwargs = {"model": model, "labels": labels, "config": config, "stop_descriptors": stop_descriptors,
                     "dtype": dtype, "threads": threads}
    try:
        errors = tag_file(input, out, tagger_kwargs, input_format=input_format, output_format=output_format,
                          options=TagOptions(inline, batch_size, explain), resume=resume, workers=workers)
    except SetupError as exc:
        fail(str(exc))
    if errors:
        typer.echo(f"uner: {errors} input line(s) had errors (see the 'error' fields)", err=True)
        raise typer.Exit(1)
