"""`uner adapt`: from a corpus and a person's types file to a labels folder ready for the annotation page.

Steps, each skipped when its output is there (run the command again after an interruption):

1. *folder*: a copy of the base labels folder (the model's shipped labels: every human decision carried), with a
   ``tagger.yaml`` of the settings a person's own subtypes want when the base has none;
2. *types*: the person's types and seeds merged in (``labels add-types``; running it again changes nothing);
3. *casing*: which of the person's types the corpus writes in lower case (``vocab.casing``: genres, algorithms),
   so that the tagger also looks at common-noun spans, kept only when typed one of them (``tagger.yaml``:
   ``span_policy: named``, ``common_types``);
   *bootstrap*: every cluster's suggestion from the seed lists; *compile*: the label table with the new seeds;
4. *descriptors*: the teacher reads a sample of the corpus and keeps, for every candidate span, the descriptor
   words the masked LM predicted for it (``descriptors.jsonl``) and the tagged records (``tagged.jsonl``). The
   page orders its queue by how many of these spans a cluster's label bears on (``server.demand``) and shows
   the least sure entities (``server.doubt``). Written a sentence per line as it goes; a rerun continues.
   A span keeps the descriptor words its vote rests on most (``strongest_terms``), so that a cluster of words
   predicted far down every list does not rank first.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

import yaml

from .distill.sample import sample_sentences
from .io import Source, atomic_path, atomic_write_text, read_paragraphs
from .labels import LabelsFolder, bootstrap, compile_labels, load_seeds
from .labels.user_types import add_types
from .paths import (CLUSTERS_FILE, DESCRIPTORS_FILE, SEEDS_FILE, SUMMARY_FILE, TAGGED_FILE, TAGGER_FILE, TERMS_FILE,
                    TYPES_FILE, check_writable, labels_dir)
from .tagger import TaggerConfig, load_tagger
from .vocab.casing import lowercase_types, seed_case_counts

COPIED = (CLUSTERS_FILE, TERMS_FILE, TYPES_FILE, SEEDS_FILE, TAGGER_FILE, SUMMARY_FILE)  # not the calibration: its
#                                                                                         types change
STATE_FILE = "adapt.json"
# the tagger settings of a folder made from labels without its own (docs/log/accuracy.md §7, CrossNER AI dev, checked
# on literature): a person's subtype (RESEARCHER under PERSON) is reported with a tenth of its type's votes, since
# the shipped type's words vote for the type alone (end to end 0.236 -> 0.300 and 0.228 -> 0.329); and every span is
# asked in its sentence, since a person's types are often told by it alone ("Abbey Road" an album), where the short
# templates are sure of a shipped type (CrossNER music and AI dev, end to end 0.361 -> 0.334 and 0.286 -> 0.276 with
# the general context_margin, docs/log/accuracy.md §5.9); and a name after a common word takes its complement across the
# labels' head_joins words ("Grammy Award for Best Rock Album"; CrossNER dev, all five domains up: §7); and a name
# hears the common noun before it ("the album Pork Soda") and its coordinated names ("Go Plastic , Ultravisitor and
# Damogen Furies"), each at 0.3 (chosen on CrossNER AI and music dev, the other three measured: §7); a capitalised
# "The" inside a sentence opens a name ("The Lord of the Rings"; CrossNER dev mean +0.3, literature +0.9: §7); a
# number the parse attaches to a name is part of it ("2012 Summer Olympics"; CrossNER dev, four domains up, one
# level; news tables keep it off: §7); and a longer name hears its syntactic head ("Conference on Neural Information
# Processing Systems": conference) at 0.2 (chosen on CrossNER AI and music dev, the other three measured: §7); and
# a short form defined in the text, "Neural Information Processing Systems (NeurIPS)", takes its long form's type
# (the biomedical domain's `abbreviations` stage; CrossNER dev, four domains up, one level: §7)
ADAPTED_TAGGER = """# uner adapt: the tagger settings of these labels (docs/log/accuracy.md §7); edit freely
domain: general
stages: [person_titles, sports_teams, abbreviations]
settings:
  subtype_share: 0.1
  context_margin: 0.0
  head_joins: true
  descriptor_weight: 0.3
  coordination_weight: 0.3
  name_determiners: true
  name_numbers: true
  name_head_weight: 0.2
"""
TERMS_PER_SPAN = 8  # descriptor words kept per span: the ones its vote rests on
CASING_PARAGRAPHS = 50_000  # corpus paragraphs (per file) read for the seeds' casing
# a common-noun span of a lower-case type is kept above this share (CrossNER AI and music dev: docs/log/accuracy.md §7)
COMMON_MIN_SCORE = 0.3
# … and typed by its head word at this weight ("general election", "Huber loss"; chosen on CrossNER AI and politics
# dev, end to end 0.288 -> 0.375 and 0.445 -> 0.565; the other three measured: docs/log/accuracy.md §7)
COMMON_HEAD_WEIGHT = 0.5


@dataclass
class AdaptConfig:
    """What ``uner adapt`` makes a folder from (checked at construction)."""

    corpus: tuple[str, ...]  # PATH or PATH:WEIGHT
    out: Path
    types: Path | None = None
    base: Path | None = None  # the labels folder to start from (default: the model's)
    model: str | None = None
    seeds: tuple[str, ...] = ()  # more seed lists for the bootstrap and compile
    sentences: int = 2000  # corpus sentences the teacher reads for the descriptors
    batch_size: int = 32
    seed: int = 0
    sources: list[Source] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if self.sentences < 1 or self.batch_size < 1:
            raise ValueError("sentences and batch_size must be at least 1")
        if not self.corpus:
            raise ValueError("give at least one corpus file")
        self.sources = [Source.parse(spec) for spec in self.corpus]
        if self.types is not None and not Path(self.types).is_file():
            raise ValueError(f"{self.types}: no such types file")
        base = Path(self.base) if self.base else labels_dir(self.model)
        if not (base / CLUSTERS_FILE).is_file():
            raise ValueError(f"{base}: not a labels folder (no {CLUSTERS_FILE})")
        self.base = base


def adapt(config: AdaptConfig, echo: Callable[[str], None] = print) -> Path:
    """Run the steps that are not done yet; the folder."""
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    check_writable(out)
    state = _read_state(out)
    if not (out / CLUSTERS_FILE).is_file():
        for name in COPIED:
            if (config.base / name).is_file():
                shutil.copy2(config.base / name, out / name)
        echo(f"folder: {config.base} -> {out}")
    labels = LabelsFolder(out)
    if not labels.tagger_path.is_file():
        atomic_write_text(labels.tagger_path, ADAPTED_TAGGER)
        echo(f"tagger settings: {labels.tagger_path}")
    types_key = _digest(Path(config.types).read_bytes()) if config.types else ""
    if config.types and state.get("types") != types_key:
        new, seeds = add_types(labels, config.types)
        echo(f"types: {', '.join(t.name for t in new)} ({sum(map(len, seeds.values()))} seed terms)")
        state = {"types": types_key}  # what came after the types is stale
        for name in (DESCRIPTORS_FILE, TAGGED_FILE):
            (out / name).unlink(missing_ok=True)
        _write_state(out, state)
    if "casing" not in state:
        state["casing"] = find_casing(config, labels)
        _write_state(out, state)
        echo(f"lower-case types: {', '.join(state['casing']) or 'none'}")
    if not state.get("compiled") or not labels.table_path.is_file():
        review = labels.load_review(config.model)
        n = bootstrap(review.doc, load_seeds(labels.seed_sources(list(config.seeds)), review.types), review.types)
        labels.save_clusters(review.doc)
        echo(f"bootstrap: suggestions for {n} of {len(review.clusters)} clusters")
        echo(f"compile: {compile_labels(out, config.model, config.seeds)}")
        state["compiled"] = True
        _write_state(out, state)
    if not (out / DESCRIPTORS_FILE).is_file():
        collect_descriptors(config, echo)
    seeds = "".join(f" --seeds {s}" for s in config.seeds)  # the page's compile needs the same seed lists
    echo(f"next: uner annotate {out} --corpus {config.sources[0].path} --records {out / TAGGED_FILE}{seeds}")
    return out


def find_casing(config: AdaptConfig, labels: LabelsFolder) -> dict[str, float]:
    """The folder's own types (its ``seeds.yaml``) that the corpus writes in lower case, written into its
    ``tagger.yaml`` (``common_types``, with the ``named`` span policy and their share and head weight; removed when
    there are none)."""
    seeds = load_seeds([labels.seeds_path], labels.load_types()) if labels.seeds_path.is_file() else {}
    by_type: dict[str, list[str]] = {}
    for term, kinds in seeds.items():  # (term -> its types)
        for kind in kinds:
            by_type.setdefault(kind, []).append(term)
    texts = (p for src in config.sources for p in islice(read_paragraphs(src.path), CASING_PARAGRAPHS))
    found = lowercase_types(seed_case_counts(texts, by_type))
    doc = yaml.safe_load(labels.tagger_path.read_text(encoding="utf-8")) or {}
    settings = doc.setdefault("settings", {})
    if not found and "common_types" not in settings:
        return found  # (the file stays as it is, comments and all)
    for key in ("span_policy", "common_types", "common_min_score", "common_head_weight"):
        settings.pop(key, None)
    if found:
        settings.update(span_policy="named", common_types=sorted(found), common_min_score=COMMON_MIN_SCORE,
                        common_head_weight=COMMON_HEAD_WEIGHT)
    atomic_write_text(labels.tagger_path, ADAPTED_TAGGER.splitlines()[0] + "\n"
                      + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return found


def collect_descriptors(config: AdaptConfig, echo: Callable[[str], None] = print) -> None:
    """The teacher over a sample of the corpus: per sentence, each candidate span (kept or not) with the
    descriptor words predicted for it, to ``descriptors.jsonl``; the kept entities to ``tagged.jsonl``.
    Appends a batch at a time and continues after the last whole batch: the same batches as an uninterrupted
    run, so the same output (a batch's padding moves the floats, and near-equal descriptors could swap)."""
    out = config.out
    sents, _ = sample_sentences(config.sources, config.sentences, config.seed)
    # (the tagged sentences are in place before the descriptors, whose file says that the step is done)
    with atomic_path(out / DESCRIPTORS_FILE, resumable=True) as part, \
            atomic_path(out / TAGGED_FILE, resumable=True) as tagged_part:
        done = _complete_lines(part) // config.batch_size * config.batch_size
        _truncate(part, done)
        _truncate(tagged_part, done)
        tagger = load_tagger(model=config.model, labels=out, config=TaggerConfig.for_labels(LabelsFolder(out)))
        with open(part, "a", encoding="utf-8") as f, open(tagged_part, "a", encoding="utf-8") as t:
            for start in range(done, len(sents), config.batch_size):
                batch = sents[start : start + config.batch_size]
                for i, (text, ents) in enumerate(zip(batch, tagger.tag(batch, explain=True, rejected=True)), start):
                    spans = [{"text": e.text, "type": e.subtype or e.type if e.kept else None,
                              "terms": strongest_terms(e.descriptors)} for e in ents]
                    t.write(json.dumps({"id": str(i + 1), "text": text,
                                        "entities": [e.to_dict() for e in ents if e.kept]}, ensure_ascii=False) + "\n")
                    f.write(json.dumps({"sentence": i, "spans": spans}, ensure_ascii=False) + "\n")
                f.flush()
                t.flush()
                echo(f"descriptors: {min(start + len(batch), len(sents))}/{len(sents)} sentences")


def strongest_terms(descriptors: list[list[dict]] | None, keep: int = TERMS_PER_SPAN) -> list[str]:
    """The ``keep`` descriptor words that weigh most in a span's votes: a word scores 1/rank in each masked input
    that predicts it (the first of one input outweighs the tenth of three)."""
    weight: Counter = Counter()
    for row in descriptors or []:
        for rank, d in enumerate(row, 1):
            weight[d["term"]] += 1 / rank
    return [t for t, _ in weight.most_common(keep)]


def _complete_lines(path: Path) -> int:
    """How many whole lines ``path`` holds (a half-written last line is cut off)."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        path.write_bytes(keep)
    return keep.count(b"\n")


def _truncate(path: Path, lines: int) -> None:
    """Keep the first ``lines`` lines of ``path`` (the tagged records of the sentences already counted)."""
    if path.is_file():
        kept = path.read_bytes().split(b"\n")[:lines]
        path.write_bytes(b"".join(line + b"\n" for line in kept))


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _read_state(out: Path) -> dict:
    path = out / STATE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _write_state(out: Path, state: dict) -> None:
    atomic_write_text(out / STATE_FILE, json.dumps(state, indent=1) + "\n")

