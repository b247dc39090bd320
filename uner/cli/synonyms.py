"""`uner synonyms`: synonym candidates from the graph and co-prediction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import ModelOpt, app, fail, load_graph, load_mlm


@app.command()
def synonyms(
    terms: Annotated[Optional[list[str]], typer.Argument(help="Terms to find synonyms for.")] = None,
    model: ModelOpt = None,
    graph: Annotated[Optional[Path], typer.Option(help="Folder with graph.npz (default: labels/<model>/).")] = None,
    corpus: Annotated[Optional[Path], typer.Option(help="Text whose masked contexts re-rank the candidates.")] = None,
    max_contexts: int = 200,
    of_type: Annotated[Optional[str], typer.Option("--type", help="Batch mode: every labelled term of this type.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Batch mode output (JSONL).")] = None,
    top: int = 10,
) -> None:
    """Synonym candidates from the neighbour graph, re-ranked by co-prediction over a corpus."""
    from ..corpus import read_paragraphs
    from ..io import atomic_write_text
    from ..labels import LabelsFolder, term_types
    from ..synonyms import format_synonyms, synonym_records

    g, folder = load_graph(graph, model)
    words = list(terms or [])
    if of_type:
        labels = LabelsFolder(folder)
        typed = term_types(labels.load_table(), labels.load_types())
        words += [t for t, ty in zip(g.vocab, typed) if ty == of_type and not t.startswith("##")]
    if not words:
        fail("give terms or --type")
    texts = [p for p in read_paragraphs(corpus) if p] if corpus else []
    records = []
    try:
        for rec in synonym_records(g, words, load_mlm(model) if corpus else None, texts, max_contexts, top):
            records.append(rec)
            if out is None:
                typer.echo(format_synonyms(rec))
    except KeyError as exc:
        fail(str(exc.args[0]))
    if out is not None:
        atomic_write_text(out, "".join(json.dumps(r) + "\n" for r in records))
        typer.echo(f"{len(records)} terms -> {out}")
