"""Evaluation on gold NER corpora (docs/design.md §5).

Gold sentences of CoNLL (``word POS chunk NER``) and two-column ``token<TAB>tag`` files
(read by ``corpus.read_token_file``; IOB1 is converted to IOB2), entity-level strict micro
P/R/F1 (the seqeval "strict" definition: an entity counts only with exact boundaries and
type), and the reference method's given-spans metric: token-level F1 per type averaged over
the types, O excluded. Our types map onto a dataset's labels through a YAML file.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..io import Sentence, atomic_write_text, read_token_file
from ..labels import LabelsFolder
from ..labels.problems import read_yaml
from ..tagger import TaggerConfig, bio_tags, load_tagger, run_in_context
from ..tagger.stages import resolve_stages

# Each sentence of a gold file is tagged alone by default, as published zero-shot taggers are scored; with a context,
# the document stages (an abbreviation defined in one sentence, typed in the next ones) read each sentence after up to
# that many before it in its document, as ``uner tag --documents`` reads a user's documents (``DOCUMENT_CONTEXT``).
CONTEXT_SENTENCES = 0
MAPPINGS = "mappings"  # the mapping files' folder: in the package, and in a labels folder for its own types
MAPPINGS_DIR = Path(__file__).resolve().parents[1] / MAPPINGS


def read_gold(path: str | os.PathLike, boundaries: bool = False) -> Iterator[Sentence]:
    """Sentences of a CoNLL-2003 (4 columns) or token/tag (2 columns) file (``corpus.read_token_file``), tags
    converted to IOB2; ValueError naming PATH:LINE for a line without a tag. ``boundaries``: also an empty
    Sentence where a ``-DOCSTART-`` line begins a document."""
    for sentence in read_token_file(path):
        if sentence.tokens or boundaries:
            yield Sentence(sentence.tokens, to_iob2(sentence.tags))


def to_iob2(tags: Sequence[str]) -> list[str]:
    """IOB1 (an entity may start with I-) to IOB2 (every entity starts with B-); IOB2 stays unchanged."""
    out = []
    prev = "O"
    for tag in tags:
        if tag.startswith("I-") and (prev == "O" or prev[2:] != tag[2:]):
            tag = "B-" + tag[2:]
        out.append(tag)
        prev = tag
    return out


def entities(tags: Sequence[str]) -> set[tuple[str, int, int]]:
    """Strict IOB2 entities as (type, first token, last token + 1); a stray I- starts a new entity."""
    found = set()
    start, kind = None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        inside = tag.startswith("I-") and kind == tag[2:]
        if start is not None and not inside:
            found.add((kind, start, i))
            start, kind = None, None
        if tag.startswith("B-") or (tag.startswith("I-") and not inside):
            start, kind = i, tag[2:]
    return found


@dataclass
class Scores:
    precision: float
    recall: float
    f1: float
    support: int


def _prf(tp: int, n_pred: int, n_gold: int) -> Scores:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return Scores(p, r, 2 * p * r / (p + r) if p + r else 0.0, n_gold)


def strict_f1(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> tuple[Scores, dict[str, Scores]]:
    """Entity-level strict micro P/R/F1 over sentences, and the same per type."""
    tp, n_pred, n_gold = Counter(), Counter(), Counter()
    for g, p in zip(gold, pred, strict=True):
        ge, pe = entities(g), entities(p)
        for e in ge:
            n_gold[e[0]] += 1
        for e in pe:
            n_pred[e[0]] += 1
        for e in ge & pe:
            tp[e[0]] += 1
    per = {t: _prf(tp[t], n_pred[t], n_gold[t]) for t in sorted(set(n_gold) | set(n_pred))}
    return _prf(sum(tp.values()), sum(n_pred.values()), sum(n_gold.values())), per


def token_f1_by_type(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> tuple[float, dict[str, Scores]]:
    """Token-level F1 per type (B-/I- prefixes ignored), and its mean over the types, O excluded."""
    tp, n_pred, n_gold = Counter(), Counter(), Counter()
    for g, p in zip(gold, pred, strict=True):
        for a, b in zip(g, p, strict=True):
            ta, tb = a[2:] if a != "O" else "O", b[2:] if b != "O" else "O"
            n_gold[ta] += 1
            n_pred[tb] += 1
            tp[ta] += ta == tb
    types = sorted((set(n_gold) | set(n_pred)) - {"O"})
    per = {t: _prf(tp[t], n_pred[t], n_gold[t]) for t in types}
    return (sum(s.f1 for s in per.values()) / len(per) if per else 0.0), per


ERROR_CLASSES = ("correct", "wrong_type", "wider", "narrower", "shifted", "missed", "spurious")


def span_errors(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> dict[str, int]:
    """Where end-to-end errors come from: each gold entity counted once, as ``correct``, ``wrong_type`` (exact
    edges), ``wider`` (a prediction holds it and more), ``narrower`` (one lies inside it), ``shifted`` (one
    crosses an edge) or ``missed`` (no prediction overlaps it), in that order of precedence; each prediction
    that overlaps no gold entity is ``spurious``."""
    counts = Counter({c: 0 for c in ERROR_CLASSES})
    for g, p in zip(gold, pred, strict=True):
        ge, pe = entities(g), entities(p)
        for t, a, b in ge:
            over = [(pt, pa, pb) for pt, pa, pb in pe if pa < b and a < pb]
            if (t, a, b) in pe:
                counts["correct"] += 1
            elif any((pa, pb) == (a, b) for _, pa, pb in over):
                counts["wrong_type"] += 1
            elif any(pa <= a and b <= pb for _, pa, pb in over):
                counts["wider"] += 1
            elif any(a <= pa and pb <= b for _, pa, pb in over):
                counts["narrower"] += 1
            else:
                counts["shifted" if over else "missed"] += 1
        counts["spurious"] += sum(not any(pa < b and a < pb for _, a, b in ge) for _, pa, pb in pe)
    return dict(counts)


# ---------------------------------------------------------------- mapping our types to a dataset's


@dataclass
class Mapping:
    """Our type or subtype → dataset label (``O`` drops it); subtypes fall back to their type's entry.

    A mapping file names the datasets it is for by its own name ("bc5cdr.yaml") or, where a name cannot say it,
    by the path fragments in its ``datasets`` entry ("crossner/ai": a labels folder's own types mapped onto one
    CrossNER domain)."""

    labels: dict[str, str]
    default: str = "O"
    domain: str = "general"  # the tagger settings the dataset's text calls for (TaggerConfig.for_domain)
    datasets: tuple[str, ...] = ()  # path fragments of the gold files this mapping is for (besides its file name)
    # stages that follow the dataset's annotation convention rather than the language (JNLPBA's DNA / cell-line
    # split): ``uner eval`` runs them after the engine's own; ``uner tag --stages`` runs the same list
    stages: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: str | os.PathLike) -> Mapping:
        doc = read_yaml(path)
        if not isinstance(doc.get("map"), dict):
            raise ValueError(f"{path}:1: expected a 'map' of our labels to the dataset's")
        datasets, stages = doc.get("datasets", []), doc.get("stages", [])
        if not isinstance(datasets, list):
            raise ValueError(f"{path}: 'datasets' must be a list of path fragments")
        if not isinstance(stages, list):
            raise ValueError(f"{path}: 'stages' must be a list of stage names")
        try:
            resolve_stages(map(str, stages))
        except ValueError as exc:
            raise ValueError(f"{path}: stages: {exc}") from None
        return cls({str(k): str(v) for k, v in doc["map"].items()}, str(doc.get("default", "O")),
                   str(doc.get("domain", "general")), tuple(str(d).lower() for d in datasets), tuple(map(str, stages)))

    @classmethod
    def for_file(cls, gold: str | os.PathLike, folders: Sequence[str | os.PathLike] = ()) -> Mapping:
        """The mapping for the gold file's dataset: the first in ``folders`` (a labels folder's ``mappings/``),
        then among the shipped ones, whose file name or ``datasets`` fragment appears in the gold file's path."""
        path = Path(gold).resolve().as_posix().lower()
        files = _mapping_files(folders)
        for f in files:
            if f.stem in path:
                return cls.load(f)
            mapping = cls.load(f)
            if any(fragment in path for fragment in mapping.datasets):
                return mapping
        raise ValueError(f"{gold}: no mapping found for this dataset; pass --mapping, a mapping file or the name of "
                         f"one of {', '.join(f.stem for f in files)}")

    @classmethod
    def named(cls, spec: str | os.PathLike, folders: Sequence[str | os.PathLike] = ()) -> Mapping:
        """The mapping file ``spec``, else the mapping of that name in ``folders`` (a labels folder's ``mappings/``) or
        among the shipped ones (``--mapping conll2003``); ValueError naming those there are when it is neither."""
        if Path(spec).is_file():
            return cls.load(spec)
        files = _mapping_files(folders)
        for f in files:
            if f.stem == str(spec):
                return cls.load(f)
        raise ValueError(f"--mapping {spec}: no such file, and no mapping of that name "
                         f"(one of {', '.join(f.stem for f in files)})")

    def __call__(self, type_name: str, subtype: str | None = None) -> str:
        if subtype and subtype in self.labels:
            return self.labels[subtype]
        return self.labels.get(type_name, self.default)


def _mapping_files(folders: Sequence[str | os.PathLike]) -> list[Path]:
    """The mapping files of ``folders``, then the shipped ones: what a gold file's mapping is looked for among."""
    return [f for d in [*folders, MAPPINGS_DIR] for f in sorted(Path(d).glob("*.yaml"))]


def detokenize(tokens: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """Tokens joined by single spaces, with each token's character offsets."""
    offsets, pos = [], 0
    for t in tokens:
        offsets.append((pos, pos + len(t)))
        pos += len(t) + 1
    return " ".join(tokens), offsets


def read_documents(gold_path: str | os.PathLike, context: int = CONTEXT_SENTENCES) -> tuple[list[Sentence], set[int]]:
    """A gold file's sentences, and the indexes of those that begin a document (a ``-DOCSTART-`` line before them).
    ValueError for a file with no sentence or a line that is not a token and its tag (not a gold file), and, with a
    ``context``, for a file that marks no documents: the sentences before one may be another document's."""
    if context < 0:
        raise ValueError(f"context must be 0 or more sentences, not {context}")
    sents, starts = [], set()
    for sent in read_gold(gold_path, boundaries=True):
        if sent.tokens:
            sents.append(sent)
        else:
            starts.add(len(sents))
    if not sents:
        raise ValueError(f"{gold_path}: no sentence; a gold file has a token and its tag on each line (CoNLL or "
                         "token<TAB>tag), a blank line after each sentence")
    if context and not starts:
        raise ValueError(f"context {context}: {gold_path} marks no documents (no -DOCSTART- line), so the sentences "
                         "before one may be another document's; score each sentence alone (context 0)")
    return sents, starts


def evaluate(tagger, gold_path: str | os.PathLike, mapping: Mapping | None = None, mode: str = "both",
             limit: int | None = None, errors_path: str | os.PathLike | None = None,
             context: int = CONTEXT_SENTENCES) -> dict:
    """Run the tagger over a gold file (``read_documents``); end-to-end strict F1 and/or given-spans token F1, plus a
    confusion count. ``context``: the document stages read each sentence after the up to ``context`` sentences before
    it in its document (``run_in_context``, as ``uner tag --documents`` reads documents); 0: each sentence alone."""
    if mode not in ("end-to-end", "given-spans", "both"):
        raise ValueError(f"mode must be end-to-end, given-spans or both, not {mode!r}")
    mapping = mapping or Mapping.for_file(gold_path)
    sents, starts = read_documents(gold_path, context)
    sents = sents[:limit]
    texts, offsets = zip(*(detokenize(s.tokens) for s in sents)) if sents else ((), ())
    gold = [s.tags for s in sents]
    report: dict = {"sentences": len(sents), "gold_entities": sum(len(entities(g)) for g in gold)}
    errors = []
    if mode in ("end-to-end", "both"):
        pred = []
        tagged = run_in_context(texts, tagger.tag(list(texts)), tagger.stages, tagger.stage_folder, context, starts)
        for text, offs, g, ents in zip(texts, offsets, gold, tagged):
            mapped = [dict(start=e.start, end=e.end, type=mapping(e.type, e.subtype), score=e.score) for e in ents]
            tags = bio_tags(offs, [m for m in mapped if m["type"] != "O"])
            pred.append(tags)
            if entities(tags) != entities(g):
                errors.append({"text": text,
                               "gold": [[" ".join(text.split()[a:b]), t] for t, a, b in sorted(entities(g), key=lambda x: x[1])],
                               "predicted": [[e.text, e.type, e.subtype, mapping(e.type, e.subtype), e.score] for e in ents]})
        micro, per = strict_f1(gold, pred)
        report["end_to_end"] = {"micro": vars(micro), "per_type": {t: vars(s) for t, s in per.items()},
                                "errors": span_errors(gold, pred)}
    if mode in ("given-spans", "both"):
        spans = [[(offs[a][0], offs[b - 1][1]) for _, a, b in sorted(entities(g), key=lambda x: x[1])]
                 for offs, g in zip(offsets, gold)]
        pred, confusion = [], Counter()
        for offs, g, sp, ents in zip(offsets, gold, spans, tagger.tag(list(texts), spans)):
            by_span = {(e.start, e.end): mapping(e.type, e.subtype) for e in ents}
            tags = ["O"] * len(offs)
            for t, a, b in sorted(entities(g), key=lambda x: x[1]):
                label = by_span.get((offs[a][0], offs[b - 1][1]), "O")
                confusion[(t, label)] += 1
                if label != "O":
                    tags[a : b] = ["B-" + label] + ["I-" + label] * (b - a - 1)
            pred.append(tags)
        mean, per = token_f1_by_type(gold, pred)
        report["given_spans"] = {"mean_token_f1": mean, "per_type": {t: vars(s) for t, s in per.items()},
                                 "confusion": {f"{g} -> {p}": n for (g, p), n in sorted(confusion.items())}}
    if errors_path is not None:
        atomic_write_text(errors_path, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in errors))
    return report


def evaluate_model(gold_path: str | os.PathLike, mapping_path: str | os.PathLike | None = None, mode: str = "both",
                   limit: int | None = None, model: str | None = None, labels: str | os.PathLike | None = None,
                   errors_path: str | os.PathLike | None = None, ensemble: Sequence[str] = (),
                   domain: str | None = None, student: str | os.PathLike | None = None, backend: str = "torch",
                   context: int = CONTEXT_SENTENCES, **config_changes) -> dict:
    """``evaluate`` with a model loaded by name (and ``ensemble`` members, ``MODEL`` or ``MODEL:LABELS_DIR``,
    voting with equal weights); the mapping ``mapping_path`` (a file or a mapping's name: ``Mapping.named``), else
    the one of the gold file's name; the tagger settings
    of ``domain`` (default: the labels folder's ``tagger.yaml`` when it has one, else the mapping's domain) with
    ``config_changes`` (TaggerConfig fields) on top. ``student``: the student that tags instead (a folder or a
    shipped student's name; ``model`` and ``labels`` still name the teacher whose labels folder holds the
    mappings: an adapted folder's student is scored with its folder's); ``backend``: the teacher's runtime
    (``uner.models.BACKEND_CHOICES``); ``context`` as for ``evaluate``. Unless ``stages`` are given, the mapping's
    ``stages`` run after the engine's own. Adds ``seconds`` and the ``stages`` run."""
    t0 = time.time()
    folder = LabelsFolder.of(labels, model)
    folder.check_files()  # (a malformed settings or stage file, or not a gold file: one line, before any model loads)
    read_documents(gold_path, context)
    mapper = Mapping.named(mapping_path, [folder.path / MAPPINGS]) if mapping_path else \
        Mapping.for_file(gold_path, [folder.path / MAPPINGS])
    if domain is None and folder.default_domain() is not None:  # the folder's own tagger.yaml: its settings
        config = TaggerConfig.for_labels(folder, **config_changes)
    else:
        config = TaggerConfig.for_domain(domain or mapper.domain, **config_changes)
    extra = mapper.stages if "stages" not in config_changes else ()
    if student is not None:
        tagger = load_tagger(engine="student", model=str(student), stages=config_changes.get("stages"))
        if extra:  # (its own stages are known once it is loaded)
            tagger = tagger.with_stages((*tagger.stages, *extra))
    else:
        config = replace(config, stages=(*config.stages, *extra))
        tagger = load_tagger(ensemble, model=model, labels=labels, config=config, backend=backend)
    result = evaluate(tagger, gold_path, mapper, mode, limit, errors_path, context)
    result["seconds"] = round(time.time() - t0, 1)
    result["stages"] = list(tagger.stages)
    return result


def report_text(gold_path: str | os.PathLike, result: dict) -> str:
    """The human-readable summary of an ``evaluate_model`` result."""
    lines = [f"{gold_path}: {result['sentences']} sentences, {result['gold_entities']} gold entities, "
             f"{result['seconds']} s", f"  stages: {','.join(result['stages']) or 'none'}"]
    if "end_to_end" in result:
        m = result["end_to_end"]["micro"]
        lines.append(f"  end-to-end strict micro: P {m['precision']:.3f} R {m['recall']:.3f} F1 {m['f1']:.3f}")
        for t, sc in result["end_to_end"]["per_type"].items():
            lines.append(f"    {t:<16} P {sc['precision']:.3f} R {sc['recall']:.3f} F1 {sc['f1']:.3f} ({sc['support']})")
        if "errors" in result["end_to_end"]:
            lines.append("  gold entities: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in
                                                       result["end_to_end"]["errors"].items() if k != "spurious")
                         + f"; spurious predictions {result['end_to_end']['errors']['spurious']}")
    if "given_spans" in result:
        g = result["given_spans"]
        lines.append(f"  given spans, token F1 averaged over types: {g['mean_token_f1']:.3f}")
        for t, sc in g["per_type"].items():
            lines.append(f"    {t:<16} F1 {sc['f1']:.3f} ({sc['support']} tokens)")
        lines.append("  confusion (gold -> predicted): " + ", ".join(f"{k} {v}" for k, v in g["confusion"].items()))
    return "\n".join(lines)
