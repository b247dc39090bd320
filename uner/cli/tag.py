"""`uner tag`: entities of every input line, as JSONL, CoNLL or HTML."""

from __future__ import annotations

import sys
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
    import itertools
    import json

    from ..io import InputError, bio_tags, html_page, read_records, resume_point
    from ..models import ModelNotFoundError
    from ..tagger import Tagger, TaggerConfig, tag_records, tag_records_parallel

    fmt = output_format or next((f for f in ("jsonl", "conll", "html") if out.endswith("." + f)), "jsonl")
    if fmt not in ("jsonl", "conll", "html"):
        fail(f"--output-format: unknown format {fmt!r}")
    if input != "-" and not Path(input).is_file():
        fail(f"{input}: no such file")
    if resume and (out == "-" or fmt != "jsonl"):
        fail("--resume needs a .jsonl output file")
    config = TaggerConfig(top_k=top_k) if top_k else TaggerConfig()
    tagger_kwargs = {"model": model, "labels": labels, "config": config, "stop_descriptors": stop_descriptors,
                     "dtype": dtype, "threads": threads}
    try:  # with workers, only they load the model; the parent just reads, orders and writes
        tagger = Tagger.from_pretrained(**tagger_kwargs) if workers == 1 else None
        if tagger is None:  # fail here, not in every worker, when the model cannot be found
            from ..models import resolve_model

            resolve_model(model)
        records = read_records(input, input_format or ("txt" if input == "-" else None), keep_bad=True)
    except (OSError, ValueError, InputError, ModelNotFoundError) as exc:
        fail(str(exc))
    partial = Path(out + ".partial") if out != "-" else None
    done = resume_point(partial) if resume and partial else 0
    if partial and not resume and partial.exists():
        partial.unlink()
    from tqdm.auto import tqdm

    todo = itertools.islice(records, done, None)
    if workers > 1:
        results = tag_records_parallel(todo, workers, tagger_kwargs, inline=inline, batch_size=batch_size,
                                       explain=explain)
    else:
        results = tag_records(tagger, todo, inline=inline, batch_size=batch_size, explain=explain)
    errors = 0
    bar = tqdm(results, desc="tagging", unit="doc", initial=done, disable=out == "-", dynamic_ncols=True)
    if fmt == "jsonl":
        handle = sys.stdout if out == "-" else open(partial, "a", encoding="utf-8")
        for rec in bar:
            errors += "error" in rec
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
            if handle is not sys.stdout and bar.n % batch_size == 0:
                handle.flush()
        if handle is not sys.stdout:
            handle.close()
    else:
        recs = list(bar)
        errors = sum("error" in r for r in recs)
        if fmt == "html":
            text = html_page(recs)
        else:
            from ..spans import load_spacy

            tokenizer = tagger.nlp if tagger is not None else load_spacy()
            lines = []
            for rec in recs:
                doc = tokenizer.make_doc(rec["text"])
                toks = [(t.idx, t.idx + len(t.text)) for t in doc if not t.is_space]
                words = [t.text for t in doc if not t.is_space]
                lines += [f"{w}\t{t}" for w, t in zip(words, bio_tags(toks, rec["entities"]))] + [""]
            text = "\n".join(lines)
        if out == "-":
            typer.echo(text)
        else:
            partial.write_text(text, encoding="utf-8")
    if partial is not None:
        partial.replace(out)
    if errors:
        typer.echo(f"uner: {errors} input line(s) had errors (see the 'error' fields)", err=True)
        raise typer.Exit(1)
