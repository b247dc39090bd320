"""`uner synonyms`: synonym candidates read off the MLM at the term's place (``uner.vocab.synonyms``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..io import atomic_write_text, read_paragraphs
from ..labels import LabelsFolder, term_types
from ..paths import labels_dir
from ..vocab import SynonymHarvester, format_synonyms
from ._load import load_mlm
from ._util import ModelOpt, app, fail


@app.command()
def synonyms(
    terms: Annotated[Optional[list[str]], typer.Argument(help="Words or quoted phrases to find synonyms for.")] = None,
    model: ModelOpt = None,
    corpus: Annotated[Optional[Path], typer.Option(help="Text whose sentences holding the term add contexts and "
                                                        "contrast/synonymy evidence from the parse.")] = None,
    max_contexts: int = 64,
    of_type: Annotated[Optional[str], typer.Option("--type", help="Batch mode: every labelled term of this type.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Batch mode output (JSONL).")] = None,
    top: int = 10,
) -> None:
    """Synonym candidates: the MLM's substitutes at the term's place, co-predictions in its contexts, synonymy and
    contrast patterns (no corpus needed). A term that is not a word or phrase is reported and the others go on
    (exit 1 at the end)."""
    if corpus is not None and not corpus.is_file():
        fail(f"{corpus}: no such file")
    mlm = load_mlm(model)
    words = list(terms or [])
    if of_type:
        labels = LabelsFolder(labels_dir(model))
        typed = term_types(labels.load_table(), labels.load_types())
        words += [t for t, ty in zip(mlm.vocab, typed) if ty == of_type and not t.startswith("##")]
    if not words:
        fail("give terms or --type")
    texts = [p for p in read_paragraphs(corpus) if p] if corpus else ()
    records = list(SynonymHarvester(mlm, texts, max_contexts=max_contexts).records(words, top))
    for rec in records:
        if "error" in rec:
            typer.echo(f"uner: error: {rec['error']}", err=True)
        elif out is None:
            typer.echo(format_synonyms(rec))
    if out is not None:
        atomic_write_text(out, "".join(json.dumps(r) + "\n" for r in records))
        typer.echo(f"{len(records)} terms -> {out}")
    if any("error" in r for r in records):
        raise typer.Exit(1)
