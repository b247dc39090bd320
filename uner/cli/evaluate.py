"""`uner eval`: scores against gold CoNLL/TSV files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._util import LabelsOpt, ModelOpt, app, fail


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

    from ..evaluate import Mapping, evaluate
    from ..io import atomic_path
    from ..tagger import Ensemble, Tagger

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
