"""``distill``: the stages from corpus files to a shipped student, each resumable.

A work folder holds every stage's output; a stage whose output is there is skipped, the teacher's run
continues after its last complete line, so an interrupted ``uner distill`` is simply run again::

    WORK/sample.json, sentences.txt      sample   (sentences drawn from the corpus files)
    WORK/teach.jsonl                     teach    (the masked-LM tagger's entities + rejected candidates)
    WORK/vectors/                        vectors  (the teacher's word vectors, a spaCy folder; unless disabled)
    WORK/data/                           select   (train.spacy, heldout.spacy, selection.json)
    WORK/student/                        train    (spaCy pipeline, best on the held-out sentences)
    WORK/round2/{teach.jsonl,data,student}  …     (optional rounds: the teacher's confident labels, the previous
                                                   student's where the teacher was unsure; kept only if dev F1 rises)
    WORK/dev.json                        dev      (optional: F1 on gold dev files per round, to choose settings)
OUT is the chosen round's student with its ``MODEL_CARD.md``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..corpus import Source
from ..io import atomic_write_text
from .sample import sample_sentences, write_sentences
from .select import SelectConfig, relabel, select
from .train import TrainConfig, train_student
from .vectors import build_teacher_vectors

# the shipped students' corpus mixes (files of ../shared/data/corpus, weights): text like the target's
PRESETS: dict[str, list[tuple[str, float]]] = {
    "general": [("reuters21578.txt.gz", 0.35), ("bbc_news_2004.txt.xz", 0.2), ("enwiki_2013_subset.txt.xz", 0.35),
                ("newsgroups20.txt.xz", 0.05), ("webtext.txt.gz", 0.05)],
    "biomedical": [("biomed_abstracts.txt.xz", 0.6), ("biomed_docs.txt.xz", 0.3), ("enwiki_2013_subset.txt.xz", 0.1)],
}


@dataclass
class DistillConfig:
    """Everything a distillation run depends on (saved in the model card)."""

    sources: list[str]  # corpus files, PATH or PATH:WEIGHT
    sentences: int = 100_000
    seed: int = 0
    model: str | None = None  # the teacher's masked LM (default: the embedded one) and labels folder
    labels: str | None = None
    domain: str = "general"  # the teacher's settings (TaggerConfig.for_domain)
    workers: int = 1  # teacher processes
    select: SelectConfig = field(default_factory=SelectConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    dev: list[str] = field(default_factory=list)  # gold dev files scored after training (settings only)
    rounds: int = 1  # self-training rounds; a round after the first is kept only if mean dev F1 rises (needs dev)
    vectors: bool = True  # the teacher's word vectors (embedding + label types) as student features (vectors.py)

    def __post_init__(self) -> None:
        if self.rounds < 1 or (self.rounds > 1 and not self.dev):
            raise ValueError("rounds must be >= 1, and rounds after the first need dev files to be judged")

    @classmethod
    def preset(cls, domain: str, corpus_dir: str | Path, **changes) -> DistillConfig:
        """The shipped student's recipe for ``domain`` over the corpus files in ``corpus_dir``."""
        if domain not in PRESETS:
            raise ValueError(f"no corpus preset for domain {domain!r} ({', '.join(PRESETS)})")
        return cls([f"{Path(corpus_dir) / name}:{w}" for name, w in PRESETS[domain]], domain=domain, **changes)


def _stage(done: Path, run: Callable[[], None], log: Callable[[str], None], name: str) -> None:
    if done.exists():
        log(f"{name}: done already ({done})")
        return
    log(f"{name}: running")
    run()


def distill(config: DistillConfig, work: str | Path, out: str | Path,
            log: Callable[[str], None] = print) -> dict:
    """Run (or continue) every stage in ``work`` and copy the student with its model card to ``out``;
    the dev scores (``{}`` without ``config.dev``)."""
    from ..tagger import TaggerConfig, TagOptions, tag_file

    work, out = Path(work), Path(out)
    work.mkdir(parents=True, exist_ok=True)
    sources = [Source.parse(s) for s in config.sources]

    def sample() -> None:
        sents, report = sample_sentences(sources, config.sentences, config.seed)
        write_sentences(work / "sentences.txt", sents)
        atomic_write_text(work / "sample.json", json.dumps(report, indent=1) + "\n")

    def teach() -> None:
        kwargs = {"model": config.model, "labels": config.labels, "config": TaggerConfig.for_domain(config.domain)}
        tag_file(str(work / "sentences.txt"), str(work / "teach.jsonl"), kwargs, options=TagOptions(rejected=True),
                 resume=True, workers=config.workers)

    _stage(work / "sample.json", sample, log, "sample")
    _stage(work / "teach.jsonl", teach, log, "teach")
    if config.vectors:
        _stage(work / "vectors" / "meta.json", lambda: build_teacher_vectors(config.model, config.labels,
                                                                             work / "vectors"), log, "vectors")
    scores: dict[str, dict] = {}
    chosen = 1
    for r in range(1, config.rounds + 1):
        _round(config, work, r, chosen, log)
        if config.dev:
            scores[f"round{r}"] = score_on_dev(round_dir(work, r) / "student", config.dev)
            log(f"round {r}: mean dev F1 {mean_f1(scores[f'round{r}']):.4f}")
            if mean_f1(scores[f"round{r}"]) > mean_f1(scores[f"round{chosen}"]):
                chosen = r
    if config.dev:
        atomic_write_text(work / "dev.json", json.dumps(scores, indent=1) + "\n")
    best = round_dir(work, chosen) / "student"
    if out.resolve() != best.resolve():
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(best, out)
    atomic_write_text(out / "MODEL_CARD.md", model_card(config, work, scores, chosen))
    log(f"student: {out} (round {chosen})")
    return scores.get(f"round{chosen}", {})


def round_dir(work: Path, r: int) -> Path:
    """Where round ``r`` keeps its teacher file, data and student (the first round: ``work`` itself)."""
    return work if r == 1 else work / f"round{r}"


def _round(config: DistillConfig, work: Path, r: int, previous: int, log: Callable[[str], None]) -> None:
    """Round ``r``'s stages: (after the first) relabel with the ``previous`` round's student, select, train."""
    here = round_dir(work, r)
    if r > 1:
        from .student import Student

        def run_relabel() -> None:
            student = Student.from_pretrained(round_dir(work, previous) / "student")
            relabel(work / "teach.jsonl", student, here / "teach.jsonl", config.select)

        _stage(here / "teach.jsonl", run_relabel, log, f"round {r}: relabel")
    _stage(here / "data" / "selection.json", lambda: select(here / "teach.jsonl", here / "data", config.select),
           log, f"round {r}: select")
    vectors = work / "vectors" if config.vectors else None
    _stage(here / "student" / "meta.json",
           lambda: train_student(here / "data", here / "student", config.train, vectors=vectors), log, f"round {r}: train")


def mean_f1(scores: dict) -> float:
    """Mean end-to-end F1 over the dev files of one round."""
    return sum(r["micro"]["f1"] for r in scores.values()) / len(scores)


def score_on_dev(student: str | Path, gold_files: Sequence[str | Path]) -> dict:
    """End-to-end strict micro F1 (and per type) of a student on gold files, each with its shipped mapping."""
    from ..evaluate import evaluate
    from .student import Student

    tagger = Student.from_pretrained(student)
    out = {}
    for gold in gold_files:
        result = evaluate(tagger, gold, mode="end-to-end")
        out[Path(gold).parent.name + "/" + Path(gold).name] = result["end_to_end"]
    return out


def model_card(config: DistillConfig, work: Path, scores: dict, chosen: int = 1) -> str:
    """The student's MODEL_CARD.md: teacher, corpus files and line counts, thresholds, training, dev F1."""
    sample = json.loads((work / "sample.json").read_text(encoding="utf-8"))
    selection = json.loads((work / "data" / "selection.json").read_text(encoding="utf-8"))
    lines = ["# uner student tagger", "",
             "A spaCy NER pipeline (hash-embedding CNN + a softmax per token over IOB labels, decoded to the best "
             "valid path: `uner/distill/student.cfg`, `uner/distill/entity_tagger.py`) trained by `uner distill` "
             "on the confident labels of uner's masked-LM tagger over unlabelled text. **No gold labels "
             "of any NER train split were used**; gold dev files only chose settings.", "",
             "Load: `spacy.load(PATH)`, `uner.distill.Student.from_pretrained(PATH)`, "
             "`uner tag --engine student [--model PATH]`. Labels are uner types, `TYPE` or `TYPE/SUBTYPE`.", "",
             f"## Teacher\nmodel `{config.model or 'uner-minilm-l6 (embedded)'}`, labels `{config.labels or 'shipped'}`, "
             f"domain `{config.domain}`.", "",
             f"## Unlabelled corpus (seed {config.seed}, {config.sentences:,} sentences asked)",
             "| file | weight | paragraph lines in file | lines sampled | sentences |", "|---|---|---|---|---|"]
    lines += [f"| {s['file']} | {s['weight']} | {s['paragraphs']:,} | {s['paragraphs_sampled']:,} | {s['sentences']:,} |"
              for s in sample]
    taught = sum(1 for _ in open(work / "teach.jsonl", encoding="utf-8"))
    sampled = sum(s["sentences"] for s in sample)
    lines += ["", f"Teacher-tagged: the first {taught:,} of the {sampled:,} sampled sentences (`WORK/teach.jsonl`).",
              "", "## Selection", f"settings: `{json.dumps(selection['config'])}`", "",
              f"sentences: {selection['train']:,} train, {selection['heldout']:,} held out (teacher agreement "
              f"picks the checkpoint); {selection['skipped']} skipped; {selection['missing']:,} uncertain spans "
              "marked missing.", "", "| label | entities |", "|---|---|"]
    lines += [f"| {lab} | {n:,} |" for lab, n in selection["entities"].items()]
    lines += ["", f"## Training\n`{json.dumps(asdict(config.train))}`; rounds run: {config.rounds}, shipped: "
              f"round {chosen} (a later round is kept only if the mean dev F1 rises).", "",
              "Static word vectors: " + ("the teacher's (`WORK/vectors`: each whole vocabulary word's input embedding, "
                                         "64 principal components, beside its label-table type distribution)"
                                         if config.vectors else "none (hash embeddings only)") + "."]
    if scores:
        lines += ["", "## Dev (end-to-end strict micro F1, uner's shipped mappings)", "| round | file | P | R | F1 |",
                  "|---|---|---|---|---|"]
        lines += [f"| {rnd} | {name} | {r['micro']['precision']:.3f} | {r['micro']['recall']:.3f} | "
                  f"{r['micro']['f1']:.3f} |" for rnd, per in scores.items() for name, r in per.items()]
    return "\n".join(lines) + "\n"
