"""Loading a tagger by engine: what ``uner tag``, ``uner eval`` and the runners call."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..labels import LabelsFolder
from ..paths import DEFAULT_MODEL, STUDENT_MODEL, missing_package_hint, student_dir
from .core import Tagger
from .ensemble import Ensemble
from .protocol import EntityTagger
from .student import Student

ENGINES = ("teacher", "student")
# the shipped general teachers: the general student (taught by uner-mpnet-base) stands in for either
GENERAL_TEACHERS = (DEFAULT_MODEL, "uner-mpnet-base")
OWN_STUDENT_DIR = "student"  # an adapted labels folder's student, once ``uner distill --labels F --out F/student``


def is_student(model: str | os.PathLike | None) -> bool:
    """Whether ``model`` names a student pipeline itself (a folder with ``meta.json``, or a shipped student's name)."""
    return model is not None and ((Path(model) / "meta.json").is_file() or (student_dir(str(model)) / "meta.json").is_file())


def student_for(model: str | None = None, labels: str | os.PathLike | None = None) -> str | None:
    """The student that tags for the teacher ``model`` with ``labels`` (None: the default model's), or None when
    it has none: ``model`` itself when it is a student; else the labels folder's own ``student/`` (an adapted folder
    once distilled); else, for the model's own labels (``labels`` None), the ``student`` its ``tagger.yaml`` names
    (``uner-bio``: ``uner-student-bio``) or, for a shipped general teacher, the general student. LabelError for a malformed ``tagger.yaml``."""
    if is_student(model):
        return str(model)
    folder = LabelsFolder.of(labels, model)
    own = folder.path / OWN_STUDENT_DIR
    if (own / "meta.json").is_file():
        return str(own)
    if labels is not None:  # (labels given as a folder may be edited: the student the model's tagger.yaml names was not taught them)
        return None
    named = folder.student()
    if named is not None:
        return named
    if model is None or model in GENERAL_TEACHERS:
        return STUDENT_MODEL
    return None


def choose_engine(engine: str | None, model: str | None = None, labels: str | os.PathLike | None = None,
                  teacher_options: Sequence[str] = ()) -> tuple[str, str | None, str | None]:
    """Which engine tags by default, as ``uner tag``, ``uner eval`` and the spaCy component decide it: ``(engine,
    student, note)``. ``engine`` None is the student of ``model``/``labels`` (``student_for``), unless an option only
    the teacher has was given (``teacher_options``: their names), then the teacher, or there is no student, then the
    teacher with a one-line ``note`` saying why; ``"student"`` with no student is a ValueError; ``"teacher"`` is the teacher."""
    if engine not in (None, *ENGINES):
        raise ValueError(f"unknown engine {engine!r} ({' | '.join(ENGINES)})")
    if model is not None and (hint := missing_package_hint(str(model))) is not None:
        raise ValueError(hint)  # (the model's own package is not installed: neither engine can tag)
    if engine == "teacher":
        return "teacher", None, None
    if engine is None and teacher_options:  # (asking for what only the teacher does asks for the teacher)
        return "teacher", None, None
    student = student_for(model, labels)
    if student is not None:
        return "student", student, None
    name = labels or model
    if engine == "student" and labels is None and model is not None and Path(model).is_dir():
        raise ValueError(f"{model}: not a student pipeline folder (no meta.json); uner distill --out makes one")
    if engine == "student":
        raise ValueError(f"{name}: no student for these labels (uner distill --labels makes one)")
    if labels is not None or not LabelsFolder.of(None, model).path.is_dir():
        return "teacher", None, None  # (labels given as a folder are a teacher's; a model without labels says so itself)
    return "teacher", None, f"{name}: no student for these labels yet (uner distill makes one), so the teacher tags"


def load_tagger(ensemble: Sequence[str] = (), engine: str = "teacher", **kwargs) -> EntityTagger:
    """The ``engine``'s tagger. ``teacher``: ``Tagger.from_pretrained(**kwargs)``, voting with the ``ensemble``
    members (``MODEL`` or ``MODEL:LABELS_DIR``, equal weights) when any are given. ``student``: the student
    pipeline ``kwargs["model"]`` (default the shipped one) with ``kwargs["stages"]`` (default: its folder's), keeping
    only entities that score above ``kwargs["min_score"]`` (when given)."""
    if engine == "student":
        if ensemble:
            raise ValueError("--ensemble combines masked-LM taggers; it does not apply to the student engine")
        return Student.from_pretrained(kwargs.get("model"), kwargs.get("stages"), kwargs.get("min_score"))
    if engine != "teacher":
        raise ValueError(f"unknown engine {engine!r} ({' | '.join(ENGINES)})")
    tagger = Tagger.from_pretrained(**kwargs)
    if not ensemble:
        return tagger
    shared = {k: kwargs[k] for k in ("backend", "dtype", "device", "threads", "stop_descriptors") if k in kwargs}
    return Ensemble.from_specs(tagger, ensemble, **shared)


def load(model: str | None = None, labels: str | os.PathLike | None = None, engine: str | None = None,
         **teacher_kwargs) -> EntityTagger:
    """The tagger ``uner tag`` would use (``uner.load()``): the student of ``model``/``labels`` (the general student
    by default), or the teacher when ``engine="teacher"``, when there is no student, or when teacher settings
    (``teacher_kwargs`` of ``Tagger.from_pretrained``: ``config``, ``backend`` …) are given."""
    chosen, student, _ = choose_engine(engine, model, labels, sorted(teacher_kwargs))
    if chosen == "student":
        return load_tagger(engine="student", model=student)
    return load_tagger(model=model, labels=labels, **teacher_kwargs)
