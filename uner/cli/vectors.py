"""Sentence vectors: `uner embed`, `whiten`, `flow`, `search`, `classify`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ..io import FileRecords, InputError, MissingExtra, RayOptions, atomic_write_text, save_npy
from ..models import ModelNotFoundError
from ..vectors import (AdditiveFlow, NearestNeighbourClassifier, Pooling, Whitening, embed_records, read_examples,
                       streamed_stats, top_k_similar)
from ..vectors import embed as embed_texts
from ._engine import EMBED_ENGINES, AddressOpt, CpusPerActorOpt, EmbedEngineOpt, NumActorsOpt, engine_settings
from ._load import load_mlm
from ._util import ModelOpt, PoolingOpt, app, fail, map_vectors, read_texts, read_vectors

whiten_app = typer.Typer(no_args_is_help=True, help="Fit or apply a whitening transform to vector files.")
flow_app = typer.Typer(no_args_is_help=True, help="Fit or apply an additive-coupling flow to vector files.")
app.add_typer(whiten_app, name="whiten")
app.add_typer(flow_app, name="flow")


@app.command()
def embed(
    input: Annotated[str, typer.Argument(help=".txt (one document per line), .jsonl (text field), - for stdin, "
                                              "or a folder or quoted glob of such files.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output .npy (n × d float32).")],
    model: ModelOpt = None,
    pooling: PoolingOpt = "mean",
    k: Annotated[int, typer.Option(help="Layers for last-k-mean.")] = 4,
    window: Annotated[Optional[int], typer.Option(help="Tokens per window for long documents (default: the model's).")] = None,
    stride: Annotated[Optional[int], typer.Option(help="Window stride (default: half a window).")] = None,
    whiten: Annotated[Optional[Path], typer.Option(help="Apply this whitening transform (.npz) to the vectors.")] = None,
    input_format: Annotated[Optional[str], typer.Option(help="txt | jsonl (default: from the extension).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Documents per model call.")] = 512,
    engine: EmbedEngineOpt = "serial",
    num_actors: NumActorsOpt = None,
    num_cpus_per_actor: CpusPerActorOpt = 1.0,
    address: AddressOpt = None,
) -> None:
    """Sentence/document vectors, one row per input line."""
    try:
        pool = Pooling(pooling, k)
    except ValueError as exc:
        fail(f"--pooling: {exc}")
    settings = engine_settings(engine, EMBED_ENGINES, num_cpus_per_actor, address)
    transform = Whitening.load(whiten) if whiten else None
    try:
        records = FileRecords.find(input, input_format, keep_bad=False)
        if engine == "ray":
            cluster = RayOptions(num_actors, batch_size, **settings)
            vecs = embed_records(records, model, pool, window=window, stride=stride, options=cluster)
        else:
            vecs = embed_texts(load_mlm(model), (r.text for r in records), pool, window=window, stride=stride, chunk=batch_size)
    except (ValueError, OSError, ModelNotFoundError, MissingExtra) as exc:  # (InputError is a ValueError)
        fail(str(exc))
    if transform is not None:
        vecs = transform.transform(vecs)
    save_npy(out, vecs)
    typer.echo(f"{vecs.shape[0]} vectors of dimension {vecs.shape[1]} ({pooling}) -> {out}")


@whiten_app.command("fit")
def whiten_fit(
    vectors: Annotated[list[Path], typer.Argument(help=".npy vector files, streamed in chunks.")],
    out: Annotated[Path, typer.Option("--out", "-o")],
    k: Annotated[Optional[int], typer.Option(help="Keep only the first k whitened dimensions.")] = None,
) -> None:
    """Accumulate mean and covariance over the files and save W = U Λ^-1/2."""
    try:
        stats = streamed_stats((str(path), read_vectors(path)) for path in vectors)
        Whitening.fit(stats, k).save(out)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(f"whitening fitted on {stats.n} vectors (k={k or len(stats.mean)}) -> {out}")


@whiten_app.command("apply")
def whiten_apply(
    vectors: Path,
    transform: Annotated[Path, typer.Option("--transform", "-t", help="Whitening .npz from `uner whiten fit`.")],
    out: Annotated[Path, typer.Option("--out", "-o")],
) -> None:
    """Whiten a vector file."""
    map_vectors(vectors, out, Whitening.load(transform).transform)


@flow_app.command("fit")
def flow_fit(
    vectors: Path,
    out: Annotated[Path, typer.Option("--out", "-o")],
    layers: int = 4,
    hidden: int = 256,
    epochs: int = 20,
    lr: float = 1e-3,
) -> None:
    """Train the flow by maximum likelihood on a vector file; prints the log-likelihood per epoch."""
    x = np.asarray(read_vectors(vectors))
    flow = AdditiveFlow(x.shape[1], layers=layers, hidden=hidden)
    history = flow.fit(x, epochs=epochs, lr=lr)
    flow.save(out)
    typer.echo("log-likelihood per epoch: " + " ".join(f"{h:.1f}" for h in history))


@flow_app.command("apply")
def flow_apply(
    vectors: Path,
    transform: Annotated[Path, typer.Option("--transform", "-t", help="Flow file from `uner flow fit`.")],
    out: Annotated[Path, typer.Option("--out", "-o")],
) -> None:
    """Map a vector file through a fitted flow."""
    map_vectors(vectors, out, AdditiveFlow.load(transform).transform)


@app.command()
def search(
    queries: Annotated[list[str], typer.Argument(help="Query texts.")],
    corpus: Annotated[str, typer.Option(help="The texts the vectors were made from (.txt/.jsonl).")],
    vectors: Annotated[Path, typer.Option(help=".npy vectors of the corpus, same order.")],
    model: ModelOpt = None,
    pooling: PoolingOpt = "mean",
    whiten: Annotated[Optional[Path], typer.Option(help="Whitening used for the corpus vectors.")] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k")] = 5,
) -> None:
    """Cosine top-k search of a vector file for each query."""
    texts, corpus_vecs = read_texts(corpus, None), read_vectors(vectors)
    if len(texts) != len(corpus_vecs):
        fail(f"{corpus} has {len(texts)} texts but {vectors} has {len(corpus_vecs)} vectors")
    q = embed_texts(load_mlm(model), queries, pooling)
    if whiten:
        q = Whitening.load(whiten).transform(q)
    idx, sims = top_k_similar(q, np.asarray(corpus_vecs), top_k)
    for query, row, srow in zip(queries, idx, sims):
        typer.echo(query)
        for i, sim in zip(row, srow):
            typer.echo(f"  {sim:.3f}  {texts[i]}")


@app.command()
def classify(
    input: Annotated[str, typer.Argument(help="Texts to classify (.txt/.jsonl/-).")],
    examples: Annotated[str, typer.Option(help="Labelled examples, JSONL with text and label.")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="JSONL output (default: stdout).")] = None,
    model: ModelOpt = None,
    pooling: PoolingOpt = "mean",
    k: Annotated[int, typer.Option(help="Neighbours that vote.")] = 1,
    holdout: Annotated[float, typer.Option(help="Share of examples held out to report accuracy.")] = 0.2,
    whiten: Annotated[bool, typer.Option(help="Whiten with statistics of the examples.")] = False,
) -> None:
    """Nearest-neighbour classification by cosine to labelled examples, with a held-out accuracy report."""
    try:
        texts, labels = read_examples(examples)
    except (InputError, OSError) as exc:
        fail(str(exc))
    classifier = NearestNeighbourClassifier.fit(load_mlm(model), texts, labels, pooling, k, whiten)
    held_out = classifier.holdout_accuracy(holdout)
    if held_out is not None:
        typer.echo(f"held-out accuracy {held_out[0]:.3f} on {held_out[1]} of {len(labels)} examples", err=True)
    inputs = read_texts(input, None)
    lines = [json.dumps({"text": t, "label": p}) for t, p in zip(inputs, classifier.predict(inputs))]
    if out is None:
        typer.echo("\n".join(lines))
    else:
        atomic_write_text(out, "\n".join(lines) + "\n")
