"""`uner labels …`: bootstrap, validate, compile and inspect a labels folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ._util import ModelOpt, app, fail, load_mlm

labels_app = typer.Typer(no_args_is_help=True, help="Label clusters: bootstrap from seeds, validate, compile, inspect.")
app.add_typer(labels_app, name="labels")
LabelsDir = Annotated[Optional[Path], typer.Argument(help="Labels folder (default: labels/<default model>/).")]
SeedsOpt = Annotated[Optional[list[Path]], typer.Option("--seeds", help="Seed lists or a seeds folder (ner_labeling/, bootstrap_entities.txt).")]


def _labels_dir(folder: Optional[Path]) -> Path:
    from ..paths import labels_dir
    from ..models import DEFAULT_MODEL

    folder = folder or labels_dir(DEFAULT_MODEL)
    if not folder.is_dir():
        fail(f"{folder}: no such labels folder")
    return folder


def _load_labels(folder: Path, model: Optional[str], need_vocab: bool = True):
    """types, clusters doc and vocabulary of a labels folder; exits 2 listing every problem."""
    import yaml as _yaml

    from ..labels import LabelError, load_clusters, load_types
    from ..models import ModelNotFoundError, resolve_model

    problems = []
    try:
        types = load_types(folder / "types.yaml")
    except LabelError as exc:
        problems += exc.problems
        types = None
    vocab = None
    clusters_path = folder / "clusters.yaml"
    if not clusters_path.is_file():
        problems.append(f"{clusters_path}:1: missing; run `uner cluster` first")
    try:
        name = model or (_yaml.safe_load(clusters_path.read_text()) or {}).get("model")
    except (_yaml.YAMLError, OSError, AttributeError):
        need_vocab = False  # load_clusters below reports the file's own problem
    if need_vocab and not problems:
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(resolve_model(name))
            vocab = tok.convert_ids_to_tokens(list(range(len(tok))))
        except ModelNotFoundError as exc:
            problems.append(f"{clusters_path}:1: {exc}")
    doc = None
    if types is not None and clusters_path.is_file():
        try:
            doc = load_clusters(clusters_path, types, vocab)
        except LabelError as exc:
            problems += exc.problems
    if problems:
        for p in problems:
            typer.echo(p, err=True)
        raise typer.Exit(2)
    return types, doc, vocab


def _seeds(paths: Optional[list[Path]], types):
    from ..labels import LabelError, merge_seeds, read_seeds, seed_files

    files = []
    for p in paths or []:
        if p.is_dir():
            files += seed_files(p)
        elif p.is_file():
            files.append(p)
        else:
            fail(f"{p}: no such seed file or folder")
    try:
        return merge_seeds(read_seeds(f, types) for f in files)
    except LabelError as exc:
        for p in exc.problems:
            typer.echo(p, err=True)
        raise typer.Exit(2)


@labels_app.command("validate")
def labels_validate(folder: LabelsDir = None, model: ModelOpt = None) -> None:
    """Check types.yaml, clusters.yaml and terms.tsv; every problem as FILE:LINE, exit 2 if any."""
    folder = _labels_dir(folder)
    types, doc, _ = _load_labels(folder, model)
    terms = _seeds([folder / "terms.tsv"], types) if (folder / "terms.tsv").is_file() else {}
    confirmed = sum(e.get("status") == "confirmed" for e in doc["clusters"])
    typer.echo(f"{folder}: ok ({len(doc['clusters'])} clusters, {confirmed} confirmed, {len(terms)} terms.tsv entries)")


@labels_app.command("bootstrap")
def labels_bootstrap(folder: LabelsDir = None, seeds: SeedsOpt = None, model: ModelOpt = None) -> None:
    """Suggest labels for every cluster from the seed lists (human fields are kept)."""
    from ..labels import bootstrap, dump_clusters

    folder = _labels_dir(folder)
    types, doc, _ = _load_labels(folder, model)
    n = bootstrap(doc, _seeds(seeds, types), types)
    dump_clusters(folder / "clusters.yaml", doc)
    typer.echo(f"suggestions for {n} of {len(doc['clusters'])} clusters -> {folder / 'clusters.yaml'}")


@labels_app.command("compile")
def labels_compile(folder: LabelsDir = None, seeds: SeedsOpt = None, model: ModelOpt = None,
                   neighbours: Annotated[int, typer.Option(help="Labelled neighbours per neighbourhood.")] = 20) -> None:
    """Propagate confirmed cluster labels, seeds and the folder's terms.tsv over the neighbourhoods into label_table.npz."""
    from ..clustering import special_mask
    from ..labels import compile_table

    folder = _labels_dir(folder)
    types, doc, vocab = _load_labels(folder, model)
    terms = _seeds([folder / "terms.tsv"], types) if (folder / "terms.tsv").is_file() else {}
    seed_terms = _seeds(seeds, types)
    mlm = load_mlm(model or doc.get("model"))
    special = special_mask(vocab, mlm.tokenizer.all_special_tokens)
    table, seed_mat = compile_table(vocab, mlm.word_embeddings(), types, doc["clusters"], seed_terms,
                                    special, want=neighbours, terms=terms)
    table.save(folder / "label_table.npz")
    confirmed = sum(e.get("status") == "confirmed" for e in doc["clusters"])
    typer.echo(f"{confirmed} confirmed clusters, {len(seed_terms)} seed terms, {len(terms)} terms.tsv entries: "
               f"{int((seed_mat.sum(1) > 0).sum())} labelled vocabulary terms -> {len(np.unique(table.rows))} "
               f"after propagation -> {folder / 'label_table.npz'}")


@labels_app.command("stats")
def labels_stats(folder: LabelsDir = None) -> None:
    """Per label: terms labelled directly, reached by propagation, and won (strongest label), strength, magnification."""
    from ..labels import LabelTable, label_stats, load_types

    folder = _labels_dir(folder)
    rows = label_stats(load_types(folder / "types.yaml"), LabelTable.load(folder / "label_table.npz"))
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
    from transformers import AutoTokenizer

    from ..labels import LabelTable, load_types, term_distribution, type_rollup
    from ..models import resolve_model

    folder = _labels_dir(folder)
    table = LabelTable.load(folder / "label_table.npz")
    types = load_types(folder / "types.yaml")
    tok = AutoTokenizer.from_pretrained(resolve_model(model))
    vocab = {t: i for i, t in enumerate(tok.convert_ids_to_tokens(list(range(len(tok)))))}
    unknown = [t for t in terms if t not in vocab and t.lower() not in vocab]
    if unknown:
        fail(f"not in the vocabulary: {', '.join(map(repr, unknown))}")
    dist, own = term_distribution(table, types), table.direct_dense()  # dist: what the tagger votes with
    names, rollup = type_rollup([types.parent(lab) for lab in table.labels])
    for term in terms:
        i = vocab.get(term, vocab.get(term.lower()))
        row = table.dense_row(i)
        if not row.any():
            typer.echo(f"{term}: no labels")
            continue
        order = np.argsort(-row)[:top]
        typer.echo(f"{term}: " + "  ".join(f"{table.labels[j]} {row[j]:.0f}" for j in order if row[j] > 0))
        if own[i].any():
            typer.echo("  own labels: " + "  ".join(f"{table.labels[j]} {own[i, j]:.0f}" for j in np.flatnonzero(own[i])))
        typed = dist[i] @ rollup
        best = np.argsort(-typed, kind="stable")[:top]
        typer.echo("  votes as: " + "  ".join(f"{names[j]} {typed[j]:.2f}" for j in best if typed[j] >= 0.005))
