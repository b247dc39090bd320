"""Stage 3 of distillation: the teacher's confident labels as spaCy training data, the rest marked missing.

Every token of a taught sentence ends up in one of three states (spaCy's partial annotation):

- an **entity** — the teacher kept a name-like span with a top-type share of at least the type's threshold,
  or a common-noun span (``named`` false) at ``common_min_score`` (by default the teacher's own bar where it names
  lower-case types, an adapted folder's algorithms and genres; else never: "company" is not a name);
- **missing** (no loss either way) — a name kept below its threshold, or a name-like candidate the teacher
  rejected without being sure it is not an entity (its not-entity share below ``other_min_score``);
- **outside** — every other token: words that were never candidates, common nouns (kept or rejected: the
  student learns that role nouns are not names), names the teacher confidently called not-an-entity.

Labels are uner's own: the subtype where the teacher gave one and it has at least ``min_label_count``
examples, else the type, written ``TYPE`` or ``TYPE/SUBTYPE`` (``Student`` splits them back). A student that goes
on from one already trained gets the labels it lacks added (``train.grown_student``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.util import filter_spans

from ..io import atomic_path, atomic_write_text
from ..tagger import TaggerConfig
from ..tagger.student import label_name, split_label

NOT_ENTITY = frozenset({"OTHER", "UNTAGGED_ENTITY"})
MAX_REPEATS = 8  # (rare_target: a sentence is shown at most this many times)


@dataclass(frozen=True)
class SelectConfig:
    """How confident a teacher label must be to train on (chosen on CoNLL-2003 and WNUT-17 dev with
    ``benchmarks/tune_student.py``: README "Student tagger")."""

    min_score: float = 0.3  # a kept entity's top-type share needed to be an entity (else it is missing)
    type_min_scores: dict[str, float] = field(default_factory=dict)  # per-type overrides of min_score
    common_min_score: float | None = None  # a common-noun entity's share needed to stay one (below: outside);
    #                                        None: never, unless ``for_teacher`` gives the teacher's
    other_min_score: float = 0.3  # a rejected name is outside only when its not-entity share reaches this
    min_label_count: int = 50  # a subtype with fewer confident examples is learned as its type
    rare_target: int = 0  # a training sentence whose rarest label has fewer confident examples than this is shown
    #                       up to ceil(rare_target / examples) times (at most MAX_REPEATS): the kinds a teacher
    #                       seldom names are learned, not drowned (CoNLL / WNUT / CrossNER dev: docs/log/issue-75.md)
    heldout_every: int = 50  # every N-th sentence goes to the held-out set (spaCy's own model choice)

    def __post_init__(self) -> None:
        scores = {name: getattr(self, name) for name in ("min_score", "common_min_score", "other_min_score")
                  if getattr(self, name) is not None}
        scores.update((f"type_min_scores[{t}]", s) for t, s in self.type_min_scores.items())
        for name, score in scores.items():
            if not 0 <= score <= 1:
                raise ValueError(f"{name} must be in [0, 1], not {score!r}")
        if self.min_label_count < 1:
            raise ValueError(f"min_label_count must be >= 1, not {self.min_label_count!r}")
        if self.rare_target < 0:
            raise ValueError(f"rare_target must be >= 0 (0: no sentence repeated), not {self.rare_target!r}")
        if self.heldout_every < 2:
            raise ValueError(f"heldout_every must be >= 2 (every N-th sentence is held out), "
                             f"not {self.heldout_every!r}")

    def for_teacher(self, teacher: TaggerConfig) -> SelectConfig:
        """This config with ``common_min_score`` settled for the ``teacher``'s settings when not given: the
        teacher's own bar when it keeps common nouns of named types (``common_types``: an adapted folder's
        "algorithm", "genre"), whose entities the student must learn; else as it is (None: never, "company" is no
        name)."""
        if self.common_min_score is not None or not teacher.common_types:
            return self
        return replace(self, common_min_score=teacher.common_min_score)


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
            if not isinstance(rec, dict) or "text" not in rec or "entities" not in rec:
                raise ValueError(f"{path}:{n}: expected a teacher record with 'text' and 'entities'")
            yield n, rec


def _all_records(paths: Sequence[Path]) -> Iterator[tuple[int, dict]]:
    """The records of ``paths`` in turn, numbered on from one file to the next."""
    at = 0
    for path in paths:
        n = 0
        for n, rec in _records(path):
            yield at + n, rec
        at += n


def _confident(ent: dict, config: SelectConfig) -> bool:
    need = config.type_min_scores.get(ent["type"], config.min_score)
    if not ent.get("named", True):
        if config.common_min_score is None:  # (common nouns are never the student's entities)
            return False
        need = max(need, config.common_min_score)
    return ent.get("score") is None or ent["score"] >= need  # (a student's labels carry no score: all count)


def _is_name(ent: dict) -> bool:
    return ent.get("named", True)


@dataclass
class Selection:
    """What ``select`` kept: sentences (train / held out), entities per label, missing spans, skipped records."""

    train: int = 0
    heldout: int = 0
    entities: Counter = field(default_factory=Counter)
    missing: int = 0
    skipped: int = 0
    repeated: int = 0  # train sentences added again for their rare labels (``rare_target``)
    config: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {**asdict(self), "entities": dict(self.entities.most_common())}


def select(taught: str | Path | Sequence[str | Path], out_dir: str | Path, config: SelectConfig = SelectConfig()
           ) -> Selection:
    """``train.spacy`` and ``heldout.spacy`` (spaCy DocBins) and ``selection.json`` in ``out_dir`` from a teacher's
    JSONL (``uner tag`` records with ``rejected`` candidates; several files: read in turn, as one); the files are
    written atomically, the report last."""
    paths, out_dir = [Path(taught)] if isinstance(taught, (str, Path)) else [Path(t) for t in taught], Path(out_dir)
    counts = Counter(label_name(e["type"], e["subtype"]) for _, rec in _all_records(paths)
                     for e in rec["entities"] if _confident(e, config))
    # each label as the student learns it (a subtype with too few examples: its type), and the examples of each
    learned_as = {label: label if n >= config.min_label_count else split_label(label)[0] for label, n in counts.items()}
    learned = Counter()
    for label, n in counts.items():
        learned[learned_as[label]] += n
    nlp = spacy.blank("en")
    bins = {"train": DocBin(), "heldout": DocBin()}
    report = Selection(config=asdict(config))
    for n, rec in _all_records(paths):
        if rec.get("error"):
            report.skipped += 1
            continue
        doc = nlp.make_doc(rec["text"])
        ents, missing = [], []
        for ent in rec["entities"]:
            label = learned_as.get(label_name(ent["type"], ent["subtype"]), ent["type"])
            span = doc.char_span(ent["start"], ent["end"], label=label) if _confident(ent, config) else None
            if span is not None:
                ents.append(span)
            elif _is_name(ent):
                missing.append(doc.char_span(ent["start"], ent["end"], alignment_mode="expand"))
        clash = {k for k, a in enumerate(ents) for m, b in enumerate(ents) if k != m and a.start < b.end
                 and b.start < a.end}
        unions: list = []  # the teacher's own entities overlap: all their words are missing, taught neither way
        for e in sorted((ents[k] for k in clash), key=lambda e: e.start):
            if unions and unions[-1].end > e.start:
                unions[-1] = doc[unions[-1].start : max(unions[-1].end, e.end)]
            else:
                unions.append(e)
        missing += unions
        ents = [e for k, e in enumerate(ents) if k not in clash]
        report.entities.update(e.label_ for e in ents)
        for ent in rec.get("rejected", ()):
            if _is_name(ent) and not (ent["type"] in NOT_ENTITY and ent["score"] >= config.other_min_score):
                missing.append(doc.char_span(ent["start"], ent["end"], alignment_mode="expand"))
        missing = filter_spans([m for m in missing
                                if m is not None and not any(m.start < e.end and e.start < m.end for e in ents)])
        doc.set_ents(ents, missing=missing, default="outside")
        report.missing += len(missing)
        part = "heldout" if n % config.heldout_every == 0 else "train"
        shown = 1
        if part == "train" and ents and config.rare_target:
            shown = min(MAX_REPEATS, math.ceil(config.rare_target / min(learned[e.label_] for e in ents)))
        for _ in range(shown):
            bins[part].add(doc)
        setattr(report, part, getattr(report, part) + 1)
        report.repeated += shown - 1
    out_dir.mkdir(parents=True, exist_ok=True)
    for part, docs in bins.items():
        with atomic_path(out_dir / f"{part}.spacy") as tmp:
            docs.to_disk(tmp)
    atomic_write_text(out_dir / "selection.json", json.dumps(report.to_dict(), indent=1) + "\n")
    return report


def relabel(taught: str | Path, student, out: str | Path, config: SelectConfig = SelectConfig(),
            batch_size: int = 256) -> None:
    """A next round's teacher file: the teacher's confident entities, and the ``student``'s entities wherever
    they do not overlap one (the student fills in what the teacher was unsure of); no ``rejected`` list, so
    everything else is outside. Written atomically as JSONL."""
    records = [rec for _, rec in _records(Path(taught))]
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for rec, found in zip(records, student.tag([r["text"] for r in records], batch_size=batch_size)):
            keep = [e for e in rec["entities"] if _is_name(e) and _confident(e, config)]
            keep += [e.to_dict() for e in found if not any(e.start < k["end"] and k["start"] < e.end for k in keep)]
            out_rec = {"text": rec["text"], "entities": sorted(keep, key=lambda e: e["start"])}
            f.write(json.dumps({**out_rec, **({"error": rec["error"]} if rec.get("error") else {})},
                               ensure_ascii=False) + "\n")
