"""The stage registry: post-typing stages by name, and their word lists read from beside the labels.

A stage's settings (and the entity types it names) live in the labels folder of the model it serves,
``stages/<name>.yaml`` (the general ones in ``labels/uner-minilm-l6/``, the biomedical ones in ``labels/uner-bio/``,
their tables too large for a labels folder in ``models/uner-bio/stages/``); the word lists that are no stage's
(read by the candidate spans, or by two stages) in ``words/<name>.yaml``. A folder without its own copy uses the
shipped ones (the default model's first). ``load_stages`` binds each named stage to the words of one folder, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Protocol, TypeVar

from ...labels.problems import WORD_LISTS, read_yaml
from ...paths import STAGES_DIR, WORDS_DIR, embedded_models, missing_package_hint, shipped_labels_dirs
from ..scoring import Entity

StageFn = Callable[..., list[Entity]]  # (text, entities[, words=…]) -> entities


W = TypeVar("W", bound="StageWords")


class StageWords(Protocol):
    """What a stage reads: built from the word lists (``read(name)``), naming the entity types it reads or writes."""

    types: tuple[str, ...]

    @classmethod
    def read(cls, read: Words) -> StageWords: ...


@dataclass(frozen=True)
class Stage:
    """A named step over one document's kept entities: returns them in order, each the same object or a changed
    copy (retyped, re-bounded). Most stages return as many as they got, each in its place; a stage may also add
    entities or drop some (``abbreviations`` adds the short-form mentions the tagger missed): then every entity
    that is not one of its input objects counts as new or changed, and ``run_stages`` puts its output in start
    order. ``words``: the class of what ``apply`` reads from the word lists (its ``words`` argument), whose
    ``types`` the labels' ``types.yaml`` must have; None for a stage without words. ``document``: for a stage that
    reads beyond one sentence (a definition in one, its mentions in the next), ``document(text, entities[,
    words=…])`` gives the strings that ``text`` with its kept and rejected ``entities`` carries to later texts, in the
    order found (the short forms it defines, the names it tagged; none: nothing), so that
    ``run_in_context`` can run the stage again over a later text of the same document that holds one, joined to
    the texts that carry it, when a document comes as several texts; None for the other stages. ``after``: the
    stages that must come before it in a list that holds both (the entities it reads are theirs to settle); a list
    that breaks the order fails when it is resolved."""

    name: str
    apply: StageFn
    words: type[StageWords] | None = None
    document: Callable[..., tuple[str, ...]] | None = None
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadedStage:
    """A stage bound to one labels folder's words: ``apply(text, entities)``."""

    name: str
    apply: Callable[[str, Sequence[Entity]], list[Entity]] = field(repr=False)
    types: tuple[str, ...]
    document: Callable[[str, Sequence[Entity]], tuple[str, ...]] | None = field(default=None, repr=False)


STAGES: dict[str, Stage] = {}


def register(name: str, words: type[StageWords] | None = None, document: Callable[..., tuple[str, ...]] | None = None,
             after: Iterable[str] = ()) -> Callable[[StageFn], StageFn]:
    """Decorator: register ``fn(text, entities, words=…) -> entities`` as the stage ``name`` reading ``words``
    (``document``, ``after``: see ``Stage``)."""
    def add(fn: StageFn) -> StageFn:
        if name in STAGES:
            raise ValueError(f"stage {name!r} is registered twice")
        STAGES[name] = Stage(name, fn, words, document, tuple(after))
        return fn
    return add


def find_word_file(filename: str, folder: str | None = None) -> Path:
    """``stages/<filename>`` or ``words/<filename>`` of the labels ``folder``, else of the shipped labels, else of
    the shipped models (the tables too large for a labels folder: ``models/uner-bio/stages/biomedical_phrases.npz``);
    ValueError naming where it looked when there is none."""
    roots = ([Path(folder)] if folder else []) + shipped_labels_dirs() + list(embedded_models().values())
    dirs = [root / sub for root in roots for sub in (STAGES_DIR, WORDS_DIR)]
    for path in (d / filename for d in dirs):
        if path.is_file():
            return path
    hint = missing_package_hint("uner-bio")  # (the biomedical stages' files come with it)
    raise ValueError(f"no word list {filename} in {' or '.join(str(d) for d in dirs if d.is_dir())}"
                     + (f"; the biomedical stages' files: {hint}" if hint else ""))


class Settings(dict):
    """A stage file's mapping (or one nested in it): an entry it lacks is a ValueError naming the file and the field,
    not a KeyError from inside a stage."""

    def __init__(self, doc: dict, path: Path, prefix: str = "") -> None:
        super().__init__({k: Settings(v, path, f"{prefix}{k}.") if isinstance(v, dict) else v for k, v in doc.items()})
        self.path, self.prefix = path, prefix

    def __missing__(self, key):
        raise ValueError(f"{self.path}: no '{self.prefix}{key}' entry")

    def lowered(self, key: str, optional: bool = False) -> frozenset[str]:
        """The word list at ``key``, lower-cased: the words a stage compares without regard to case; an ``optional``
        list that the file lacks (one written before the entry was added) is empty."""
        return frozenset(str(w).lower() for w in (self.get(key, ()) if optional else self[key]))

    def listed_types(self, key: str = "types") -> frozenset[str] | None:
        """The entity types listed at ``key`` (the types a stage reads or changes); None when the file lists none:
        every type."""
        return None if (types := self.get(key)) is None else frozenset(map(str, types))


SAME_AS = "same_as"  # an entry written {same_as: OTHER.ENTRY} is the entry ENTRY of OTHER.yaml


@cache
def read_words(name: str, folder: str | None = None) -> Settings:
    """The word lists ``<name>.yaml`` (``find_word_file``); an entry written ``{same_as: OTHER.ENTRY}`` reads
    the entry of another such file, so that two stages share one list; ValueError naming the file when it is not a
    mapping (LabelError, ``FILE:LINE``), when such a reference names no other file's entry, or, when read, an entry it
    lacks."""
    path = find_word_file(f"{name}.yaml", folder)
    doc = read_yaml(path, WORD_LISTS)
    for key, value in doc.items():
        if isinstance(value, dict) and set(value) == {SAME_AS}:
            other, _, entry = str(value[SAME_AS]).partition(".")
            if not entry or other == name:
                raise ValueError(f"{path}: '{key}': {SAME_AS} names OTHER.ENTRY, an entry of another stage file")
            doc[key] = read_words(other, folder)[entry]
    return Settings(doc, path)


@dataclass(frozen=True)
class Words:
    """The stage and word files of one labels folder (None: the shipped labels'): ``words(name)`` reads the word
    lists ``<name>.yaml``, ``words.path(filename)`` finds a data file there (a table too large for YAML)."""

    folder: str | None = None

    def __call__(self, name: str) -> Settings:
        return read_words(name, self.folder)

    def path(self, filename: str) -> Path:
        return find_word_file(filename, self.folder)


def resolve_stages(names: Iterable[str]) -> tuple[Stage, ...]:
    """The registered stages called ``names``, in that order; ValueError naming an unknown one, or a stage listed
    before one it must run after."""
    out: list[Stage] = []
    for name in names:
        if name not in STAGES:
            raise ValueError(f"unknown stage {name!r} (registered: {', '.join(sorted(STAGES)) or 'none'})")
        out.append(STAGES[name])
    listed = [stage.name for stage in out]
    for i, stage in enumerate(out):
        late = [other for other in stage.after if other in listed[i + 1:]]
        if late:
            raise ValueError(f"stage {stage.name!r} must run after {', '.join(map(repr, late))}: list it after them")
    return tuple(out)


def load_stages(names: Iterable[str], folder: str | None = None) -> tuple[LoadedStage, ...]:
    """The stages ``names`` with the words of the labels ``folder`` (None: the shipped labels'), each read once
    (a list resolved once while its names stand for the same stages: every document of a run names the same one)."""
    names = tuple(names)
    return _load(names, tuple(STAGES.get(name) for name in names), folder)


def forget_loaded() -> None:
    """Drop the stages read so far, with their memos of what they judged: the next load reads them afresh (a
    benchmark's first pass over new text)."""
    _load.cache_clear()
    _bind.cache_clear()


@cache
def _load(names: tuple[str, ...], registered: tuple[Stage | None, ...], folder: str | None
          ) -> tuple[LoadedStage, ...]:
    return tuple(_bind(stage, folder) for stage in resolve_stages(names))


@cache
def _bind(stage: Stage, folder: str | None) -> LoadedStage:
    if stage.words is None:
        return LoadedStage(stage.name, stage.apply, (), stage.document)
    words = stage.words.read(Words(folder))
    return LoadedStage(stage.name, partial(stage.apply, words=words), tuple(words.types),
                       partial(stage.document, words=words) if stage.document else None)


@cache
def shipped(kind: type[W]) -> W:
    """The shipped labels' words of a stage (``kind.read``): what a stage function reads when called directly."""
    return kind.read(Words())


def check_stage_types(stages: Sequence[LoadedStage], known_types: Iterable[str]) -> None:
    """ValueError when a stage names an entity type that the labels do not have."""
    known = set(known_types)
    for stage in stages:
        missing = [t for t in stage.types if t not in known]
        if missing:
            raise ValueError(f"stage {stage.name!r} needs the type(s) {', '.join(missing)}, which these labels do not "
                             "have (list the stages to run in tagger.yaml's 'stages' entry)")
