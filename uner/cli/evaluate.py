"""`uner eval`: scores against gold CoNLL/TSV files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..analysis import evaluate_model, report_text
from ..analysis.evaluate import CONTEXT_SENTENCES
from ..io import MissingExtra, atomic_write_text
from ..models import ModelNotFoundError
from ._engine import tag_engine
from ._util import BackendOpt, EnsembleOpt, LabelsOpt, MinScoreOpt, ModelOpt, SpanPolicyOpt, StagesOpt, app, fail, parse_stages


@app.command("eval")
def eval_command(
    gold: Annotated[Path, typer.Argument(help="Gold file: CoNLL (word POS chunk NER) or token<TAB>tag, IOB1 or IOB2.")],
    mapping: Annotated[Optional[str], typer.Option(
        help="A YAML file mapping our types to the dataset's, or the name of a shipped one (conll2003, bc5cdr …) "
             "or of the labels folder's (default: the one the gold file's path names).")] = None,
    mode: Annotated[str, typer.Option(help="end-to-end | given-spans | both")] = "both",
    limit: Annotated[Optional[int], typer.Option(help="Only the first N sentences.")] = None,
    model: ModelOpt = None,
    labels: LabelsOpt = None,
    errors: Annotated[Optional[Path], typer.Option(help="Write end-to-end errors here (JSONL).")] = None,
    report: Annotated[Optional[Path], typer.Option(help="Write the full report here (JSON).")] = None,
    ensemble: EnsembleOpt = None,
    domain: Annotated[Optional[str], typer.Option(
        help="general | biomedical (default: the labels folder's tagger.yaml, else the dataset mapping's domain).")] = None,
    span_policy: SpanPolicyOpt = None,
    min_score: MinScoreOpt = None,
    stages: StagesOpt = None,
    engine: Annotated[Optional[str], typer.Option(
        help="student (default, as uner tag: the fast spaCy student of --model, when it has one) | teacher "
             "(the masked-LM tagger).")] = None,
    backend: BackendOpt = "torch",
    context: Annotated[int, typer.Option(
        help="0 (default): each sentence alone, as zero-shot taggers are scored. N: the document stages "
             "(abbreviations, repeated names) read each sentence after up to N sentences before it in its document, "
             "as uner tag --documents reads 20; a -DOCSTART- line begins a document, and a file without one is "
             "refused (exit 2): its sentences would be read across documents.")] = CONTEXT_SENTENCES,
) -> None:
    """Score the tagger on gold data: strict entity F1 end to end, token F1 with gold spans."""
    if not gold.is_file():
        fail(f"{gold}: no such file")
    if context < 0:
        fail(f"--context: must be 0 or more sentences, not {context}")
    if engine not in (None, "teacher", "student"):
        fail(f"--engine: unknown engine {engine!r} (student | teacher)")
    teacher_options = [name for name, given in (("--ensemble", ensemble), ("--domain", domain),
                                                ("--span-policy", span_policy), ("--backend", backend != "torch")) if given]
    _, _, student = tag_engine(engine, model, labels, teacher_options)
    changes = {k: v for k, v in (("span_policy", span_policy), ("min_score", min_score), ("stages", parse_stages(stages)))
               if v is not None}
    try:
        result = evaluate_model(gold, mapping, mode, limit, model, labels, errors, ensemble or (), domain,
                                student, backend, context, **changes)
    except (ValueError, OSError, MissingExtra, ModelNotFoundError) as exc:  # (FileNotFoundError: no student there)
        fail(str(exc))
    typer.echo(report_text(gold, result))
    if report:
        atomic_write_text(report, json.dumps(result, indent=1))
