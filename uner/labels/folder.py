"""A labels folder (docs/design.md §4): finding it, loading and checking its files, saving what is compiled."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..models import ModelNotFoundError, load_vocabulary
from ..paths import (CALIBRATION_FILE, CLUSTERS_FILE, LABEL_TABLE_FILE, SEEDS_FILE, STAGES_DIR, TAGGER_FILE, TERMS_FILE,
                     TYPES_FILE, WORDS_DIR, embedded_models, labels_dir, missing_package_hint)
from .calibration import Calibration
from .problems import WORD_LISTS, LabelError, read_yaml
from .review import dump_clusters, load_clusters
from .seeds import load_seeds
from .table import LabelTable
from .types import TypeHierarchy, load_types


@dataclass
class Review:
    """A checked folder's type hierarchy, ``clusters.yaml`` document, the model named for it and that
    model's vocabulary (every member was checked against it)."""

    types: TypeHierarchy
    doc: dict
    model: str | None
    vocab: list[str] | None

    @property
    def clusters(self) -> list[dict]:
        """The cluster entries."""
        return self.doc["clusters"]

    @property
    def confirmed(self) -> int:
        """How many clusters a human confirmed."""
        return sum(e.get("status") == "confirmed" for e in self.clusters)


def _problems(check: Callable[..., object], *args) -> list[str]:
    """The problems (LabelError) that ``check(*args)`` raises; none when it passes."""
    try:
        check(*args)
    except LabelError as exc:
        return exc.problems
    return []


def _file(name: str, doc: str) -> property:
    """A read-only attribute: the path of the folder's file ``name``."""
    return property(lambda self: self.path / name, doc=doc)


class LabelsFolder:
    """The labels of one model: ``types.yaml``, ``clusters.yaml``, ``terms.tsv`` and ``label_table.npz``."""

    path: Path

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"LabelsFolder({str(self.path)!r})"

    @classmethod
    def for_model(cls, model_name: str | None = None) -> LabelsFolder:
        """The model's labels folder (the default model's without a name); it need not exist."""
        return cls(labels_dir(model_name))

    @classmethod
    def of(cls, labels: str | os.PathLike | None, model_name: str | None = None) -> LabelsFolder:
        """The folder ``labels`` when given, else the labels folder of ``model_name`` (the default model's), or
        the one it names (``named_instead_of_model``)."""
        if labels is not None:
            return cls(labels)
        return cls.named_instead_of_model(model_name) or cls.for_model(model_name)

    @classmethod
    def named_instead_of_model(cls, model: str | None) -> LabelsFolder | None:
        """The labels folder that ``model`` names where a model is asked for (``--model crossner-ai``: an adapted
        folder, ``labels/crossner-ai`` or its path, whose ``tagger.yaml`` names its model or leaves the default),
        or None when ``model`` names a model."""
        if (not model or model in embedded_models() or (Path(model) / "config.json").is_file()
                or missing_package_hint(model) is not None):  # (a packaged model's own labels, its weights missing)
            return None
        for path in (Path(model), labels_dir(model)):
            if (path / LABEL_TABLE_FILE).is_file():
                return cls(path)
        return None

    @classmethod
    def model_and_labels(cls, model: str | None, labels: str | os.PathLike | None
                         ) -> tuple[str | None, str | os.PathLike | None]:
        """``model`` and ``labels`` with a labels folder named as the model made explicit (``--model crossner-ai``:
        ``labels`` its path, ``model`` the model its ``tagger.yaml`` names, None for the default), so that what
        resolves the model before loading it (dtype, backend, the runners' checks) sees a model."""
        adapted = cls.named_instead_of_model(model) if labels is None else None
        return (model, labels) if adapted is None else (adapted.model(), str(adapted.path))

    @classmethod
    def existing(cls, path: str | os.PathLike | None = None) -> LabelsFolder:
        """The folder at ``path`` (default: the default model's); FileNotFoundError unless it is a folder."""
        folder = cls(path) if path is not None else cls.for_model()
        if not folder.path.is_dir():
            raise FileNotFoundError(f"{folder.path}: no such labels folder")
        return folder

    types_path = _file(TYPES_FILE, "``types.yaml``: the type hierarchy.")
    clusters_path = _file(CLUSTERS_FILE, "``clusters.yaml``: the human review of the clusters.")
    terms_path = _file(TERMS_FILE, "``terms.tsv``: per-term human labels.")
    seeds_path = _file(SEEDS_FILE, "``seeds.yaml``: the folder's own seed terms (``uner labels add-types``).")
    table_path = _file(LABEL_TABLE_FILE, "``label_table.npz``: the compiled table the tagger reads.")
    calibration_path = _file(CALIBRATION_FILE, "``calibration.yaml``: per-type weights and thresholds (optional).")
    tagger_path = _file(TAGGER_FILE, "``tagger.yaml``: the tagger domain these labels were made for, their "
                                     "post-typing stages and expert types (optional).")

    def _tagger_settings(self) -> dict:
        """``tagger.yaml`` as a mapping ({} without the file); LabelError for a malformed one."""
        if not self.tagger_path.is_file():
            return {}
        doc = read_yaml(self.tagger_path)
        if not isinstance(doc.get("domain"), str):
            raise LabelError([f"{self.tagger_path}:1: expected 'domain: <name>' (general | biomedical)"])
        return doc

    def default_domain(self) -> str | None:
        """``domain`` of ``tagger.yaml`` (a biomedical model's labels say ``biomedical``), None without the file;
        LabelError for a malformed one."""
        return self._tagger_settings().get("domain")

    def stages(self) -> tuple[str, ...] | None:
        """``stages`` of ``tagger.yaml``: the post-typing stages these labels' text wants, in order (None without the
        entry: the domain's). LabelError for an entry that is not a list of names."""
        names = self._tagger_settings().get("stages")
        if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            raise LabelError([f"{self.tagger_path}: stages: expected a list of stage names"])
        return None if names is None else tuple(names)

    def settings(self) -> dict:
        """``settings`` of ``tagger.yaml``: tagger settings that differ from the domain's ({} without the entry;
        ``TaggerConfig.settings`` writes them). LabelError for an entry that is not a mapping."""
        settings = self._tagger_settings().get("settings", {})
        if not isinstance(settings, dict):
            raise LabelError([f"{self.tagger_path}: settings: expected a mapping of tagger settings"])
        return settings

    def model(self) -> str | None:
        """``model`` of ``tagger.yaml``: the model these labels were saved with (``Tagger.save_pretrained``)."""
        model = self._tagger_settings().get("model")
        if model is not None and not isinstance(model, str):
            raise LabelError([f"{self.tagger_path}: model: expected a model name or folder"])
        return model

    def student(self) -> str | None:
        """``student`` of ``tagger.yaml``: the student pipeline (a shipped name or a folder) taught with these labels,
        which tags for them by default (``uner.tagger.loading.student_for``); None without the entry."""
        student = self._tagger_settings().get("student")
        if student is not None and not isinstance(student, str):
            raise LabelError([f"{self.tagger_path}: student: expected a student's name or folder"])
        return student

    def score_map(self) -> tuple[tuple[float, float], ...] | None:
        """``score_map`` of ``tagger.yaml`` (a student's): ``[raw, score]`` knots, both rising, that put its raw
        confidences on its teacher's score scale (``uner.distill.calibrate``); None without the entry."""
        knots = self._tagger_settings().get("score_map")
        if knots is None:
            return None
        try:
            pairs = tuple((float(r), float(s)) for r, s in knots)
        except (TypeError, ValueError):
            pairs = ()
        if len(pairs) < 2 or any(a[0] >= b[0] or a[1] > b[1] for a, b in zip(pairs, pairs[1:])):
            raise LabelError([f"{self.tagger_path}: score_map: expected two or more [raw, score] pairs, both rising"])
        return pairs

    def stop_descriptors(self) -> tuple[str, ...]:
        """``stop_descriptors`` of ``tagger.yaml``: descriptors the tagger ignores (empty without the entry)."""
        words = self._tagger_settings().get("stop_descriptors", [])
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise LabelError([f"{self.tagger_path}: stop_descriptors: expected a list of words"])
        return tuple(words)

    def expert_types(self, known_types: Sequence[str] = ()) -> frozenset[str]:
        """``expert_types`` of ``tagger.yaml``: the types these labels are a domain expert in (in an ensemble
        the model votes only on spans it types as one of them); empty (votes on every span) without the entry.
        LabelError for an entry that is not a list of names, or names a type outside ``known_types`` (if given)."""
        names = self._tagger_settings().get("expert_types", [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise LabelError([f"{self.tagger_path}: expert_types: expected a list of type names"])
        unknown = sorted(set(names) - set(known_types)) if known_types else []
        if unknown:
            raise LabelError([f"{self.tagger_path}: expert_types: unknown type {', '.join(unknown)}"])
        return frozenset(names)

    def check_files(self) -> None:
        """LabelError listing the problems, each as ``FILE:LINE: message``, of the files a tagger reads from the folder
        besides its table and types: ``tagger.yaml`` (and each of its entries), ``calibration.yaml``, the stages'
        settings ``stages/*.yaml`` and the word lists ``words/*.yaml``. Checked up front (``uner tag``, ``uner eval``, ``uner labels validate``), so that
        a malformed one is a line before any model loads, not a traceback once one has."""
        problems = _problems(self._tagger_settings)
        if not problems:  # (else each entry would repeat the file's own problem)
            problems = [p for entry in (self.stages, self.settings, self.model, self.student, self.score_map,
                                        self.stop_descriptors, self.expert_types) for p in _problems(entry)]
        if self.calibration_path.is_file():
            problems += _problems(Calibration.load, self.calibration_path)
        for path in sorted(p for sub in (STAGES_DIR, WORDS_DIR) for p in (self.path / sub).glob("*.yaml")):
            problems += _problems(read_yaml, path, WORD_LISTS)
        if problems:
            raise LabelError(problems)

    def seed_sources(self, extra: Sequence[str | os.PathLike] = ()) -> list[str | os.PathLike]:
        """The seed lists to read: ``extra`` and the folder's own ``seeds.yaml`` when it has one."""
        return [*extra, *([self.seeds_path] if self.seeds_path.is_file() else [])]

    def load_types(self) -> TypeHierarchy:
        """The checked type hierarchy; LabelError lists its problems."""
        return load_types(self.types_path)

    def has_table(self) -> bool:
        """Whether the labels have been compiled."""
        return self.table_path.is_file()

    def load_table(self) -> LabelTable:
        """The compiled label table; FileNotFoundError saying how to make it when there is none."""
        if not self.has_table():
            raise FileNotFoundError(f"{self.table_path}: no compiled labels; run `uner labels compile`")
        return LabelTable.load(self.table_path)

    def load_calibration(self, known_types: Sequence[str] = (), known_labels: Sequence[str] = ()) -> Calibration:
        """The per-type calibration (none without the file); LabelError for a malformed one."""
        if not self.calibration_path.is_file():
            return Calibration()
        return Calibration.load(self.calibration_path, known_types, known_labels)

    def load_review(self, model: str | None = None) -> Review:
        """Types and ``clusters.yaml`` checked against the vocabulary of ``model`` (default: the one
        ``clusters.yaml`` names). Raises LabelError listing every problem of both files."""
        problems: list[str] = []
        types = vocab = doc = None
        try:
            types = self.load_types()
        except LabelError as exc:
            problems += exc.problems
        if not self.clusters_path.is_file():
            problems.append(f"{self.clusters_path}:1: missing; run `uner cluster` first")
        if not problems:
            try:
                vocab = self._vocabulary(model)
            except ModelNotFoundError as exc:
                problems.append(f"{self.clusters_path}:1: {exc}")
        if types is not None and self.clusters_path.is_file():
            try:
                doc = load_clusters(self.clusters_path, types, vocab)
            except LabelError as exc:
                problems += exc.problems
        if problems:
            raise LabelError(problems)
        return Review(types, doc, model or doc.get("model"), vocab)

    def _vocabulary(self, model: str | None) -> list[str] | None:
        """The vocabulary of ``model`` or of the model ``clusters.yaml`` names; None when that file
        cannot be read as a mapping (``load_clusters`` then reports why)."""
        try:
            name = model or (yaml.safe_load(self.clusters_path.read_text(encoding="utf-8")) or {}).get("model")
        except (yaml.YAMLError, OSError, AttributeError):
            return None
        return load_vocabulary(name)[0]

    def load_terms(self, types: TypeHierarchy) -> dict[str, Counter]:
        """The per-term human labels of ``terms.tsv`` (none without the file); LabelError lists its problems."""
        return load_seeds([self.terms_path], types) if self.terms_path.is_file() else {}

    def save_clusters(self, doc: dict) -> Path:
        """Write ``clusters.yaml`` atomically; returns its path."""
        dump_clusters(self.clusters_path, doc)
        return self.clusters_path

    def save_table(self, table: LabelTable) -> Path:
        """Write ``label_table.npz`` atomically; returns its path."""
        table.save(self.table_path)
        return self.table_path
