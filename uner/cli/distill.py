"""`uner distill`: teach a fast spaCy student from the masked-LM tagger on unlabelled text.

The teaching options are fields of ``DistillConfig`` and of its ``SelectConfig`` and ``TrainConfig``: an option's
default is the field's (None here means "not given"), and the configs validate what is given."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..distill import DistillConfig, SelectConfig, TrainConfig
from ..distill import distill as run_distill
from ..distill.calibrate import calibrate_student
from ..io import Source
from ..tagger import SetupError
from ..tagger.records import ModelFailure
from ._config import as_options, config_option, given, option_names
from ._util import DomainOpt, LabelsOpt, ModelOpt, app, fail

SELECT_OPTIONS = ("min_score", "other_min_score", "rare_target")
TRAIN_OPTIONS = ("max_steps", "eval_frequency", "lowercase", "uppercase", "seed")
DISTILL_OPTIONS = ("sentences", "seed", "model", "labels", "workers", "backend", "dev", "rounds", "vectors", "init",
                   "rehearse")
OPTIONS = option_names(DistillConfig, skip=("sources", "select", "train")) | {
    name: "--" + name.replace("_", "-") for name in SELECT_OPTIONS + TRAIN_OPTIONS}


def _opt(cls: type, name: str, help: str, *decls: str, **kwargs):
    return config_option(cls, name, *decls, help=help, **kwargs)


@app.command()
def distill(
    corpus: Annotated[Optional[list[str]], typer.Argument(
        help="Unlabelled text files (.txt/.gz/.xz, a paragraph per line), each PATH or PATH:WEIGHT. Default: the "
             "domain's preset mix of the files in --corpus-dir.")] = None,
    work: Annotated[Path, typer.Option(help="Folder for every stage's output; run again to continue.")] = Path("distill"),
    out: Annotated[Path, typer.Option("--out", "-o", help="Where the student goes (a spaCy pipeline folder).")] = Path("student"),
    corpus_dir: Annotated[Optional[Path], typer.Option(help="Folder with the preset's corpus files (needed when no "
                                                            "CORPUS is given).")] = None,
    sentences: Annotated[Optional[int], _opt(DistillConfig, "sentences", "Sentences for the teacher to tag (at least 10).")] = None,
    seed: Annotated[Optional[int], _opt(DistillConfig, "seed", "Sampling and training seed.")] = None,
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    domain: DomainOpt = None,
    workers: Annotated[Optional[int], _opt(DistillConfig, "workers", "Teacher processes.")] = None,
    backend: Annotated[Optional[str], _opt(DistillConfig, "backend", "The teacher's runtime: torch | onnx (ONNX "
                                           "Runtime, int8; pip install 'uner\\[onnx]') | auto (the faster on this "
                                           "CPU, measured once).")] = None,
    min_score: Annotated[Optional[float], _opt(SelectConfig, "min_score", "Teacher share an entity needs to be "
                                                                         "learned (below: missing, not 'O').")] = None,
    other_min_score: Annotated[Optional[float], _opt(SelectConfig, "other_min_score", "Not-entity share a rejected "
                                                     "name needs to be learned as 'O' (below: missing).")] = None,
    rare_target: Annotated[Optional[int], _opt(SelectConfig, "rare_target", "A training sentence whose rarest label "
                                               "has fewer confident examples than this is shown up to "
                                               "ceil(this / examples) times, at most 8 (0: none).")] = None,
    lowercase: Annotated[Optional[float], _opt(TrainConfig, "lowercase", "Share of training sentences shown "
                                                                         "lower-cased.")] = None,
    uppercase: Annotated[Optional[float], _opt(TrainConfig, "uppercase", "Share of training sentences shown "
                                                                         "upper-cased (headlines).")] = None,
    max_steps: Annotated[Optional[int], _opt(TrainConfig, "max_steps", "Training steps (spaCy batches).")] = None,
    eval_frequency: Annotated[Optional[int], _opt(TrainConfig, "eval_frequency", "Steps between held-out checks "
                                                                                  "(checkpoints).")] = None,
    dev: Annotated[Optional[list[Path]], typer.Option(help="Gold dev file to score the student on (repeatable; "
                                                            "settings only, never training data).")] = None,
    rounds: Annotated[Optional[int], _opt(DistillConfig, "rounds", "Training rounds; round 2+ relabels with the best "
                                          "student so far and is kept only if the mean dev F1 rises (needs --dev).")] = None,
    vectors: Annotated[Optional[bool], _opt(DistillConfig, "vectors", "Give the student the teacher's word vectors "
                                            "(embedding and label types of each vocabulary word) beside its hash "
                                            "embeddings.", "--vectors/--no-vectors")] = None,
    init: Annotated[Optional[str], _opt(DistillConfig, "init", "A trained student (folder or shipped name, e.g. "
                                        "uner-student) to go on training with this teacher's labels: its weights, "
                                        "vectors and labels, and the teacher's labels it lacks.")] = None,
    rehearse: Annotated[Optional[int], _opt(DistillConfig, "rehearse", "With --init: this many more sentences of the "
                                            "sample labelled by that student beside the teacher's, so that it keeps "
                                            "what it knew where the teacher is silent (rehearsal).")] = None,
) -> None:
    """Teacher-tag a corpus, keep its confident labels, train a spaCy student on them (no gold labels)."""
    options = dict(locals())  # (the parameters: what was given is not None)
    options.update(labels=str(labels) if labels else None, dev=[str(d) for d in dev] if dev else None)
    if not corpus and corpus_dir is None:
        fail("give CORPUS files, or --corpus-dir with the files of the domain's preset corpus mix")
    try:
        settings = dict(select=SelectConfig(**given(options, SELECT_OPTIONS)),
                        train=TrainConfig(**given(options, TRAIN_OPTIONS)), **given(options, DISTILL_OPTIONS))
        config = (DistillConfig(list(corpus), domain=domain, **settings) if corpus else
                  DistillConfig.preset(domain, corpus_dir, **settings))
    except ValueError as exc:  # (a labels folder's malformed tagger.yaml too)
        fail(as_options(str(exc), OPTIONS))
    try:
        for spec in config.sources:  # every file readable before hours of tagging
            Source.parse(spec)
        scores = run_distill(config, work, out, log=lambda m: typer.echo(m, err=True))
    except (ValueError, OSError, SetupError, ModelFailure) as exc:  # (the teach stage's, as uner tag's)
        fail(str(exc))
    for name, result in scores.items():
        typer.echo(f"{name}: end-to-end F1 {result['micro']['f1']:.3f}")


@app.command("calibrate")
def calibrate(
    student: Annotated[Path, typer.Argument(help="The student's folder (uner distill's OUT).")],
    teacher_output: Annotated[Path, typer.Argument(help="A teacher's `uner tag` JSONL on text like the student's.")],
    limit: Annotated[int, typer.Option(min=1, help="Records of TEACHER_OUTPUT to use.")] = 5000,
) -> None:
    """Put a student's entity scores on its teacher's scale, so that --min-score means the same for both
    engines: quantile matching on unlabelled text, written to the student's tagger.yaml (score_map)."""
    try:
        knots = calibrate_student(student, teacher_output, limit)
    except (ValueError, OSError, KeyError) as exc:
        fail(f"{teacher_output}: {exc}" if isinstance(exc, KeyError) else str(exc))
    typer.echo(f"{student}: score map {' '.join(f'{r:.4g}->{s:.3f}' for r, s in knots)}")
