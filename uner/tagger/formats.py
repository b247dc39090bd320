"""Output formats of tagged records — JSONL, CoNLL (IOB2), HTML — and the ``.partial`` file a run writes
(locked, so that two runs never write one output; resumable for JSONL).

``WRITERS`` maps a format name to its writer; a writer takes the output records and a ``Destination``
(a file path, or None for stdout) and writes them all.
"""

from __future__ import annotations

import contextlib
import fcntl
import html
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click

from ..spans import load_spacy


def bio_tags(tokens: list[tuple[int, int]], entities: list[dict]) -> list[str]:
    """IOB2 tags for tokens given as (start, end) character offsets; a token starting inside an entity joins it."""
    tags = ["O"] * len(tokens)
    for ent in entities:
        inside = [i for i, (a, b) in enumerate(tokens) if a < ent["end"] and b > ent["start"]]
        for n, i in enumerate(inside):
            tags[i] = ("B-" if n == 0 else "I-") + ent["type"]
    return tags


def html_fragment(records: list[dict]) -> str:
    """The records with their entities highlighted, as one ``<div class="uner">`` with its own scoped style
    (for embedding, e.g. in a notebook; ``html_page`` wraps it in a page)."""
    palette = ["#7aecec", "#bfeeb7", "#feca74", "#ff9561", "#aa9cfc", "#c887fb", "#9cc9cc", "#ffeb80", "#e4e7d2"]
    colours: dict[str, str] = {}
    body = []
    for rec in records:
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
    """``word<TAB>IOB2 tag`` lines, words from ``nlp``'s tokenizer (spaces dropped), a blank line after each record."""
    lines: list[str] = []
    for rec in records:
        doc = nlp.make_doc(rec["text"])
        words = [t for t in doc if not t.is_space]
        tags = bio_tags([(t.idx, t.idx + len(t.text)) for t in words], rec["entities"])
        lines += [f"{t.text}\t{tag}" for t, tag in zip(words, tags)] + [""]
    return "\n".join(lines)


def resume_point(partial: Path) -> int:
    """Complete JSON lines in a partial output file; a torn last line is cut off."""
    if not partial.is_file():
        return 0
    data = partial.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        partial.write_bytes(keep)
    return keep.count(b"\n")


class OutputInUseError(RuntimeError):
    """Another run is writing the same output file."""


def _lock(path: Path, out: str) -> int:
    """An open descriptor of ``path`` (created if missing) under an exclusive lock; OutputInUseError at once
    when another process holds it. The kernel drops the lock when its holder dies, even by kill -9."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputInUseError(f"{out}: another uner run is writing it ({path.name} is locked)") from None
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)  # the file was renamed or removed by the run that held it: lock the one there now


@contextlib.contextmanager
def claim_partial(out: str, resume: bool) -> Iterator[tuple[Path | None, int]]:
    """The ``OUT.partial`` file a run writes before renaming it to ``out`` (None for stdout), locked for the
    run, and how many records it already holds: its complete lines with ``resume``, else 0 (a stale one is
    emptied). A partial file left empty is removed at the end."""
    if out == "-":
        yield None, 0
        return
    partial = Path(out + ".partial")
    fd = _lock(partial, out)
    try:
        if not resume:
            os.ftruncate(fd, 0)
        yield partial, resume_point(partial) if resume else 0
    finally:
        with contextlib.suppress(FileNotFoundError):  # still ours (not renamed to ``out``) and empty: remove
            if os.fstat(fd).st_size == 0 and os.stat(partial).st_ino == os.fstat(fd).st_ino:
                partial.unlink()
        os.close(fd)


@dataclass
class Destination:
    """Where a writer puts records: ``path`` (None: stdout), appended to for JSONL; JSONL flushes every
    ``flush_every`` records; ``nlp`` gives the tokenizer of CoNLL words."""

    path: Path | None
    flush_every: int = 64
    nlp: Callable[[], object] = load_spacy


def write_jsonl(records: Iterable[dict], dest: Destination) -> None:
    """One JSON object per line, streaming (appends to a resumed file)."""
    to_file = dest.path is not None
    with open(dest.path, "a", encoding="utf-8") if to_file else contextlib.nullcontext(sys.stdout) as handle:
        for n, rec in enumerate(records, 1):
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
            if to_file and n % dest.flush_every == 0:
                handle.flush()


def _write_text(text: str, dest: Destination) -> None:
    """The whole text to the file, or echoed to stdout."""
    if dest.path is None:
        click.echo(text)  # as the CLI echoes: a final newline, ANSI codes stripped off a non-terminal
    else:
        dest.path.write_text(text, encoding="utf-8")


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
