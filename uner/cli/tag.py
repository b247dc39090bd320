"""`uner tag`: entities of every input line, as JSONL, CoNLL or HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._engine import TAG_ENGINES, AddressOpt, CpusPerActorOpt, NumActorsOpt, TagEngineOpt, engine_settings, tag_engine
from ._util import (BackendOpt, DomainOpt, EnsembleOpt, LabelsOpt, MinScoreOpt, ModelOpt, SpanPolicyOpt, StagesOpt, TopKOpt, app,
                    check_paths, fail, parse_stages)


@app.command()
def tag(
    input: Annotated[str, typer.Argument(help=".txt (one document per line), .jsonl (text, optional id and spans), "
                                              "- (stdin), or a folder or quoted glob of such files.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Output file (.jsonl, .conll, .html) or - for stdout.")] = "-",
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    ensemble: EnsembleOpt = None,
    input_format: Annotated[Optional[str], typer.Option(help="txt | jsonl (default: from the extension; stdin: txt).")] = None,
    encoding: Annotated[str, typer.Option(help="Text encoding of the input; an undecodable line gets an error record.")] = "utf-8",
    max_chars: Annotated[int, typer.Option(min=1, help="Longer documents get an error record instead of being tagged.")] = 100_000,
    output_format: Annotated[Optional[str], typer.Option(help="jsonl | conll | html (default: from the extension).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Documents per model batch.")] = 64,
    domain: DomainOpt = None,
    span_policy: SpanPolicyOpt = None,
    min_score: MinScoreOpt = None,
    top_k: TopKOpt = None,
    stages: StagesOpt = None,
    inline: Annotated[bool, typer.Option(help="Type only the spans marked term:__entity__ in the text.")] = False,
    explain: Annotated[bool, typer.Option(help="Add the descriptors that voted, with logits and labels.")] = False,
    resume: Annotated[bool, typer.Option(help="Continue an interrupted run of the same command (the same "
                                                      "input and settings, else exit 2).")] = False,
    documents: Annotated[bool, typer.Option(
        help="The input is documents of several lines (sentences): a blank line ends one in a .txt, a JSONL record "
             "belongs to the one of the records before it with the same 'doc' field. Each line is still tagged and "
             "written on its own; the document stages (abbreviations, repeated names) also read it after up to 20 "
             "lines before it in its document, as uner eval --context 20 reads a gold file.")] = False,
    stop_descriptors: Annotated[Optional[Path], typer.Option(help="Descriptors to ignore, whitespace-separated.")] = None,
    engine: TagEngineOpt = None,
    workers: NumActorsOpt = None,
    num_cpus_per_actor: CpusPerActorOpt = 1.0,
    address: AddressOpt = None,
    dtype: Annotated[str, typer.Option(help="Model weights: auto (bfloat16 where it is faster on this CPU: AMX, or a "
                                            "cached measurement; float16 on GPUs; else float32) | float32 | bfloat16 "
                                            "| float16; with --backend onnx: auto (int8) | int8 | float32.")] = "auto",
    backend: BackendOpt = "torch",
    threads: Annotated[Optional[int], typer.Option(min=1, help="Torch threads per process (default: torch's).")] = None,
) -> None:
    """Tag entities: one output record per input line, in order; bad lines get an error field.

    Exit 0: all tagged; 1: some lines had errors; 2: the run could not start; 3: the output could not be written.
    """
    check_paths(input, out)  # at once, before the model layers below load (seconds)
    from ..tagger import SetupError, TagOptions, WriteError, tag_file
    from ..tagger.records import ModelFailure
    from ._load import tagger_config
    settings = engine_settings(engine, TAG_ENGINES, num_cpus_per_actor, address)
    teacher_options = [name for name, given in (
        ("--ensemble", ensemble), ("--explain", explain), ("--inline", inline), ("--domain", domain),
        ("--span-policy", span_policy), ("--top-k", top_k), ("--stop-descriptors", stop_descriptors),
        ("--backend", backend != "torch"), ("--dtype", dtype != "auto")) if given]
    chosen, runner, student = tag_engine(engine, model, labels, teacher_options)
    if chosen == "student":  # (its settings come from its own folder; --stages overrides them)
        tagger_kwargs = {"model": student, "stages": parse_stages(stages), "min_score": min_score}
    else:
        config = tagger_config(domain, span_policy, min_score, top_k, model, labels, stages)
        tagger_kwargs = {"model": model, "labels": labels, "config": config, "stop_descriptors": stop_descriptors,
                         "dtype": dtype, "backend": backend, "threads": threads, "ensemble": tuple(ensemble or ())}
    try:
        tagged = tag_file(input, out, tagger_kwargs, input_format=input_format, output_format=output_format,
                          options=TagOptions(inline, batch_size, explain, max_chars), resume=resume, workers=workers,
                          runner=runner, encoding=encoding, runner_settings=settings, documents=documents)
    except (SetupError, ModelFailure) as exc:
        fail(str(exc))
    except WriteError as exc:  # (the partial file keeps its whole records: --resume continues it)
        fail(str(exc), 3)
    if not tagged.records:
        typer.echo(f"uner: {input}: no lines to tag", err=True)
    if tagged.errors:
        typer.echo(f"uner: {tagged.errors} input line(s) had errors (see the 'error' fields)", err=True)
        raise typer.Exit(1)
