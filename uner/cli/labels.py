"""`uner labels …`: bootstrap, validate, compile and inspect a labels folder."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ..labels import (LabelError, LabelsFolder, LabelTable, TypeHierarchy, bootstrap, compile_labels, label_stats,
                      load_seeds, term_distribution, type_rollup)
from ..models import ModelNotFoundError, load_vocabulary, term_normaliser
from ..labels.retarget import retarget
from ..labels.user_types import add_types
from ..paths import ReadOnlyError, check_writable
from ._util import ModelOpt, app, fail

labels_app = typer.Typer(no_args_is_help=True, help="Label clusters: bootstrap from seeds, validate, compile, inspect.")
app.add_typer(labels_app, name="labels")
LabelsDir = Annotated[Optional[Path], typer.Argument(help="Labels folder (default: labels/<default model>/).")]
SeedsOpt = Annotated[Optional[list[Path]], typer.Option("--seeds", help="Seed lists or a seeds folder (ner_labeling/, bootstrap_entities.txt).")]


@contextmanager
def _reported() -> Iterator[None]:
    """File problems (LabelError) each as FILE:LINE on stderr, a missing folder, seed file or model or a folder of
    the installed package (read-only) as one line; exit 2."""
    try:
        yield
    except LabelError as exc:
        for p in exc.problems:
            typer.echo(p, err=True)
        raise typer.Exit(2) from None
    except (FileNotFoundError, ReadOnlyError, ModelNotFoundError) as exc:
        fail(str(exc))


@labels_app.command("validate")
def labels_validate(folder: LabelsDir = None, model: ModelOpt = None) -> None:
    """Check types.yaml, clusters.yaml, terms.tsv and what a tagger reads besides (tagger.yaml, calibration.yaml,
    stages/*.yaml); every problem as FILE:LINE, exit 2 if any."""
    with _reported():
        labels = LabelsFolder.existing(folder)
        labels.check_files()
        review = labels.load_review(model)
        terms = labels.load_terms(review.types)
    typer.echo(f"{labels.path}: ok ({len(review.clusters)} clusters, {review.confirmed} confirmed, "
               f"{len(terms)} terms.tsv entries)")


@labels_app.command("bootstrap")
def labels_bootstrap(folder: LabelsDir = None, seeds: SeedsOpt = None, model: ModelOpt = None) -> None:
    """Suggest labels for every cluster from the seed lists (human fields are kept)."""
    with _reported():
        labels = LabelsFolder.existing(folder)
        check_writable(labels.path)
        review = labels.load_review(model)
        seed_terms = load_seeds(labels.seed_sources(seeds or []), review.types)
    n = bootstrap(review.doc, seed_terms, review.types)
    typer.echo(f"suggestions for {n} of {len(review.clusters)} clusters -> {labels.save_clusters(review.doc)}")


@labels_app.command("compile")
def labels_compile(folder: LabelsDir = None, seeds: SeedsOpt = None, model: ModelOpt = None,
                   neighbours: Annotated[int, typer.Option(help="Labelled neighbours per neighbourhood.")] = 20) -> None:
    """Propagate confirmed cluster labels, seeds and the folder's terms.tsv over the neighbourhoods into label_table.npz."""
    with _reported():
        report = compile_labels(folder, model, seeds or [], neighbours)
    typer.echo(str(report))


@labels_app.command("stats")
def labels_stats(folder: LabelsDir = None) -> None:
    """Per label: terms labelled directly, reached by propagation, and won (strongest label), strength, magnification."""
    with _reported():
        labels = LabelsFolder.existing(folder)
    rows = label_stats(labels.load_types(), labels.load_table())
    typer.echo(f"{'label':<34} {'type':<28} {'direct':>7} {'reached':>8} {'top':>7} {'strength':>10} {'x top':>6}")
    for r in rows:
        mag = f"{r['magnification']:.1f}" if r["seeded"] else "-"
        typer.echo(f"{r['label']:<34} {r['type']:<28} {r['seeded']:>7} {r['reached']:>8} {r['top']:>7} "
                   f"{r['strength']:>10.0f} {mag:>6}")


@labels_app.command("show")
def labels_show(terms: Annotated[list[str], typer.Argument(help="One or more vocabulary terms.")],
                folder: Annotated[Optional[Path], typer.Option("--labels")] = None,
                model: ModelOpt = None, top: int = 8) -> None:
    """Each term's entity vector: propagated counts, its own labels, and the type distribution it votes with."""
    with _reported():
        labels = LabelsFolder.existing(folder)
    table, types = labels.load_table(), labels.load_types()
    vocab = {t: i for i, t in enumerate(load_vocabulary(model)[0])}
    normalise = term_normaliser(model)
    unknown = [t for t in terms if t not in vocab and normalise(t) not in vocab]
    if unknown:
        fail(f"not in the vocabulary: {', '.join(map(repr, unknown))}")
    for line in _entity_vectors(table, types, [(t, vocab.get(t, vocab.get(normalise(t)))) for t in terms], top):
        typer.echo(line)


def _entity_vectors(table: LabelTable, types: TypeHierarchy, terms: list[tuple[str, int]], top: int) -> Iterator[str]:
    """`labels show` lines for each (term, vocabulary id)."""
    dist, own = term_distribution(table, types), table.direct_dense()  # dist: what the tagger votes with
    names, rollup = type_rollup([types.parent(lab) for lab in table.labels])
    for term, i in terms:
        row = table.dense_row(i)
        if not row.any():
            yield f"{term}: no labels"
            continue
        order = np.argsort(-row)[:top]
        yield f"{term}: " + "  ".join(f"{table.labels[j]} {row[j]:.0f}" for j in order if row[j] > 0)
        if own[i].any():
            yield "  own labels: " + "  ".join(f"{table.labels[j]} {own[i, j]:.0f}" for j in np.flatnonzero(own[i]))
        typed = dist[i] @ rollup
        best = np.argsort(-typed, kind="stable")[:top]
        yield "  votes as: " + "  ".join(f"{names[j]} {typed[j]:.2f}" for j in best if typed[j] >= 0.005)



@labels_app.command("add-types")
def labels_add_types(
    types_file: Annotated[Path, typer.Argument(help="Your types: TYPE: \\[seed terms], or TYPE: {parent, description, seeds}.")],
    folder: LabelsDir = None,
    replace: Annotated[bool, typer.Option(help="Your types instead of the folder's (not-entity labels kept).")] = False,
) -> None:
    """Merge your own entity types into the folder's types.yaml and their seeds into its seeds.yaml (nothing is
    written when the file has a problem: each is reported as FILE:LINE)."""
    with _reported():
        labels = LabelsFolder.existing(folder)
        check_writable(labels.path)
        new, seeds = add_types(labels, types_file, replace)
    for t in new:
        typer.echo(f"{t.name}{' under ' + t.parent if t.parent else ''}: {len(seeds.get(t.name, []))} seed terms")
    typer.echo(f"-> {labels.types_path}, {labels.seeds_path}; next: uner labels bootstrap {labels.path}, then "
               f"uner annotate {labels.path}")


@labels_app.command("retarget")
def labels_retarget(
    folder: Annotated[Path, typer.Argument(help="The labels folder to carry (a model's, or an adapted one).")],
    model: Annotated[str, typer.Option("--model", "-m", help="The model to carry it to.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The new labels folder (must not exist).")],
    from_model: Annotated[Optional[str], typer.Option(help="The model the folder's table is indexed by (default: "
                                                        "the one its tagger.yaml names, else the embedded model).")] = None,
) -> None:
    """Carry a labels folder to another model term by term: its table re-indexed by that model's vocabulary,
    everything a person decided copied as it is (an adapted folder's tagger.yaml then names the new model)."""
    with _reported():
        source = LabelsFolder.existing(folder)
        old_vocab = load_vocabulary(from_model or source.model())[0]
        new_vocab = load_vocabulary(model)[0]
        try:
            done = retarget(source.path, out, old_vocab, new_vocab, model)
        except (FileExistsError, ValueError) as exc:
            fail(str(exc))
    typer.echo(str(done))
