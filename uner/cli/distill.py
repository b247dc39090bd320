"""`uner distill`: teach a fast spaCy student from the masked-LM tagger on unlabelled text."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import DomainOpt, LabelsOpt, ModelOpt, app, fail


@app.command()
def distill(
    corpus: Annotated[Optional[list[str]], typer.Argument(
        help="Unlabelled text files (.txt/.gz/.xz, a paragraph per line), each PATH or PATH:WEIGHT. Default: the "
             "domain's preset mix of the files in --corpus-dir.")] = None,
    work: Annotated[Path, typer.Option(help="Folder for every stage's output; run again to continue.")] = Path("distill"),
    out: Annotated[Path, typer.Option("--out", "-o", help="Where the student goes (a spaCy pipeline folder).")] = Path("student"),
    corpus_dir: Annotated[Path, typer.Option(help="Folder with the preset's corpus files.")] = Path("../shared/data/corpus"),
    sentences: Annotated[int, typer.Option(min=10, help="Sentences for the teacher to tag.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Sampling and training seed.")] = 0,
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    domain: DomainOpt = None,
    workers: Annotated[int, typer.Option(min=1, help="Teacher processes.")] = 1,
    min_score: Annotated[float, typer.Option(min=0.0, max=1.0, help="Teacher share an entity needs to be learned "
                                                                    "(below: missing, not 'O').")] = 0.3,
    other_min_score: Annotated[float, typer.Option(min=0.0, max=1.0, help="Not-entity share a rejected name needs "
                                                                          "to be learned as 'O' (below: missing).")] = 0.3,
    lowercase: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of training sentences shown "
                                                                    "lower-cased.")] = 0.2,
    uppercase: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of training sentences shown "
                                                                    "upper-cased (headlines).")] = 0.2,
    max_steps: Annotated[int, typer.Option(min=1, help="Training steps (spaCy batches).")] = 20_000,
    eval_frequency: Annotated[int, typer.Option(min=1, help="Steps between held-out checks (checkpoints).")] = 1_000,
    dev: Annotated[Optional[list[Path]], typer.Option(help="Gold dev file to score the student on (repeatable; "
                                                            "settings only, never training data).")] = None,
    rounds: Annotated[int, typer.Option(min=1, help="Training rounds; round 2+ relabels with the best student so far "
                                                    "and is kept only if the mean dev F1 rises (needs --dev).")] = 1,
    vectors: Annotated[bool, typer.Option(help="Give the student the teacher's word vectors (embedding and label "
                                               "types of each vocabulary word) beside its hash embeddings.")] = True,
) -> None:
    """Teacher-tag a corpus, keep its confident labels, train a spaCy student on them (no gold labels)."""
    from ..distill import DistillConfig, SelectConfig, TrainConfig, distill as run

    try:
        settings = dict(sentences=sentences, seed=seed, model=model, labels=str(labels) if labels else None,
                        workers=workers, select=SelectConfig(min_score=min_score, other_min_score=other_min_score),
                        train=TrainConfig(max_steps=max_steps, eval_frequency=eval_frequency, lowercase=lowercase,
                                          uppercase=uppercase, seed=seed),
                        dev=[str(d) for d in dev or ()], rounds=rounds, vectors=vectors)
        config = (DistillConfig(list(corpus), domain=domain or "general", **settings) if corpus else
                  DistillConfig.preset(domain or "general", corpus_dir, **settings))
        for spec in config.sources:  # every file readable before hours of tagging
            from ..corpus import Source

            Source.parse(spec)
        scores = run(config, work, out, log=lambda m: typer.echo(m, err=True))
    except (ValueError, OSError) as exc:
        fail(str(exc))
    for name, result in scores.items():
        typer.echo(f"{name}: end-to-end F1 {result['micro']['f1']:.3f}")
