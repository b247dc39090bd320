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
    WORK/dev.json                        dev      (optional: F1 on gold dev files per round and per ``o_bias``,
                                                   to choose the round and the decoder's O bias)
OUT is the chosen round's student (with the chosen ``o_bias`` when dev files are given), its ``MODEL_CARD.md`` and
its ``tagger.yaml`` (the teacher's domain, whose post-typing stages the student runs, and the score map that puts its
confidences on the teacher's scale, fitted on ``teach.jsonl``; each round's student has the domain).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spacy.util import load_config

from ..analysis.evaluate import MAPPINGS, Mapping, evaluate
from ..checks import at_least
from ..io import Source, atomic_write_text
from ..labels import LabelsFolder
from ..models import BACKEND_CHOICES
from ..paths import TAGGER_FILE
from ..tagger import DOMAINS, Student, TaggerConfig, TagOptions, tag_file
from ..tagger.student import student_folder
from .calibrate import calibrate_student
from .sample import sample_sentences, write_sentences
from .select import SelectConfig, relabel, select
from .train import TrainConfig, train_student
from .vectors import build_teacher_vectors

# the decoder's O log-probability bias (``EntityTagger.o_bias``) tried on the dev files: fewer, surer entities
# as it rises (the best differs by domain: 2.0 on CoNLL-2003/WNUT-17 dev, 0.0 on the biomedical dev sets)
O_BIASES = (0.0, 1.0, 2.0, 3.0)

# the shipped students' corpus mixes (files of ../shared/data/corpus, weights): text like the target's
PRESETS: dict[str, list[tuple[str, float]]] = {
    "general": [("reuters21578.txt.gz", 0.35), ("bbc_news_2004.txt.xz", 0.2), ("enwiki_2013_subset.txt.xz", 0.35),
                ("newsgroups20.txt.xz", 0.05), ("webtext.txt.gz", 0.05)],
    "biomedical": [("biomed_abstracts.txt.xz", 0.6), ("biomed_docs.txt.xz", 0.3), ("enwiki_2013_subset.txt.xz", 0.1)],
}


def init_student(name: str) -> Path:
    """The folder of the student ``name`` (a folder, or a shipped student's name); ValueError if it is neither."""
    folder = student_folder(name)
    if not (folder / "meta.json").is_file():
        raise ValueError(f"init: {name}: not a student pipeline folder nor a shipped student")
    return folder


def labels_domain(model: str | None = None, labels: str | None = None) -> str:
    """The domain the teacher's labels were made for, as ``TaggerConfig.for_labels`` reads it: ``domain`` of the
    ``tagger.yaml`` of ``labels`` (default: ``model``'s labels folder), general without one; no model is loaded.
    ValueError (naming the file) for a malformed file or an unknown domain."""
    folder = LabelsFolder.of(labels, model)
    domain = folder.default_domain() or "general"
    if domain not in DOMAINS:
        raise ValueError(f"{folder.tagger_path}: unknown value {domain!r} ({' | '.join(DOMAINS)})")
    return domain


@dataclass
class DistillConfig:
    """Everything a distillation run depends on (saved in the model card), validated at construction: a bad
    value raises ValueError with one line naming the field. ``domain`` None is resolved here to the domain of
    the teacher's labels folder (``labels_domain``: ``--model uner-bio`` teaches biomedical), so after
    construction ``domain`` is the one the teacher tags with and the student's ``tagger.yaml`` records."""

    sources: list[str]  # corpus files, PATH or PATH:WEIGHT
    sentences: int = 100_000
    seed: int = 0
    model: str | None = None  # the teacher's masked LM (default: the embedded one) and labels folder
    labels: str | None = None
    domain: str | None = None  # the teacher's settings (TaggerConfig.for_domain); None: the labels folder's
    workers: int = 1  # teacher processes
    backend: str = "torch"  # the teacher's runtime (``uner.models.BACKEND_CHOICES``: "onnx", int8, or "auto", the
    #                         faster on this CPU)
    select: SelectConfig = field(default_factory=SelectConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    dev: list[str] = field(default_factory=list)  # gold dev files scored after training (settings only)
    rounds: int = 1  # self-training rounds; a round after the first is kept only if mean dev F1 rises (needs dev)
    vectors: bool = True  # the teacher's word vectors (embedding + label types) as student features (vectors.py)
    init: str | None = None  # a trained student (folder or shipped name) to go on training: its weights, vectors
    #                          and labels (the taught labels it lacks are added); None: a new student
    rehearse: int = 0  # with ``init``: this many more sentences of the sample labelled by that student beside the
    #                    teacher's (rehearsal: a student that goes on keeps what it knew where the teacher is silent)

    def __post_init__(self) -> None:
        if isinstance(self.sources, str) or isinstance(self.dev, str):
            raise ValueError("sources and dev are lists of files, not one string")
        self.sources, self.dev = [str(s) for s in self.sources], [str(d) for d in self.dev]
        if not self.sources:
            raise ValueError("sources: give at least one corpus file")
        if self.domain is None:
            self.domain = labels_domain(self.model, self.labels)
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {', '.join(DOMAINS)}, not {self.domain!r}")
        at_least(self, 10, "sentences")
        at_least(self, 0, "seed")
        at_least(self, 1, "workers", "rounds")
        at_least(self, 0, "rehearse")
        if self.rehearse and self.init is None:
            raise ValueError("rehearse: the sentences are labelled by the student that training goes on from (init)")
        if self.backend not in BACKEND_CHOICES:
            raise ValueError(f"backend must be one of {', '.join(BACKEND_CHOICES)}, not {self.backend!r}")
        if self.rounds > 1 and not self.dev:
            raise ValueError(f"rounds ({self.rounds}) after the first need dev: a later round is kept only if its "
                             "mean F1 on those gold files rises")
        if self.init is not None:
            self.init = str(init_student(self.init))
        if not isinstance(self.select, SelectConfig) or not isinstance(self.train, TrainConfig):
            raise ValueError("select must be a SelectConfig and train a TrainConfig")
        self.select = self.select.for_teacher(self.tagger_config())  # (an adapted folder's common-noun types)

    @classmethod
    def preset(cls, domain: str | None, corpus_dir: str | Path, **changes) -> DistillConfig:
        """The shipped student's recipe for ``domain`` (None: the teacher's labels', as ``labels_domain``
        resolves it from ``changes``' model and labels) over the corpus files in ``corpus_dir``."""
        if domain is None:
            domain = labels_domain(changes.get("model"), changes.get("labels"))
        if domain not in PRESETS:
            raise ValueError(f"domain must be one of {', '.join(PRESETS)} for a corpus preset, not {domain!r}")
        return cls([f"{Path(corpus_dir) / name}:{w}" for name, w in PRESETS[domain]], domain=domain, **changes)

    def mapping_folders(self) -> list[Path]:
        """Where the dev files' mappings are found besides the shipped ones: the teacher's labels folder's own
        (an adapted folder maps its types onto its dataset's), as ``uner eval --model FOLDER`` finds them."""
        return [LabelsFolder.of(self.labels, self.model).path / MAPPINGS]

    def tagger_config(self) -> TaggerConfig:
        """The teacher's settings, as ``uner tag`` reads them: the labels folder's own (its ``tagger.yaml``'s stages
        and settings: an adapted folder's spans and common types) when ``domain`` is the one its labels were made
        for, else ``domain``'s defaults."""
        if self.domain == labels_domain(self.model, self.labels):
            return TaggerConfig.for_labels(LabelsFolder.of(self.labels, self.model))
        return TaggerConfig.for_domain(self.domain)


REHEARSE_TEXT, REHEARSE_FILE = "rehearse.txt", "rehearse.jsonl"  # (in the work folder)


def _stage(done: Path, run: Callable[[], None], log: Callable[[str], None], name: str) -> None:
    if done.exists():
        log(f"{name}: done already ({done})")
        return
    log(f"{name}: running")
    run()


def distill(config: DistillConfig, work: str | Path, out: str | Path,
            log: Callable[[str], None] = print) -> dict:
    """Run (or continue) every stage in ``work`` and copy the student with its model card to ``out`` (a folder
    outside ``work``: the work copies keep their training settings); the shipped student's dev scores (the chosen
    round at the chosen ``o_bias``; ``{}`` without ``config.dev``)."""
    work, out = Path(work), Path(out)
    if out.resolve().is_relative_to(work.resolve()):
        raise ValueError(f"{out}: the student goes outside the work folder {work} (its rounds stay as trained)")
    work.mkdir(parents=True, exist_ok=True)
    sources = [Source.parse(s) for s in config.sources]

    def sample() -> None:
        sents, report = sample_sentences(sources, config.sentences + config.rehearse, config.seed)
        write_sentences(work / "sentences.txt", sents[: config.sentences])
        if config.rehearse:
            write_sentences(work / REHEARSE_TEXT, sents[config.sentences:])
        atomic_write_text(work / "sample.json", json.dumps(report, indent=1) + "\n")

    def teach() -> None:
        kwargs = {"model": config.model, "labels": config.labels, "config": config.tagger_config(),
                  "backend": config.backend}
        tag_file(str(work / "sentences.txt"), str(work / "teach.jsonl"), kwargs, options=TagOptions(rejected=True),
                 resume=True, workers=config.workers)

    def rehearse() -> None:
        if not (work / REHEARSE_TEXT).exists():
            raise ValueError(f"{work}: sampled without rehearse sentences; give a new work folder")
        tag_file(str(work / REHEARSE_TEXT), str(work / REHEARSE_FILE), {"model": config.init}, resume=True,
                 runner="student")

    _stage(work / "sample.json", sample, log, "sample")
    _stage(work / "teach.jsonl", teach, log, "teach")
    if config.rehearse:
        _stage(work / REHEARSE_FILE, rehearse, log, "rehearse")
    if config.vectors and config.init is None:  # (a student that goes on keeps its own vectors)
        _stage(work / "vectors" / "meta.json", lambda: build_teacher_vectors(config.model, config.labels,
                                                                             work / "vectors"), log, "vectors")
    scores: dict[str, dict] = {}
    biases: dict[str, dict] = {}
    chosen = 1
    for r in range(1, config.rounds + 1):
        _round(config, work, r, chosen, log)
        if config.dev:
            scores[f"round{r}"] = score_on_dev(round_dir(work, r) / "student", config.dev, config.mapping_folders())
            log(f"round {r}: mean dev F1 {mean_f1(scores[f'round{r}']):.4f}")
            if mean_f1(scores[f"round{r}"]) > mean_f1(scores[f"round{chosen}"]):
                chosen = r
    best = round_dir(work, chosen) / "student"
    if config.dev:
        bias, biases = choose_o_bias(best, config.dev, config.mapping_folders())
        log(f"o_bias {bias} (mean dev F1 {mean_f1(biases[str(bias)]):.4f})")
        atomic_write_text(work / "dev.json", json.dumps({**scores, "o_bias": biases}, indent=1) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(best, out)
    portable_paths(out, work)
    write_student_domain(out, config.domain)
    if config.dev:
        set_o_bias(out, bias)
    try:
        log(f"score map: {calibrate_student(out, work / 'teach.jsonl')}")
    except ValueError as exc:  # (a student or teacher that found nothing: raw confidences stay)
        log(f"no score map: {exc}")
    atomic_write_text(out / "MODEL_CARD.md", model_card(config, work, scores, chosen, biases,
                                                        bias if config.dev else None))
    log(f"student: {out} (round {chosen})")
    return biases[str(bias)] if config.dev else {}


def write_student_domain(folder: Path, domain: str) -> None:
    """``folder/tagger.yaml`` (beside the student's ``meta.json``): the domain the teacher taught in, whose
    post-typing stages the student runs (``Student.from_pretrained`` reads it as a labels folder's)."""
    atomic_write_text(folder / TAGGER_FILE,
                      f"# the tagger domain of the teacher that taught this student (uner distill)\ndomain: {domain}\n")


def round_dir(work: Path, r: int) -> Path:
    """Where round ``r`` keeps its teacher file, data and student (the first round: ``work`` itself)."""
    return work if r == 1 else work / f"round{r}"


def _round(config: DistillConfig, work: Path, r: int, previous: int, log: Callable[[str], None]) -> None:
    """Round ``r``'s stages: (after the first) relabel with the ``previous`` round's student, select, train."""
    here = round_dir(work, r)
    if r > 1:
        def run_relabel() -> None:
            student = Student.from_pretrained(round_dir(work, previous) / "student")
            relabel(work / "teach.jsonl", student, here / "teach.jsonl", config.select)

        _stage(here / "teach.jsonl", run_relabel, log, f"round {r}: relabel")
    taught = [here / "teach.jsonl", *([work / REHEARSE_FILE] if config.rehearse else [])]
    _stage(here / "data" / "selection.json", lambda: select(taught, here / "data", config.select),
           log, f"round {r}: select")
    vectors = work / "vectors" if config.vectors else None
    _stage(here / "student" / "meta.json",
           lambda: train_student(here / "data", here / "student", config.train, vectors=vectors, init=config.init),
           log, f"round {r}: train")
    write_student_domain(here / "student", config.domain)  # (before a later round or dev scoring loads it)


def mean_f1(scores: dict) -> float:
    """Mean end-to-end F1 over the dev files of one round."""
    return sum(r["micro"]["f1"] for r in scores.values()) / len(scores)


def choose_o_bias(student: str | Path, gold_files: Sequence[str | Path], folders: Sequence[Path] = (),
                  grid: Sequence[float] = O_BIASES) -> tuple[float, dict[str, dict]]:
    """The ``o_bias`` of ``grid`` with the best mean dev F1 (the first of equals), and the scores of each
    (``folders``: as for ``score_on_dev``)."""
    tagger = Student.from_pretrained(student)
    table = {}
    for bias in grid:
        tagger.nlp.get_pipe("ner").o_bias = bias
        table[str(bias)] = score_on_dev(tagger, gold_files, folders)
    best = max(grid, key=lambda b: mean_f1(table[str(b)]))
    return best, table


def portable_paths(folder: Path, work: Path) -> None:
    """The training paths in a shipped student's ``config.cfg`` (unused by ``spacy.load``) written without this
    machine's folders: ``WORK/…`` under the work folder, else the last name (the ``--init`` student's)."""
    path = folder / "config.cfg"
    cfg = load_config(path)
    for key, value in cfg["paths"].items():
        if isinstance(value, str):
            at = Path(value).resolve()
            cfg["paths"][key] = (f"WORK/{at.relative_to(work.resolve()).as_posix()}"
                                 if at.is_relative_to(work.resolve()) else at.name)
    atomic_write_text(path, cfg.to_str())


def set_o_bias(folder: str | Path, bias: float) -> None:
    """Write ``bias`` into a student folder's ``config.cfg`` (what ``spacy.load`` passes to the tagger)."""
    path = Path(folder) / "config.cfg"
    cfg = load_config(path)
    cfg["components"]["ner"]["o_bias"] = float(bias)
    atomic_write_text(path, cfg.to_str())


def score_on_dev(student, gold_files: Sequence[str | Path], folders: Sequence[Path] = ()) -> dict:
    """End-to-end strict micro F1 (and per type) of a student (a folder or a loaded ``Student``) on gold files,
    each with its mapping: the first of the ``folders`` (a labels folder's ``mappings/``) or the shipped ones."""
    tagger = student if isinstance(student, Student) else Student.from_pretrained(student)
    out = {}
    for gold in gold_files:
        result = evaluate(tagger, gold, Mapping.for_file(gold, folders), mode="end-to-end")
        out[Path(gold).parent.name + "/" + Path(gold).name] = result["end_to_end"]
    return out


def model_card(config: DistillConfig, work: Path, scores: dict, chosen: int = 1, biases: dict | None = None,
               bias: float | None = None) -> str:
    """The student's MODEL_CARD.md: teacher, corpus files and line counts, thresholds, training, dev F1 (per round
    and per ``o_bias`` of the chosen round, ``bias`` the one shipped)."""
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
             f"domain `{config.domain}`, backend `{config.backend}`."
             + (f" Training went on from the student `{config.init}` (its weights, vectors and labels; its own "
                "model card says what taught it)." if config.init else ""), "",
             f"## Unlabelled corpus (seed {config.seed}, {config.sentences:,} sentences asked)",
             "| file | weight | paragraph lines in file | lines sampled | sentences |", "|---|---|---|---|---|"]
    lines += [f"| {s['file']} | {s['weight']} | {s['paragraphs']:,} | {s['paragraphs_sampled']:,} | {s['sentences']:,} |"
              for s in sample]
    taught, rehearsed = (_line_count(work / name) for name in ("teach.jsonl", REHEARSE_FILE))
    sampled = sum(s["sentences"] for s in sample)
    lines += ["", f"Teacher-tagged: the first {taught:,} of the {sampled:,} sampled sentences (`WORK/teach.jsonl`)"
              + (f"; the next {rehearsed:,} labelled by the student it went on from (rehearsal, "
                 "`WORK/rehearse.jsonl`)." if rehearsed else "."),
              "", "## Selection", f"settings: `{json.dumps(selection['config'])}`", "",
              f"sentences: {selection['train']:,} train, {selection['heldout']:,} held out (teacher agreement "
              f"picks the checkpoint); {selection['skipped']} skipped; {selection['missing']:,} uncertain spans "
              f"marked missing; {selection.get('repeated', 0):,} train sentences shown again for their rare labels.",
              "", "| label | entities |", "|---|---|"]
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
    if biases:
        lines += ["", f"## Decoding\n`o_bias` (added to the O log-probability) chosen on the dev files: **{bias}** "
                  f"(mean end-to-end F1; rounds above were scored with the training config's o_bias)", "",
                  "| o_bias | " + " | ".join(next(iter(biases.values()))) + " | mean |",
                  "|---" * (len(next(iter(biases.values()))) + 2) + "|"]
        lines += [f"| {b} | " + " | ".join(f"{r['micro']['f1']:.3f}" for r in per.values()) + f" | {mean_f1(per):.3f} |"
                  for b, per in biases.items()]
    return "\n".join(lines) + "\n"


def _line_count(path: Path) -> int:
    """Records in a JSON-lines file of the work folder (0 when the stage did not run)."""
    if not path.exists():
        return 0
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)
