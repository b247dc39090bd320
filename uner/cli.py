"""The ``uner`` command line: thin Typer commands over the Python API."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Unsupervised NER with masked language models.")

ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model folder, embedded name or hub id (default: the embedded model).")]
LabelsOpt = Annotated[Optional[Path], typer.Option(help="Labels folder with label_table.npz (default: the model's).")]


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit non-zero."""
    typer.echo(f"uner: error: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def fill(
    texts: Annotated[Optional[list[str]], typer.Argument(help="Texts containing [MASK]; '-' or none reads lines from stdin.")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read texts from this file, one per line.")] = None,
    model: ModelOpt = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1)] = 10,
    labels: Annotated[Optional[Path], typer.Option(help="Labels folder for the terms' entity types (default: the model's, if compiled).")] = None,
) -> None:
    """Fill in the blanks: top-k predictions with logits (and entity types, when labels exist) at every [MASK]."""
    from .clustering import default_output_dir
    from .labels import LabelTable, load_types, term_types
    from .models import MaskedLM, ModelNotFoundError

    lines = list(texts or [])
    if file is not None:
        if not file.is_file():
            fail(f"{file}: no such file")
        lines += [ln.rstrip("\n") for ln in file.open(encoding="utf-8")]
    if not lines or lines == ["-"]:
        lines = [ln.rstrip("\n") for ln in sys.stdin]
    lines = [ln for ln in lines if ln.strip()]
    try:
        mlm = MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))
    lines = [ln.replace("[MASK]", mlm.mask_token) for ln in lines]
    try:
        results = mlm.top_k(lines, k=top_k)
    except ValueError as exc:
        fail(str(exc))
    folder = labels or default_output_dir(mlm.name)
    term_type: dict[int, str] = {}
    if (folder / "label_table.npz").is_file():
        typed = term_types(LabelTable.load(folder / "label_table.npz"), load_types(folder / "types.yaml"))
        term_type = {int(i): typed[i] for preds in results for p in preds for i in p.ids if typed[i] is not None}
    for text, preds in zip(lines, results):
        typer.echo(text)
        if not preds:
            typer.echo(f"  (no {mlm.mask_token} in this text)")
        for m, p in enumerate(preds, 1):
            cells = "  ".join(f"{tok} {logit:.2f}" + (f" [{term_type[int(i)]}]" if int(i) in term_type else "")
                              for tok, logit, i in zip(p.tokens, p.logits, p.ids))
            typer.echo(f"  mask {m}: {cells}")


@app.command()
def pretrain(
    sources: Annotated[list[str], typer.Argument(help="Corpus files (.txt/.gz/.xz, or CoNLL/TSV token files), each PATH or PATH:WEIGHT.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder: cache, checkpoint, log, final model/.")],
    init: Annotated[Optional[str], typer.Option(help="Continue from this model (adds an MLM head if it has none); omit to train from scratch.")] = None,
    tokenizer: Annotated[Optional[str], typer.Option(help="From scratch: reuse this model's tokenizer instead of learning WordPiece.")] = None,
    vocab_size: int = 30522,
    cased: bool = False,
    layers: int = 6,
    hidden: int = 384,
    heads: int = 12,
    intermediate: int = 1536,
    max_len: int = 128,
    batch_size: int = 64,
    lr: float = 1e-4,
    head_lr: float = 1e-3,
    warmup_steps: int = 500,
    schedule: Annotated[str, typer.Option(help="linear | cosine | constant")] = "linear",
    max_steps: Optional[int] = None,
    max_time: Annotated[Optional[float], typer.Option(help="Training-time budget in seconds.")] = None,
    whole_word: Annotated[bool, typer.Option("--whole-word", help="Mask whole words, not single word pieces.")] = False,
    nsp: Annotated[bool, typer.Option("--nsp", help="Add a next-sentence-prediction head and loss (BERT only).")] = False,
    head_init: Annotated[str, typer.Option(help="A freshly added BERT head's dense layer: random | identity.")] = "random",
    eval_paragraphs: int = 100,
    eval_every: int = 1000,
    save_every: int = 1000,
    seed: Annotated[Optional[int], typer.Option(help="Seed of the training windows and masks (default: 0, or one past the seed of the uner run that --init continues).")] = None,
    device: Optional[str] = None,
    save_dtype: Annotated[str, typer.Option(help="dtype of the exported model: float32 | float16 | bfloat16")] = "float32",
    bf16: Annotated[Optional[bool], typer.Option("--bf16/--no-bf16", help="bfloat16 autocast for training steps (default: on GPUs and on CPUs with native bf16).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from OUT/checkpoint.")] = False,
) -> None:
    """Train a masked LM (continue an encoder or start from scratch) on text files."""
    from .pretrain import PretrainConfig
    from .pretrain import pretrain as run

    if schedule not in ("linear", "cosine", "constant"):
        fail(f"--schedule: unknown schedule {schedule!r}")
    if head_init not in ("random", "identity"):
        fail(f"--head-init: unknown value {head_init!r}")
    if max_steps is None and max_time is None:
        fail("give --max-steps or --max-time")
    cfg = PretrainConfig(
        sources=sources, out_dir=str(out), init=init, tokenizer=tokenizer, vocab_size=vocab_size, cased=cased,
        layers=layers, hidden=hidden, heads=heads, intermediate=intermediate, max_len=max_len,
        batch_size=batch_size, lr=lr, head_lr=head_lr, warmup_steps=warmup_steps, schedule=schedule,
        max_steps=max_steps, max_time=max_time, whole_word=whole_word, nsp=nsp, head_init=head_init, eval_paragraphs=eval_paragraphs,
        eval_every=eval_every, save_every=save_every, seed=seed, device=device, save_dtype=save_dtype, bf16=bf16,
    )
    try:
        metrics = run(cfg, resume=resume)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(f"held-out masked-token top-1 {metrics['top1']:.4f}  top-10 {metrics['top10']:.4f}  "
               f"({metrics['masked_tokens']} masked tokens); model in {out / 'model'}")


@app.command()
def cluster(
    model: ModelOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output folder (default: labels/<model>/).")] = None,
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
    from .clustering import ClusterParams, cluster_vocabulary, read_term_list
    from .models import ModelNotFoundError

    for f in (subset, preserve):
        if f is not None and not f.is_file():
            fail(f"{f}: no such file")
    try:
        params = ClusterParams(max_bin=max_bin, tail_min=tail_min, min_chars=min_chars,
                               neighbourhood=neighbourhood, block_rows=block_rows)
        _, _, summary, folder = cluster_vocabulary(
            model, out, params=params, limit=limit, subset=read_term_list(subset) if subset else None,
            preserve=read_term_list(preserve) if preserve else (),
        )
    except (ModelNotFoundError, ValueError) as exc:
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
    graph: Annotated[Optional[Path], typer.Option(help="Folder with graph.npz (default: labels/<model>/).")] = None,
    top: Annotated[int, typer.Option(help="Show at most this many per list.")] = 30,
) -> None:
    """Out-, in- and mutual neighbours of TERM in the directed neighbour graph."""
    from .clustering import default_output_dir
    from .graph import GRAPH_FILE, NeighbourGraph
    from .models import DEFAULT_MODEL

    folder = graph or default_output_dir(model or DEFAULT_MODEL)
    if not (folder / GRAPH_FILE).is_file():
        fail(f"{folder / GRAPH_FILE}: no graph; run `uner cluster` first")
    g = NeighbourGraph.load(folder)
    try:
        out_n, in_n, mutual = g.out_neighbours(term), g.in_neighbours(term), g.mutual_neighbours(term)
    except KeyError as exc:
        fail(str(exc.args[0]))

    def show(name: str, items: list[tuple[str, float]]) -> None:
        cells = "  ".join(f"{t} {c:.2f}" for t, c in items[:top])
        typer.echo(f"{name} ({len(items)}): {cells}")

    typer.echo(f"{term}: tail length {g.tail_length(term)}, cut-off cosine {g.thresholds[g.id(term)]:.2f}")
    show("out", out_n)
    show("in", in_n)
    show("mutual", mutual)


whiten_app = typer.Typer(no_args_is_help=True, help="Fit or apply a whitening transform to vector files.")
flow_app = typer.Typer(no_args_is_help=True, help="Fit or apply an additive-coupling flow to vector files.")
app.add_typer(whiten_app, name="whiten")
app.add_typer(flow_app, name="flow")

PoolingOpt = Annotated[str, typer.Option(help="cls-head | cls | mean | last-k-mean | first-last-mean")]


def _texts(path: str, input_format: Optional[str]) -> list[str]:
    from .io import InputError, read_records

    try:
        return [r.text for r in read_records(path, input_format)]
    except (InputError, OSError) as exc:
        fail(str(exc))


def _load_mlm(model: Optional[str]):
    from .models import MaskedLM, ModelNotFoundError

    try:
        return MaskedLM.from_pretrained(model)
    except ModelNotFoundError as exc:
        fail(str(exc))


def _vectors(path: Path):
    from .io import InputError, load_vectors

    try:
        return load_vectors(path)
    except InputError as exc:
        fail(str(exc))


def _map_vectors(vectors: Path, out: Path, fn) -> None:
    """Apply a fitted transform to a vector file and save the result atomically."""
    from .io import save_npy

    result = fn(np.asarray(_vectors(vectors)))
    save_npy(out, result)
    typer.echo(f"{result.shape[0]} vectors of dimension {result.shape[1]} -> {out}")


@app.command()
def embed(
    input: Annotated[str, typer.Argument(help=".txt (one document per line), .jsonl (text field) or - for stdin.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output .npy (n × d float32).")],
    model: ModelOpt = None,
    pooling: PoolingOpt = "mean",
    k: Annotated[int, typer.Option(help="Layers for last-k-mean.")] = 4,
    window: Annotated[Optional[int], typer.Option(help="Tokens per window for long documents (default: the model's).")] = None,
    stride: Annotated[Optional[int], typer.Option(help="Window stride (default: half a window).")] = None,
    whiten: Annotated[Optional[Path], typer.Option(help="Apply this whitening transform (.npz) to the vectors.")] = None,
    input_format: Annotated[Optional[str], typer.Option(help="txt | jsonl (default: from the extension).")] = None,
) -> None:
    """Sentence/document vectors, one row per input line."""
    from .embeddings import Pooling
    from .embeddings import embed as run
    from .io import save_npy
    from .whitening import Whitening

    try:
        pool = Pooling(pooling, k)
    except ValueError as exc:
        fail(f"--pooling: {exc}")
    transform = Whitening.load(whiten) if whiten else None
    texts = _texts(input, input_format)
    try:
        vecs = run(_load_mlm(model), texts, pool, window=window, stride=stride)
    except ValueError as exc:
        fail(str(exc))
    if transform is not None:
        vecs = transform.apply(vecs)
    save_npy(out, vecs)
    typer.echo(f"{vecs.shape[0]} vectors of dimension {vecs.shape[1]} ({pooling}) -> {out}")


@whiten_app.command("fit")
def whiten_fit(
    vectors: Annotated[list[Path], typer.Argument(help=".npy vector files, streamed in chunks.")],
    out: Annotated[Path, typer.Option("--out", "-o")],
    k: Annotated[Optional[int], typer.Option(help="Keep only the first k whitened dimensions.")] = None,
) -> None:
    """Accumulate mean and covariance over the files and save W = U Λ^-1/2."""
    from .whitening import RunningStats, Whitening

    stats = None
    for path in vectors:
        arr = _vectors(path)
        stats = stats or RunningStats(arr.shape[1])
        for start in range(0, len(arr), 65536):
            try:
                stats.update(arr[start : start + 65536])
            except ValueError as exc:
                fail(f"{path}: {exc}")
    try:
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
    from .whitening import Whitening

    _map_vectors(vectors, out, Whitening.load(transform).apply)


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
    from .whitening import AdditiveFlow

    x = np.asarray(_vectors(vectors))
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
    from .whitening import AdditiveFlow

    _map_vectors(vectors, out, AdditiveFlow.load(transform).transform)


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
    from .embeddings import embed as run
    from .embeddings import top_k_similar
    from .whitening import Whitening

    texts, corpus_vecs = _texts(corpus, None), _vectors(vectors)
    if len(texts) != len(corpus_vecs):
        fail(f"{corpus} has {len(texts)} texts but {vectors} has {len(corpus_vecs)} vectors")
    q = run(_load_mlm(model), queries, pooling)
    if whiten:
        q = Whitening.load(whiten).apply(q)
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
    import json

    from .embeddings import embed as run
    from .embeddings import nearest_neighbour_labels
    from .io import InputError, atomic_path, read_records
    from .whitening import RunningStats, Whitening

    try:
        recs = list(read_records(examples, "jsonl"))
    except (InputError, OSError) as exc:
        fail(str(exc))
    for r in recs:
        if not isinstance(r.fields.get("label"), str):
            fail(f"{examples}:{r.line}: missing string field 'label'")
    mlm = _load_mlm(model)
    ex_vecs = run(mlm, [r.text for r in recs], pooling)
    labels = [r.fields["label"] for r in recs]
    transform = Whitening.fit(RunningStats(ex_vecs.shape[1]).update(ex_vecs)) if whiten else None
    if transform:
        ex_vecs = transform.apply(ex_vecs)
    rng = np.random.default_rng(0)
    test = rng.random(len(recs)) < holdout
    if test.any() and (~test).any():
        pred = nearest_neighbour_labels(ex_vecs[test], ex_vecs[~test], [l for l, t in zip(labels, test) if not t], k)
        acc = np.mean([p == l for p, l in zip(pred, [l for l, t in zip(labels, test) if t])])
        typer.echo(f"held-out accuracy {acc:.3f} on {int(test.sum())} of {len(recs)} examples", err=True)
    texts = _texts(input, None)
    vecs = run(mlm, texts, pooling)
    if transform:
        vecs = transform.apply(vecs)
    lines = [json.dumps({"text": t, "label": p}) for t, p in zip(texts, nearest_neighbour_labels(vecs, ex_vecs, labels, k))]
    if out is None:
        typer.echo("\n".join(lines))
    else:
        with atomic_path(out) as tmp:
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")


@app.command()
def diagnose(
    corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files for word frequencies and sentences.")],
    model: ModelOpt = None,
    max_paragraphs: int = 20000,
    sentences: Annotated[int, typer.Option(help="Corpus paragraphs embedded for the anisotropy figures.")] = 2000,
    plots: Annotated[Optional[Path], typer.Option(help="Write PNG plots here (needs matplotlib).")] = None,
) -> None:
    """Norms and k-NN distances by frequency rank, anisotropy before/after whitening, decoder bias vs frequency."""
    from .clustering import special_mask
    from .corpus import read_paragraphs
    from .diagnostics import anisotropy, bias_report, frequency_buckets, token_frequencies, whitened_anisotropy
    from .embeddings import embed_many

    for f in corpus:
        if not f.is_file():
            fail(f"{f}: no such file")
    mlm = _load_mlm(model)
    counts = token_frequencies(mlm, [str(f) for f in corpus], max_paragraphs)
    special = special_mask(mlm.vocab, mlm.tokenizer.all_special_tokens)
    typer.echo(f"(a) word embeddings by frequency rank ({int(counts.sum())} tokens counted)")
    typer.echo(f"  {'ranks':>12} {'terms':>6} {'mean count':>10} {'L2 norm':>8} {'3-NN L2':>8}")
    buckets = frequency_buckets(mlm.word_embeddings(), counts, special)
    for b in buckets:
        typer.echo(f"  {b['ranks']:>12} {b['terms']:>6} {b['mean_count']:>10.1f} {b['l2_norm']:>8.3f} {b['knn_l2']:>8.3f}")
    texts = [p for f in corpus for p in read_paragraphs(f) if p][:sentences]
    typer.echo(f"(b) anisotropy: mean cosine of random pairs of {len(texts)} paragraph vectors")
    vecs = embed_many(mlm, texts, ["cls-head", "cls", "mean", "first-last-mean"])
    for name, v in vecs.items():
        typer.echo(f"  {name:>16}: raw {anisotropy(v):.3f}   whitened {whitened_anisotropy(v):.3f}")
    rep = bias_report(mlm, counts, exclude=special)
    typer.echo(f"(c) decoder bias vs log corpus frequency over {rep['terms_seen']} seen terms: "
               f"Spearman {rep['spearman_bias_log_freq']:.3f}")
    typer.echo("  top 30: " + " ".join(f"{t}({b:.2f})" for t, b in rep["top"]))
    typer.echo("  bottom 30: " + " ".join(f"{t}({b:.2f})" for t, b in rep["bottom"]))
    if plots is not None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            fail("--plots needs matplotlib (pip install matplotlib)")
        plots.mkdir(parents=True, exist_ok=True)
        seen = (counts > 0) & ~special
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.scatter(np.log(counts[seen]), mlm.decoder_bias()[seen], s=1, alpha=0.3)
        ax.set_xlabel("log corpus frequency")
        ax.set_ylabel("MLM decoder bias")
        fig.tight_layout()
        fig.savefig(plots / "bias_vs_frequency.png", dpi=120)
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.bar([b["ranks"] for b in buckets], [b["l2_norm"] for b in buckets])
        ax.set_ylabel("mean L2 norm")
        ax.set_xlabel("frequency rank bucket")
        fig.tight_layout()
        fig.savefig(plots / "norm_by_rank.png", dpi=120)
        typer.echo(f"plots -> {plots}")


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

    from .io import InputError, bio_tags, html_page, read_records, resume_point
    from .models import ModelNotFoundError
    from .tagger import Tagger, TaggerConfig, tag_records, tag_records_parallel

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
            from .models import resolve_model

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
            from .spans import load_spacy

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


@app.command("eval")
def eval_command(
    gold: Annotated[Path, typer.Argument(help="Gold file: CoNLL (word POS chunk NER) or token<TAB>tag, IOB1 or IOB2.")],
    mapping: Annotated[Optional[Path], typer.Option(help="YAML mapping our types to the dataset's (default: by file name).")] = None,
    mode: Annotated[str, typer.Option(help="end-to-end | given-spans | both")] = "both",
    limit: Annotated[Optional[int], typer.Option(help="Only the first N sentences.")] = None,
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    errors: Annotated[Optional[Path], typer.Option(help="Write end-to-end errors here (JSONL).")] = None,
    report: Annotated[Optional[Path], typer.Option(help="Write the full report here (JSON).")] = None,
    ensemble: Annotated[Optional[list[str]], typer.Option(
        help="Another model to vote with, MODEL or MODEL:LABELS_DIR (repeatable; equal weights).")] = None,
) -> None:
    """Score the tagger on gold data: strict entity F1 end to end, token F1 with gold spans."""
    import json
    import time

    from .evaluate import Mapping, evaluate
    from .io import atomic_path
    from .tagger import Ensemble, Tagger

    if not gold.is_file():
        fail(f"{gold}: no such file")
    t0 = time.time()
    try:
        mapper = Mapping.load(mapping) if mapping else Mapping.for_file(gold)
        tagger = Tagger.from_pretrained(model, labels)
        if ensemble:
            members = [Tagger.from_pretrained(*(m.rsplit(":", 1) if ":" in m else (m, None))) for m in ensemble]
            tagger = Ensemble([tagger, *members])
        result = evaluate(tagger, gold, mapper, mode, limit, errors)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    result["seconds"] = round(time.time() - t0, 1)
    typer.echo(f"{gold}: {result['sentences']} sentences, {result['gold_entities']} gold entities, {result['seconds']} s")
    if "end_to_end" in result:
        m = result["end_to_end"]["micro"]
        typer.echo(f"  end-to-end strict micro: P {m['precision']:.3f} R {m['recall']:.3f} F1 {m['f1']:.3f}")
        for t, sc in result["end_to_end"]["per_type"].items():
            typer.echo(f"    {t:<16} P {sc['precision']:.3f} R {sc['recall']:.3f} F1 {sc['f1']:.3f} ({sc['support']})")
    if "given_spans" in result:
        g = result["given_spans"]
        typer.echo(f"  given spans, token F1 averaged over types: {g['mean_token_f1']:.3f}")
        for t, sc in g["per_type"].items():
            typer.echo(f"    {t:<16} F1 {sc['f1']:.3f} ({sc['support']} tokens)")
        typer.echo("  confusion (gold -> predicted): " + ", ".join(f"{k} {v}" for k, v in g["confusion"].items()))
    if report:
        with atomic_path(report) as tmp:
            tmp.write_text(json.dumps(result, indent=1), encoding="utf-8")


@app.command()
def relations(
    input: Annotated[str, typer.Argument(help=".txt (one document per line), .jsonl (text field) or - (stdin).")],
    out: Annotated[str, typer.Option("--out", "-o", help="Triples as JSONL (one line per triple), or - for stdout.")] = "-",
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    input_format: Annotated[Optional[str], typer.Option(help="txt | jsonl")] = None,
    types: Annotated[Optional[str], typer.Option(help="Only these type pairs, e.g. DRUG:DISEASE,PERSON:ORGANIZATION.")] = None,
    only: Annotated[Optional[str], typer.Option("--relations", help="Only these relation words, comma-separated.")] = None,
    untyped: Annotated[bool, typer.Option(help="Admit untyped noun phrases as arguments (type OTHER).")] = True,
    summary: Annotated[bool, typer.Option(help="Print the top (type1, relation, type2) patterns instead of triples.")] = False,
    top: int = 15,
    batch_size: int = 32,
) -> None:
    """Relation triples (e1, relation, e2) from tagged entities and the dependency parse."""
    import json

    from .io import InputError, atomic_path, read_records
    from .relations import RelationExtractor, summarise
    from .tagger import Tagger

    if input != "-" and not Path(input).is_file():
        fail(f"{input}: no such file")
    pairs = None
    if types:
        try:
            pairs = {tuple(p.split(":")) for p in types.split(",")}
            assert all(len(p) == 2 for p in pairs)
        except AssertionError:
            fail("--types: expected TYPE1:TYPE2[,TYPE1:TYPE2…]")
    try:
        extractor = RelationExtractor(Tagger.from_pretrained(model, labels), untyped, pairs,
                                      set(only.split(",")) if only else None)
        recs = list(read_records(input, input_format or ("txt" if input == "-" else None)))
    except (OSError, ValueError, InputError) as exc:
        fail(str(exc))
    triples = []
    lines = []
    for rec, found in zip(recs, extractor.extract([r.text for r in recs], batch_size)):
        triples.extend(found)
        lines += [json.dumps({"id": rec.id, **t.to_dict()}, ensure_ascii=False) for t in found]
    if summary:
        typer.echo(f"{len(triples)} triples from {len(recs)} documents")
        sections = [("top patterns between typed entities:", True)]
        if untyped:
            sections.append(("top patterns, untyped noun phrases (OTHER) included:", False))
        for title, typed_only in sections:
            typer.echo(title)
            for (t1, rel, t2), n in summarise(triples, top, typed_only):
                typer.echo(f"  {n:6d}  {t1} --{rel}--> {t2}")
        return
    if out == "-":
        typer.echo("\n".join(lines))
    else:
        with atomic_path(out) as tmp:
            tmp.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


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

    from .clustering import default_output_dir
    from .corpus import read_paragraphs
    from .graph import GRAPH_FILE, NeighbourGraph
    from .io import atomic_path
    from .labels import LabelTable, load_types, term_types
    from .models import DEFAULT_MODEL
    from .synonyms import co_predictions, contexts
    from .synonyms import synonyms as rank

    folder = graph or default_output_dir(model or DEFAULT_MODEL)
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
    mlm = _load_mlm(model) if corpus else None
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


labels_app = typer.Typer(no_args_is_help=True, help="Label clusters: bootstrap from seeds, validate, compile, inspect.")
app.add_typer(labels_app, name="labels")
LabelsDir = Annotated[Optional[Path], typer.Argument(help="Labels folder (default: labels/<default model>/).")]
SeedsOpt = Annotated[Optional[list[Path]], typer.Option("--seeds", help="Seed lists or a seeds folder (ner_labeling/, bootstrap_entities.txt).")]


def _labels_dir(folder: Optional[Path]) -> Path:
    from .clustering import default_output_dir
    from .models import DEFAULT_MODEL

    folder = folder or default_output_dir(DEFAULT_MODEL)
    if not folder.is_dir():
        fail(f"{folder}: no such labels folder")
    return folder


def _load_labels(folder: Path, model: Optional[str], need_vocab: bool = True):
    """types, clusters doc and vocabulary of a labels folder; exits 2 listing every problem."""
    import yaml as _yaml

    from .labels import LabelError, load_clusters, load_types
    from .models import ModelNotFoundError, resolve_model

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
    from .labels import LabelError, merge_seeds, read_seeds, seed_files

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
    from .labels import bootstrap, dump_clusters

    folder = _labels_dir(folder)
    types, doc, _ = _load_labels(folder, model)
    n = bootstrap(doc, _seeds(seeds, types), types)
    dump_clusters(folder / "clusters.yaml", doc)
    typer.echo(f"suggestions for {n} of {len(doc['clusters'])} clusters -> {folder / 'clusters.yaml'}")


@labels_app.command("compile")
def labels_compile(folder: LabelsDir = None, seeds: SeedsOpt = None, model: ModelOpt = None,
                   neighbours: Annotated[int, typer.Option(help="Labelled neighbours per neighbourhood.")] = 20) -> None:
    """Propagate confirmed cluster labels, seeds and the folder's terms.tsv over the neighbourhoods into label_table.npz."""
    from .clustering import special_mask
    from .labels import compile_table

    folder = _labels_dir(folder)
    types, doc, vocab = _load_labels(folder, model)
    terms = _seeds([folder / "terms.tsv"], types) if (folder / "terms.tsv").is_file() else {}
    seed_terms = _seeds(seeds, types)
    mlm = _load_mlm(model or doc.get("model"))
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
    from .labels import LabelTable, label_stats, load_types

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

    from .labels import LabelTable, load_types, term_distribution, type_rollup
    from .models import resolve_model

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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
