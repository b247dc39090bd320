"""`uner relations`: relation triples between tagged entities."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..analysis import RelationExtractor, parse_type_pairs, record_triples, summary_text
from ..io import InputError, atomic_write_text, read_records
from ..tagger import Tagger
from ._util import LabelsOpt, ModelOpt, app, fail


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
    if input != "-" and not Path(input).is_file():
        fail(f"{input}: no such file")
    try:
        pairs = parse_type_pairs(types) if types else None
    except ValueError as exc:
        fail(str(exc))
    try:
        extractor = RelationExtractor(Tagger.from_pretrained(model, labels), untyped, pairs,
                                      set(only.split(",")) if only else None)
        recs = list(read_records(input, input_format or ("txt" if input == "-" else None)))
    except (OSError, ValueError, InputError) as exc:
        fail(str(exc))
    triples, lines = record_triples(extractor, recs, batch_size)
    if summary:
        typer.echo(summary_text(triples, len(recs), top, untyped))
    elif out == "-":
        typer.echo("\n".join(lines))
    else:
        atomic_write_text(out, "".join(x + "\n" for x in lines))
