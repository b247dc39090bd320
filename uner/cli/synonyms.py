"""`uner synonyms`: synonym candidates from the graph and co-prediction."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import ModelOpt, app, fail, load_mlm


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
    import json

    from ..paths import labels_dir
    from ..corpus import read_paragraphs
    from ..graph import NeighbourGraph
    from ..paths import GRAPH_FILE
    from ..io import atomic_path
    from ..labels import LabelTable, load_types, term_types
    from ..models import DEFAULT_MODEL
    from ..synonyms import co_predictions, contexts
    from ..synonyms import synonyms as rank

    folder = graph or labels_dir(model or DEFAULT_MODEL)
    if not (folder / GRAPH_FILE).is_file():
        fail(f"{folder / GRAPH_FILE}: no graph; run `uner cluster` first")
    g = NeighbourGraph.load(folder)
    words = list(terms or [])
    if of_type:
        typed = term_types(LabelTable.load(folder / "label_table.npz"), load_types(folder / "types.yaml"))
        words += [t for t, ty in zip(g.vocab, typed) if ty == of_type and not t.startswith("##")]
    if not words:
        fail("give terms or --type")
    texts = [p for p in read_paragraphs(corpus) if p] if corpus else []
    mlm = load_mlm(model) if corpus else None
    records = []
    for term in words:
        try:
            g.id(term)
        except KeyError as exc:
            fail(str(exc.args[0]))
        predicted = co_predictions(mlm, term, contexts(term, texts, max_contexts)) if mlm else None
        found = rank(g, term, predicted, top)
        records.append({"term": term, "synonyms": found})
        if out is None:
            typer.echo(f"{term}: " + "  ".join(
                f"{c['term']}({c['cosine']:.2f}{', mutual' if c['mutual'] else ''}"
                f"{', co-pred ' + str(c['co_predicted']) if c['co_predicted'] else ''})" for c in found))
    if out is not None:
        with atomic_path(out) as tmp:
            tmp.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        typer.echo(f"{len(records)} terms -> {out}")
