"""`uner cluster` and `uner neighbors`: the vocabulary's neighbour graph and its pivot clusters."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..models import ModelNotFoundError, term_normaliser
from ..paths import ReadOnlyError
from ..vocab import ClusterParams, ReviewedLabelsError, cluster_vocabulary, read_term_list
from ._load import load_graph
from ._util import ModelOpt, app, fail


@app.command()
def cluster(
    model: ModelOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output folder (default: labels/<model>/ of the "
                                                "source tree, or of the working directory for an installed uner).")] = None,
    carry_labels: Annotated[bool, typer.Option(help="Re-cluster a folder with reviewed clusters.yaml, carrying the "
                                                    "decisions to the new clusters (old file kept as .bak).")] = False,
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
    for f in (subset, preserve):
        if f is not None and not f.is_file():
            fail(f"{f}: no such file")
    try:
        params = ClusterParams(max_bin=max_bin, tail_min=tail_min, min_chars=min_chars,
                               neighbourhood=neighbourhood, block_rows=block_rows)
        _, _, summary, folder = cluster_vocabulary(
            model, out, params=params, limit=limit, subset=read_term_list(subset) if subset else None,
            preserve=read_term_list(preserve) if preserve else (), carry=carry_labels,
        )
    except (ModelNotFoundError, ValueError, ReviewedLabelsError, ReadOnlyError) as exc:
        fail(str(exc))
    typer.echo(f"{summary['clusters']} clusters over {summary['vocabulary']} terms "
               f"({summary['clustered_terms']} clustered), mean tail length {summary['mean_tail_length']}, "
               f"{summary['edges']} edges -> {folder}")
    typer.echo("cluster sizes: " + ", ".join(f"{k}: {v}" for k, v in summary["cluster_size_histogram"].items()))
    for line in summary.get("carried", []):
        typer.echo(f"labels: {line}")


@app.command()
def neighbors(
    term: str,
    model: ModelOpt = None,
    graph: Annotated[Optional[Path], typer.Option(help="Folder with graph.npz (default: the model's labels folder, "
                                                       "else the user cache, built there on first use).")] = None,
    top: Annotated[int, typer.Option(help="Show at most this many per list.")] = 30,
) -> None:
    """Out-, in- and mutual neighbours of TERM in the directed neighbour graph."""
    g = load_graph(graph, model)
    try:
        found = g.find(term, term_normaliser(model))
    except KeyError as exc:
        fail(str(exc.args[0]))
    lists = {"out": g.out_neighbours(found), "in": g.in_neighbours(found), "mutual": g.mutual_neighbours(found)}
    typer.echo(f"{found}: tail length {g.tail_length(found)}, cut-off cosine {g.thresholds[g.id(found)]:.2f}")
    for name, items in lists.items():
        typer.echo(f"{name} ({len(items)}): " + "  ".join(f"{t} {c:.2f}" for t, c in items[:top]))
