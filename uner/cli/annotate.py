"""`uner annotate`: a local web page for labelling the clusters (uner.server)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..io import InputError, input_files
from ..server import bind, create_app, is_loopback, make_server, open_workbench, url
from ._util import ModelOpt, app, fail
from .labels import LabelsDir, SeedsOpt, _reported


@app.command()
def annotate(
    folder: LabelsDir = None,
    model: ModelOpt = None,
    host: Annotated[str, typer.Option(help="Address to listen on; anything but loopback needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8000,
    token: Annotated[Optional[str], typer.Option(envvar="UNER_TOKEN", help="Secret every request must carry.")] = None,
    seeds: SeedsOpt = None,
    corpus: Annotated[Optional[Path], typer.Option(help="Text corpus for example sentences and term counts.")] = None,
    corpus_limit: Annotated[int, typer.Option(help="Paragraphs of --corpus to read.")] = 20_000,
    records: Annotated[Optional[list[str]], typer.Option(
        help="`uner tag` output (JSONL; repeatable, a folder or a glob): sort the queue least sure first.")] = None,
) -> None:
    """Serve the annotation page for a labels folder: one key per decision, saved to clusters.yaml at once."""
    if not is_loopback(host) and not token:
        fail(f"--host {host} is reachable from other machines: give --token (or set UNER_TOKEN)")
    if corpus is not None and not corpus.is_file():
        fail(f"{corpus}: no such corpus file")
    try:
        files = [f for spec in records or [] for f in input_files(spec)]
        with _reported():
            wb = open_workbench(folder, model, seeds, corpus, corpus_limit, files)
    except InputError as exc:
        fail(str(exc))
    try:
        sock = bind(host, port)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port} ({exc.strerror})")
    counts = wb.counts()
    typer.echo(f"{wb.labels.clusters_path}: {counts['total']} clusters, {counts['done']} decided; "
               f"graph {'loaded' if wb.context.graph else 'absent (no neighbours; `uner cluster` or `uner neighbors` makes it)'}")
    if wb.doubt is not None:
        typer.echo(f"{wb.doubt.entities} tagged entities from {len(files)} record file(s): sort the queue 'least sure first'")
    typer.echo(f"annotate at {url(sock, token)}  (Ctrl-C stops; every decision is already saved)")
    make_server(create_app(wb, token)).run(sockets=[sock])
