"""`uner synonyms`: synonym candidates from the graph and co-prediction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..io import atomic_write_text, read_paragraphs
from ..labels import LabelsFolder, term_types
from ..models import term_normaliser
from ..paths import labels_dir
from ..vocab import format_synonyms, synonym_records
from ._load import load_graph, load_mlm
from ._util import ModelOpt, app, fail


@app.command()
def synonyms(
    terms: Annotated[Optional[list[str]], typer.Argument(help="Terms to find synonyms for.")] = None,
    model: ModelOpt = None,
    graph: Annotated[Optional[Path], typer.Option(help="Folder with graph.npz (default: the model's labels folder, "
                                                       "else the user cache, built there on first use).")] = None,
    corpus: Annotated[Optional[Path], typer.Option(help="Text whose masked contexts re-rank the candidates.")] = None,
    max_contexts: int = 200,
    of_type: Annotated[Optional[str], typer.Option("--type", help="Batch mode: every labelled term of this type.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Batch mode output (JSONL).")] = None,
    top: int = 10,
) -> None:
    """Synonym candidates from the neighbour graph, re-ranked by co-prediction over a corpus. A term outside
    the vocabulary is reported and the others go on (exit 1 at the end)."""
    g = load_graph(graph, model)
    words = list(terms or [])
    if of_type:
        labels = LabelsFolder(graph or labels_dir(model))
        typed = term_types(labels.load_table(), labels.load_types())
        words += [t for t, ty in zip(g.vocab, typed) if ty == of_type and not t.startswith("##")]
    if not words:
        fail("give terms or --type")
    texts = [p for p in read_paragraphs(corpus) if p] if corpus else []
    records = list(synonym_records(g, words, load_mlm(model) if corpus else None, texts, max_contexts, top,
                                   term_normaliser(model)))
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
