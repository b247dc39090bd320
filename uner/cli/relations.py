"""`uner relations`: relation triples between tagged entities."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

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
    import json

    from ..io import InputError, atomic_path, read_records
    from ..relations import RelationExtractor, summarise
    from ..tagger import Tagger

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
