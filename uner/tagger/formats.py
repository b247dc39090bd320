"""Output formats of tagged records — JSONL, CoNLL (IOB2), HTML — and how they reach a file.

``WRITERS`` maps a format name to its writer; a writer takes the output records and a ``Destination``
(a file path, or None for stdout) and writes them all. A file only ever holds whole records: each write
lands whole, and one that fails (a full disk) is cut back off and raised as WriteError, one line.
Records from several input files (a folder, a glob) are headed by their file's name in CoNLL and HTML,
as their ``file`` field names it in JSONL.
"""

from __future__ import annotations

import contextlib
import html
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click

from ..io import batched
from ..spans import load_spacy


def bio_tags(tokens: list[tuple[int, int]], entities: list[dict]) -> list[str]:
    """IOB2 tags for tokens given as (start, end) character offsets; a token starting inside an entity joins it."""
    tags = ["O"] * len(tokens)
    for ent in entities:
        inside = [i for i, (a, b) in enumerate(tokens) if a < ent["end"] and b > ent["start"]]
        for n, i in enumerate(inside):
            tags[i] = ("B-" if n == 0 else "I-") + ent["type"]
    return tags


def _file_starts(records: Iterable[dict]) -> Iterator[tuple[str | None, dict]]:
    """Each record with the name of the input file it is the first record of (records of a folder's or glob's
    files carry a ``file``), else None."""
    last = None
    for rec in records:
        name = rec.get("file")
        yield (name if name != last else None), rec
        last = name


def html_fragment(records: list[dict]) -> str:
    """The records with their entities highlighted, under a heading for each input file they name, as one
    ``<div class="uner">`` with its own scoped style (for embedding, e.g. in a notebook; ``html_page`` wraps
    it in a page)."""
    palette = ["#7aecec", "#bfeeb7", "#feca74", "#ff9561", "#aa9cfc", "#c887fb", "#9cc9cc", "#ffeb80", "#e4e7d2"]
    colours: dict[str, str] = {}
    body = []
    for name, rec in _file_starts(records):
        if name is not None:
            body.append(f'<h3 class="file">{html.escape(name)}</h3>')
        text, pos, parts = rec.get("text", ""), 0, []
        for ent in sorted(rec.get("entities", []), key=lambda e: e["start"]):
            colour = colours.setdefault(ent["type"], palette[len(colours) % len(palette)])
            parts.append(html.escape(text[pos : ent["start"]]))
            label = ent["type"] + (f" / {ent['subtype']}" if ent.get("subtype") else "")
            label += f" {ent['score']:.2f}" if ent.get("score") is not None else ""  # (a student gives no score)
            parts.append(f'<mark style="background:{colour}" title="{html.escape(label)}">'
                         f'{html.escape(text[ent["start"]:ent["end"]])}<span class="t">{html.escape(ent["type"])}</span></mark>')
            pos = ent["end"]
        parts.append(html.escape(text[pos:]))
        err = f'<p class="err">{html.escape(rec["error"])}</p>' if rec.get("error") else ""
        body.append(f'<div class="doc"><span class="id">{html.escape(str(rec.get("id", "")))}</span> {"".join(parts)}{err}</div>')
    style = (".uner{font-family:sans-serif;line-height:2.2}"
             ".uner mark{padding:.2em .35em;border-radius:.35em}.uner .t{font-size:.65em;font-weight:bold;margin-left:.4em}"
             ".uner .doc{border-bottom:1px solid #ddd;padding:.5em 0}.uner .id{color:#999;font-size:.8em}.uner .err{color:#b00}")
    return f'<div class="uner"><style>{style}</style>{"".join(body)}</div>'


def html_page(records: list[dict], title: str = "uner entities") -> str:
    """A self-contained HTML page with the entities of each record highlighted."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{max-width:60em;margin:2em auto}</style></head>"
            f"<body>{html_fragment(records)}</body></html>\n")


def conll_text(records: Iterable[dict], nlp) -> str:
    """``word<TAB>IOB2 tag`` lines, words from ``nlp``'s tokenizer (spaces dropped), a blank line after each record
    and a ``# file = NAME`` line before the first record of each input file the records name."""
    lines: list[str] = []
    for name, rec in _file_starts(records):
        if name is not None:
            lines.append(f"# file = {name}")
        doc = nlp.make_doc(rec["text"])
        words = [t for t in doc if not t.is_space]
        tags = bio_tags([(t.idx, t.idx + len(t.text)) for t in words], rec["entities"])
        lines += [f"{t.text}\t{tag}" for t, tag in zip(words, tags)] + [""]
    return "\n".join(lines)


class WriteError(RuntimeError):
    """The output could not be written (a full disk, a folder gone …): one line naming the file and the error."""

    def __init__(self, path: str | Path, exc: OSError) -> None:
        reason = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno and exc.strerror else str(exc)
        super().__init__(f"could not write {path}: {reason}")


@contextlib.contextmanager
def appending(path: Path) -> Iterator[Callable[[bytes], None]]:
    """``append(data)`` to the end of ``path``, each call's data whole or not at all: an OSError (a full disk)
    cuts the file back to where that call began (which needs no space) and raises WriteError."""
    try:
        handle = open(path, "ab", buffering=0)
    except OSError as exc:
        raise WriteError(path, exc) from None

    def append(data: bytes) -> None:
        start = handle.tell()
        try:
            view = memoryview(data)
            while view:
                view = view[handle.write(view) :]
        except OSError as exc:
            with contextlib.suppress(OSError):  # (should even this fail, --resume cuts a torn last line off)
                handle.truncate(start)
            raise WriteError(path, exc) from None

    with handle:
        yield append


@dataclass
class Destination:
    """Where a writer puts records: ``path`` (None: stdout), appended to; JSONL writes ``flush_every`` records
    at a time; ``nlp`` gives the tokenizer of CoNLL words."""

    path: Path | None
    flush_every: int = 64
    nlp: Callable[[], object] = load_spacy


def write_jsonl(records: Iterable[dict], dest: Destination) -> None:
    """One JSON object per line, streaming (appends to a resumed file)."""
    lines = (json.dumps(rec, ensure_ascii=False) + "\n" for rec in records)
    if dest.path is None:
        sys.stdout.writelines(lines)
        return
    with appending(dest.path) as append:
        for chunk in batched(lines, dest.flush_every):
            append("".join(chunk).encode("utf-8"))


def _write_text(text: str, dest: Destination) -> None:
    """The whole text to the (empty) file, or echoed to stdout."""
    if dest.path is None:
        click.echo(text)  # as the CLI echoes: a final newline, ANSI codes stripped off a non-terminal
    else:
        with appending(dest.path) as append:
            append(text.encode("utf-8"))


def write_conll(records: Iterable[dict], dest: Destination) -> None:
    """CoNLL: all records, then one write."""
    records = list(records)
    _write_text(conll_text(records, dest.nlp()), dest)


def write_html(records: Iterable[dict], dest: Destination) -> None:
    """A self-contained HTML page: all records, then one write."""
    _write_text(html_page(list(records)), dest)


WRITERS: dict[str, Callable[[Iterable[dict], Destination], None]] = {
    "jsonl": write_jsonl, "conll": write_conll, "html": write_html}


def format_for(out: str, given: str | None = None) -> str:
    """``given``, else the format named by ``out``'s extension, else jsonl; ValueError for an unknown format."""
    fmt = given or next((f for f in WRITERS if out.endswith("." + f)), "jsonl")
    if fmt not in WRITERS:
        raise ValueError(f"unknown format {fmt!r}")
    return fmt
