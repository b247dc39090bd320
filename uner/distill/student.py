"""The student tagger: a spaCy NER pipeline taught by the masked-LM tagger, used like it.

``Student.tag`` has ``Tagger.tag``'s signature and gives the same ``Entity`` records (type and subtype from
the student's ``TYPE/SUBTYPE`` labels), so the runners, output formats and ``uner eval`` take either. One
cheap pass per sentence, no masked copies, no parser (79x the teacher's sentences/s on a bf16 CPU:
``benchmarks/bench_tag``). The student has no vote shares, so its entities' ``score`` is None.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..paths import student_dir
from ..tagger.scoring import Entity, person_without_title
from ..tagger.teams import team_entities
from .select import split_label


class Student:
    """A trained student pipeline (``spacy.load``-able folder) as a tagger."""

    def __init__(self, nlp) -> None:
        if "ner" not in nlp.pipe_names:
            raise ValueError("a student pipeline needs an 'ner' component")
        self.nlp = nlp

    @classmethod
    def from_pretrained(cls, path: str | Path | None = None) -> Student:
        """A folder written by ``uner distill``, or a shipped student by name (default ``uner-student``;
        ``uner-student-bio`` for biomedical text)."""
        import spacy

        folder = student_dir() if path is None else Path(path)
        if path is not None and not folder.exists() and (student_dir(str(path)) / "meta.json").is_file():
            folder = student_dir(str(path))
        if not (folder / "meta.json").is_file():
            raise FileNotFoundError(f"{folder}: not a student pipeline folder (no meta.json); train one with uner distill")
        return cls(spacy.load(folder))

    def tag(self, texts: Iterable[str], spans: Iterable[list[tuple[int, int]] | None] | None = None, *,
            batch_size: int = 256, explain: bool = False, cache=None, rejected: bool = False) -> Iterator[list[Entity]]:
        """The entities of each text, in order. With ``spans`` (per text, character offsets or None), each given
        span gets the type of the student entity that overlaps it most (none: not an entity). ``explain``,
        ``cache`` and ``rejected`` are accepted for ``Tagger.tag``'s callers and do nothing here."""
        if isinstance(texts, str):
            texts = [texts]
        given = iter(spans) if spans is not None else None
        for doc in self.nlp.pipe(texts, batch_size=batch_size):
            ents = [_entity(doc.text, e.start_char, e.end_char, e.label_) for e in doc.ents]
            wanted = next(given) if given is not None else None
            if wanted is None:
                yield team_entities(doc.text, [person_without_title(e, doc.text) for e in ents])
            else:
                yield _on_spans(doc.text, ents, wanted)


def _entity(text: str, start: int, end: int, label: str) -> Entity:
    type_name, subtype = split_label(label)
    return Entity(text[start:end], start, end, type_name, subtype, None)


def _on_spans(text: str, ents: list[Entity], spans: list[tuple[int, int]]) -> list[Entity]:
    """Each given span typed by the entity that overlaps it most."""
    out = []
    for a, b in spans:
        overlap = [(min(b, e.end) - max(a, e.start), e) for e in ents if e.start < b and a < e.end]
        if overlap:
            best = max(overlap, key=lambda x: x[0])[1]
            out.append(Entity(text[a:b], a, b, best.type, best.subtype, None))
    return out
