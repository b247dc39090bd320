"""The student tagger: a spaCy NER pipeline taught by the masked-LM tagger, used like it.

``Student.tag`` has ``Tagger.tag``'s signature and gives the same ``Entity`` records (type and subtype from
the student's ``TYPE/SUBTYPE`` labels), so the runners, output formats and ``uner eval`` take either. One
cheap pass per sentence, no masked copies, no parser (about 56x the teacher's sentences/s on this CPU:
``benchmarks/bench_tag``). An entity's ``score`` is its confidence (the least probable of its tokens' labels) put on
the teacher's score scale by the folder's ``score_map`` (``uner.distill.calibrate``), so that one ``min_score``
means the same for both engines. Its entities go
through the same post-typing stages as the teacher's (``uner.tagger.stages``): those of the domain in the folder's
``tagger.yaml``, written by ``uner distill``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import spacy
import yaml
from spacy.util import minibatch

from ..io import atomic_write_text
from ..labels import LabelsFolder
from ..paths import SCORES_KEY, STAGES_DIR, missing_package_hint, student_dir
from .config import TaggerConfig
from .scoring import Entity
from .stages import check_stage_types, load_stages, run_stages


class Student:
    """A trained student pipeline (``spacy.load``-able folder) as a tagger."""

    def __init__(self, nlp, stages: tuple[str, ...] | None = None, domain: str = "general",
                 stage_folder: str | None = None, score_map: tuple[tuple[float, float], ...] | None = None,
                 min_score: float | None = None) -> None:
        """``stages``: the post-typing stages to run (ValueError when one names a type the student does not
        tag); None: those of ``domain`` whose types it tags (a stage cannot act on types the student never gives).
        ``stage_folder``: where the stages' word lists are (its ``stages/``; None or without them: the shipped
        labels'). ``score_map``: ``[raw, score]`` knots for the entities' scores (None: raw confidences).
        ``min_score``: only entities scoring above it are kept (None: all)."""
        if "ner" not in nlp.pipe_names:
            raise ValueError("a student pipeline needs an 'ner' component")
        self.nlp = nlp
        self.domain = domain
        self.stage_folder = stage_folder
        self.score_map = score_map
        self.min_score = min_score
        tags = nlp.get_pipe("ner").labels  # (B-/I- tags of TYPE/SUBTYPE labels, or the labels themselves)
        types = {split_label(re.sub(r"^[BILU]-", "", tag))[0] for tag in tags}
        if stages is None:
            stages = tuple(s.name for s in load_stages(TaggerConfig.for_domain(domain).stages, stage_folder)
                           if set(s.types) <= types)
        self.stages = tuple(stages)
        check_stage_types(load_stages(self.stages, stage_folder), types)

    @property
    def score_map(self) -> tuple[tuple[float, float], ...] | None:
        """``[raw, score]`` knots for the entities' scores (None: raw confidences)."""
        return self._score_map

    @score_map.setter
    def score_map(self, knots: tuple[tuple[float, float], ...] | None) -> None:
        self._score_map = tuple(map(tuple, knots)) if knots else None
        self._knots = np.array(self._score_map, dtype=np.float64).T if self._score_map else None

    @classmethod
    def from_pretrained(cls, path: str | Path | None = None, stages: tuple[str, ...] | None = None,
                        min_score: float | None = None) -> Student:
        """A folder written by ``uner distill``, or a shipped student by name (default ``uner-student``;
        ``uner-student-bio`` for biomedical text, from the uner-bio package). ``stages``: the post-typing stages
        (default: the ``stages`` of the folder's ``tagger.yaml``, else those of its ``domain``); ``min_score`` as for
        ``Student``."""
        folder = student_folder(path)
        if not (folder / "meta.json").is_file():
            hint = missing_package_hint(str(path)) if path is not None and not folder.exists() else None
            raise FileNotFoundError(hint or f"{folder}: not a student pipeline folder (no meta.json); train one "
                                            "with uner distill")
        settings = LabelsFolder(folder)  # (its tagger.yaml: the domain the teacher taught with, maybe its stages)
        settings.check_files()  # (a malformed one, or a malformed stage file: one line naming it, before the load)
        try:
            stages = settings.stages() if stages is None else stages
            return cls(spacy.load(folder), stages, settings.default_domain() or "general", str(folder),
                       settings.score_map(), min_score)
        except ValueError as exc:
            raise ValueError(f"{settings.tagger_path}: {exc}") from None

    def with_stages(self, stages: Sequence[str]) -> Student:
        """This student (the same pipeline, not loaded again) running ``stages`` instead."""
        return Student(self.nlp, tuple(stages), self.domain, self.stage_folder, self.score_map, self.min_score)

    def save_pretrained(self, folder: str | Path) -> Path:
        """The pipeline and a ``tagger.yaml`` (domain, stages) in ``folder``: ``from_pretrained(folder)`` loads it back."""
        out = Path(folder)
        self.nlp.to_disk(out)
        own = Path(self.stage_folder or out) / STAGES_DIR
        if own.is_dir() and own != out / STAGES_DIR:  # the stages' own word lists
            shutil.copytree(own, out / STAGES_DIR, dirs_exist_ok=True)
        doc = {"domain": self.domain, "stages": list(self.stages)}
        if self.score_map:
            doc["score_map"] = [list(k) for k in self.score_map]
        atomic_write_text(LabelsFolder(out).tagger_path, yaml.safe_dump(doc, sort_keys=False, default_flow_style=None))
        return out

    def tag(self, texts: Iterable[str], spans: Iterable[list[tuple[int, int]] | None] | None = None, *,
            batch_size: int = 256, explain: bool = False, cache=None, rejected: bool = False) -> Iterator[list[Entity]]:
        """The entities of each text, in order. With ``spans`` (per text, character offsets or None), each given
        span gets the type of the student entity that overlaps it most (none: not an entity), decoded without the
        decoder's O bias (``o_bias`` trades entities found for surer ones; a given span is found already); a text
        without spans is tagged end to end, with it. ``explain``, ``cache`` and ``rejected`` are accepted for
        ``Tagger.tag``'s callers and do nothing here."""
        if isinstance(texts, str):
            texts = [texts]
        given = iter(spans) if spans is not None else None
        for chunk in minibatch(texts, size=batch_size):
            wanted = [next(given) if given is not None else None for _ in chunk]
            for doc, want in zip(self._docs(chunk, wanted, batch_size), wanted):
                ents = self._entities(doc)
                ents = run_stages(doc.text, ents, self.stages, self.stage_folder) if want is None else \
                    _on_spans(doc.text, ents, want)
                if self.min_score is not None:
                    ents = [e for e in ents if e.score is None or e.score > self.min_score]
                yield ents

    def _docs(self, texts: list[str], wanted: list, batch_size: int) -> list:
        """The texts' docs, in order: those without given spans decoded with the decoder's O bias, the others
        without it (a pipeline whose ``ner`` has no ``o_bias`` decodes all alike)."""
        docs: list = [None] * len(texts)
        no_bias = {"ner": {"o_bias": 0.0}} if hasattr(self.nlp.get_pipe("ner"), "o_bias") else {}
        for spanned, cfg in ((False, {}), (True, no_bias)):
            at = [i for i, w in enumerate(wanted) if (w is not None) == spanned]
            for i, doc in zip(at, self.nlp.pipe([texts[i] for i in at], batch_size=batch_size, component_cfg=cfg)):
                docs[i] = doc
        return docs

    def _entities(self, doc) -> list[Entity]:
        """The doc's entities, each scored by its raw confidence through ``map_scores`` (None from a pipeline
        that keeps no confidences)."""
        group = doc.spans.get(SCORES_KEY)
        raw = dict(zip(((s.start_char, s.end_char) for s in group), self.map_scores(group.attrs["scores"]))) \
            if group is not None else {}
        return [_entity(doc.text, e.start_char, e.end_char, e.label_, raw.get((e.start_char, e.end_char)))
                for e in doc.ents]

    def raw_confidences(self, texts: Iterable[str], batch_size: int = 256) -> list[float]:
        """The raw confidence of every entity the pipeline finds in ``texts`` (before any stage), in order."""
        return [c for doc in self.nlp.pipe(texts, batch_size=batch_size)
                if (group := doc.spans.get(SCORES_KEY)) is not None for c in group.attrs["scores"]]

    def map_scores(self, raw: Sequence[float]) -> list[float]:
        """Raw confidences on the teacher's score scale (themselves without a ``score_map``), to 4 decimals."""
        values = np.asarray(raw, dtype=np.float64)
        if self._knots is not None:
            values = np.interp(values, self._knots[0], self._knots[1])
        return values.round(4).tolist()


def student_folder(name: str | Path | None = None) -> Path:
    """The folder of the student ``name``: a folder, else a shipped student's name (``uner-student-bio``); None: the
    general student. The folder may hold no student (``from_pretrained`` says so)."""
    folder = student_dir() if name is None else Path(name)
    if name is not None and not folder.exists() and (student_dir(str(name)) / "meta.json").is_file():
        return student_dir(str(name))
    return folder


def label_name(type_name: str, subtype: str | None) -> str:
    """The student's label: ``TYPE`` or ``TYPE/SUBTYPE``."""
    return f"{type_name}/{subtype}" if subtype else type_name


def split_label(label: str) -> tuple[str, str | None]:
    """``(type, subtype or None)`` of a student label."""
    type_name, _, subtype = label.partition("/")
    return type_name, subtype or None


def _entity(text: str, start: int, end: int, label: str, score: float | None) -> Entity:
    type_name, subtype = split_label(label)
    return Entity(text[start:end], start, end, type_name, subtype, score)


def _on_spans(text: str, ents: list[Entity], spans: list[tuple[int, int]]) -> list[Entity]:
    """Each given span typed by the entity that overlaps it most."""
    out = []
    for a, b in spans:
        overlap = [(min(b, e.end) - max(a, e.start), e) for e in ents if e.start < b and a < e.end]
        if overlap:
            best = max(overlap, key=lambda x: x[0])[1]
            out.append(Entity(text[a:b], a, b, best.type, best.subtype, best.score))
    return out
