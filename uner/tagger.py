"""Tagging: mask each candidate span, let the MLM's top predictions vote with their labels.

DESIGN.md §3.3. For every span two inputs are made — the sentence with the span
replaced by one mask (context-dependent, CS) and "<span> is a <mask> ." (context
independent, CI). All masked inputs of a batch of documents go through the model
together; each descriptor (a top-k prediction that is a whole word, not
punctuation, not a stop descriptor) votes its label distribution weighted by its
logit; label scores roll up into their types; CS and CI are normalised and added.
The top type wins unless it is a not-entity label (OTHER, UNTAGGED_ENTITY).

Speed: ``Tagger.from_pretrained`` loads the model with ``dtype="auto"`` (bfloat16 on CPUs
with native bf16: entity types agree with float32 on ~98-99 % of spans), and a run's
identical masked inputs — the same span's CI input, repeated sentences — go through the
model once (``PredictionCache``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .paths import labels_dir
from .labels import LabelTable, TypeHierarchy, Weighting, load_types, term_distribution, type_rollup
from .models import MaskedLM
from .spans import SPAN_TAGS, Span, candidate_spans, given_spans, load_spacy

PUNCT = set(string.punctuation) | {"``", "''", "--", "...", "…", "–", "—"}


@dataclass
class Entity:
    """A typed span; ``start``/``end`` are character offsets into the input text."""

    text: str
    start: int
    end: int
    type: str
    subtype: str | None
    score: float
    descriptors: list | None = None
    distribution: dict | None = field(default=None, repr=False)

    def to_dict(self, explain: bool = False) -> dict:
        d = asdict(self)
        d.pop("distribution")
        if not explain:
            d.pop("descriptors")
        return d


class LabelScorer:
    """The label table as matrices, built once: descriptor → label distribution, label → type."""

    def __init__(self, table: LabelTable, types: TypeHierarchy, vocab: Sequence[str],
                 stop_descriptors: Iterable[str] = (), weighting: Weighting = Weighting()) -> None:
        if table.vocab_size != len(vocab):
            raise ValueError(f"label table is for a vocabulary of {table.vocab_size}, the model has {len(vocab)}")
        self.dist = term_distribution(table, types, weighting)
        self.labels = table.labels
        self.type_names, self.rollup = type_rollup([types.parent(lab) for lab in table.labels])
        self.not_entity = {self.type_names.index(t) for t in types.not_entity if t in self.type_names}
        stop = set(stop_descriptors)
        self.usable = np.array([not (t.startswith("##") or len(t) < 2 or t in PUNCT or t in stop
                                     or all(c in PUNCT for c in t) or re.fullmatch(r"\[.*\]|<.*>", t))
                                for t in vocab], dtype=bool)

    def label_scores(self, ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """M × labels: logit-weighted label votes of the usable descriptors, normalised per row."""
        weights = np.where(self.usable[ids], logits, 0.0).astype(np.float32)
        votes = np.einsum("mk,mkl->ml", weights, self.dist[ids])
        total = votes.sum(1, keepdims=True)
        return np.divide(votes, total, out=np.zeros_like(votes), where=total > 0)


class PredictionCache:
    """Top-k predictions of masked inputs for one tagging run: each distinct (model, k, input) runs once.

    ``tag`` and ``tag_records`` make one per call, so a run never reuses another run's predictions;
    the oldest entries go once ``max_entries`` is passed.
    """

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self.entries: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.hits = self.misses = 0

    def top_k(self, mlm: MaskedLM, texts: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """ids and logits (len(texts) × k) at the one mask of each text."""
        keys = [(mlm, k, t) for t in texts]
        missing = list(dict.fromkeys(key for key in keys if key not in self.entries))
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        if missing:
            for key, preds in zip(missing, mlm.top_k([key[2] for key in missing], k=k)):
                self.entries[key] = (preds[0].ids, preds[0].logits)
        if not keys:
            return np.zeros((0, k), dtype=np.int64), np.zeros((0, k), dtype=np.float32)
        ids = np.stack([self.entries[key][0] for key in keys])
        logits = np.stack([self.entries[key][1] for key in keys])
        for old in list(self.entries)[: max(0, len(self.entries) - self.max_entries)]:
            del self.entries[old]
        return ids, logits


@dataclass
class TaggerConfig:
    """Tagging options (validated at construction)."""

    top_k: int = 5  # descriptors per masked input; best mean end-to-end dev F1 of 3/5/10/20 (tune_scoring)
    ci_template: str = "{span} is a {mask} ."
    use_cs: bool = True
    use_ci: bool = True
    span_tags: frozenset[str] = SPAN_TAGS
    max_context_words: int = 200
    cs_weight: float = 0.3  # share of the context-dependent votes when both inputs are used (CI gets the rest)
    min_score: float = 0.3  # a span is an entity only when its top type's share of the votes exceeds this
    weighting: Weighting = Weighting()

    def __post_init__(self) -> None:
        if not (self.use_cs or self.use_ci):
            raise ValueError("at least one of the context-dependent or context-independent inputs is needed")
        if not 0 <= self.cs_weight <= 1 or not 0 <= self.min_score < 1:
            raise ValueError("cs_weight must be in [0, 1] and min_score in [0, 1)")
        if "{span}" not in self.ci_template or "{mask}" not in self.ci_template:
            raise ValueError("ci_template needs {span} and {mask}")


class Tagger:
    """Unsupervised NER over a masked LM and a compiled label table."""

    def __init__(self, mlm: MaskedLM, table: LabelTable, types: TypeHierarchy, nlp=None,
                 config: TaggerConfig | None = None, stop_descriptors: Iterable[str] = ()) -> None:
        self.mlm = mlm
        self.types = types
        self.config = config or TaggerConfig()
        self.table = table
        self.scorer = LabelScorer(table, types, mlm.vocab, stop_descriptors, self.config.weighting)
        self.nlp = nlp if nlp is not None else load_spacy()

    @classmethod
    def from_pretrained(cls, model: str | None = None, labels: str | Path | None = None, *,
                        spacy_model: str | None = None, config: TaggerConfig | None = None,
                        stop_descriptors: str | Path | None = None, **mlm_kwargs) -> Tagger:
        """The embedded model and its shipped labels by default; any model folder with its labels folder.

        ``mlm_kwargs`` go to ``MaskedLM.from_pretrained``; ``dtype`` defaults to ``"auto"`` here
        (bfloat16 on CPUs with native bf16, else float32; float16 on GPUs).
        """
        mlm_kwargs.setdefault("dtype", "auto")
        mlm = MaskedLM.from_pretrained(model, **mlm_kwargs)
        folder = Path(labels) if labels is not None else labels_dir(mlm.name)
        if not (folder / "label_table.npz").is_file():
            raise FileNotFoundError(f"{folder / 'label_table.npz'}: no compiled labels; run `uner labels compile`")
        stops = Path(stop_descriptors).read_text(encoding="utf-8").split() if stop_descriptors else ()
        nlp = load_spacy(spacy_model) if spacy_model else None
        return cls(mlm, LabelTable.load(folder / "label_table.npz"), load_types(folder / "types.yaml"), nlp,
                   config, stops)

    # ------------------------------------------------------------------ inputs
    def _fit(self, text: str) -> str:
        """Crop context words around the single mask until the input fits the model window."""
        mask = self.mlm.mask_token
        if len(text.encode("utf-8")) + 2 <= self.mlm.max_length:  # every token covers >= 1 byte: it fits
            return text
        if len(self.mlm.tokenizer(text)["input_ids"]) <= self.mlm.max_length:
            return text
        words = text.split()
        at = next(i for i, w in enumerate(words) if mask in w)
        width = self.config.max_context_words
        while width > 1:
            cropped = " ".join(words[max(0, at - width) : at + width + 1])
            if len(self.mlm.tokenizer(cropped)["input_ids"]) <= self.mlm.max_length:
                return cropped
            width //= 2
        raise ValueError("span context cannot fit the model window")

    def masked_inputs(self, text: str, spans: Sequence[Span]) -> list[str]:
        """CS and/or CI inputs for each span, in span order."""
        mask = self.mlm.mask_token
        out = []
        for sp in spans:
            span_text = text[sp.start : sp.end]
            if self.config.use_cs:
                sent = text[sp.sent_start : sp.sent_end]
                a, b = sp.start - sp.sent_start, sp.end - sp.sent_start
                out.append(self._fit(f"{sent[:a]}{mask}{sent[b:]}"))
            if self.config.use_ci:
                out.append(self._fit(self.config.ci_template.format(span=span_text, mask=mask)))
        return out

    # ------------------------------------------------------------------ tagging
    def tag(self, texts: Iterable[str], spans: Iterable[list[tuple[int, int]] | None] | None = None, *,
            batch_size: int = 64, explain: bool = False,
            cache: PredictionCache | None = None) -> Iterator[list[Entity]]:
        """Entities for each text, in input order, streaming in batches of ``batch_size`` documents.

        ``spans`` gives, per text, character offsets of the spans to type (None: find candidates).
        Predictions are shared across the batches of this call (or of ``cache``, when given).
        """
        cache = cache if cache is not None else PredictionCache()
        given = iter(spans) if spans is not None else None
        batch: list[tuple[str, list[tuple[int, int]] | None]] = []
        for text in texts:
            batch.append((text, next(given) if given is not None else None))
            if len(batch) >= batch_size:
                yield from self._tag_batch(batch, explain, cache)
                batch = []
        if batch:
            yield from self._tag_batch(batch, explain, cache)

    def spans_for_doc(self, doc, given: list[tuple[int, int]] | None = None) -> list[Span]:
        """Caller-given spans placed in their sentences, or the candidate spans of a parsed doc."""
        return given_spans(doc, given) if given is not None else candidate_spans(doc, self.config.span_tags)

    def _tag_batch(self, batch: list[tuple[str, list | None]], explain: bool,
                   cache: PredictionCache | None = None) -> list[list[Entity]]:
        docs = list(self.nlp.pipe([t for t, _ in batch]))
        return self.tag_parsed(docs, [self.spans_for_doc(d, g) for d, (_, g) in zip(docs, batch)], explain, cache)

    def tag_parsed(self, docs: Sequence, spans: Sequence[Sequence[Span]], explain: bool = False,
                   cache: PredictionCache | None = None) -> list[list[Entity]]:
        """Type the given spans of already parsed docs (one model pass for all of them)."""
        texts = [d.text for d in docs]
        flat = [(text, sp) for text, doc_spans in zip(texts, spans) for sp in doc_spans]
        if not flat:
            return [[] for _ in docs]
        scores = self.span_scores(flat, cache)
        out: list[list[Entity]] = []
        k = 0
        for text, doc_spans in zip(texts, spans):
            ents = []
            for sp in doc_spans:
                ent = scores.entity(k, text, sp, self if explain else None)
                if ent is not None:
                    ents.append(ent)
                k += 1
            out.append(ents)
        return out

    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Label votes of (text, span) pairs: all distinct CS and CI inputs through the model in one batch."""
        inputs = [s for text, sp in spans for s in self.masked_inputs(text, [sp])]
        per_span = int(self.config.use_cs) + int(self.config.use_ci)
        cache = cache if cache is not None else PredictionCache()
        ids, logits = cache.top_k(self.mlm, inputs, self.config.top_k)
        votes = self.scorer.label_scores(ids, logits).reshape(len(spans), per_span, -1)
        share = np.array([self.config.cs_weight, 1 - self.config.cs_weight] if per_span == 2 else [1.0], np.float32)
        votes = np.einsum("spl,p->sl", votes, share)
        k = ids.shape[-1]
        return SpanScores(self.scorer.labels, self.scorer.type_names, self.scorer.rollup, self.scorer.not_entity,
                          votes, ids.reshape(len(spans), per_span, k), logits.reshape(len(spans), per_span, k),
                          self.config.min_score)

    def explain(self, ids: np.ndarray, logits: np.ndarray) -> list[list[dict]]:
        """The usable descriptors of each input with their logits and strongest label."""
        sc = self.scorer
        return [[{"term": self.mlm.vocab[i], "logit": round(float(lg), 3),
                  "label": sc.labels[int(np.argmax(sc.dist[i]))] if sc.dist[i].any() else None}
                 for i, lg in zip(row_ids, row_logits) if sc.usable[i]]
                for row_ids, row_logits in zip(ids, logits)]


@dataclass
class SpanScores:
    """Scores of a list of spans: normalised label votes (spans × labels), rolled up into types."""

    labels: list[str]
    type_names: list[str]
    rollup: np.ndarray
    not_entity: set[int]
    label_scores: np.ndarray
    ids: np.ndarray
    logits: np.ndarray
    min_score: float = 0.0

    def entity(self, k: int, text: str, span: Span, explainer: Tagger | None = None) -> Entity | None:
        """The entity for span ``k``, or None when its top type is a not-entity label, nothing voted, or the
        top type's share is at most ``min_score``."""
        type_row = self.label_scores[k] @ self.rollup
        best = int(np.argmax(type_row))
        if type_row[best] <= self.min_score or best in self.not_entity:
            return None
        members = np.flatnonzero(self.rollup[:, best])
        subtype = self.labels[int(members[np.argmax(self.label_scores[k, members])])]
        dist = {self.type_names[j]: round(float(v), 4) for j, v in enumerate(type_row) if v > 0}
        descriptors = explainer.explain(self.ids[k], self.logits[k]) if explainer is not None else None
        return Entity(text[span.start : span.end], span.start, span.end, self.type_names[best],
                      subtype if subtype != self.type_names[best] else None, round(float(type_row[best]), 4),
                      descriptors, dist)


class Ensemble(Tagger):
    """Several taggers (each a model with its own labels) voting per span; spans come from the first."""

    def __init__(self, taggers: Sequence[Tagger], weights: Sequence[float] | None = None) -> None:
        if not taggers:
            raise ValueError("an ensemble needs at least one tagger")
        first = taggers[0]
        self.members = list(taggers)
        self.weights = list(weights) if weights is not None else [1.0] * len(taggers)
        self.mlm, self.types, self.config, self.scorer, self.nlp = (first.mlm, first.types, first.config,
                                                                      first.scorer, first.nlp)

    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Each member's label votes mapped onto the union of label names, weighted and averaged."""
        parts = [m.span_scores(spans, cache) for m in self.members]
        labels = list(dict.fromkeys(lab for p in parts for lab in p.labels))
        col = {lab: j for j, lab in enumerate(labels)}
        total = np.zeros((len(spans), len(labels)), dtype=np.float32)
        for w, p in zip(self.weights, parts):
            total[:, [col[lab] for lab in p.labels]] += w * p.label_scores
        total /= sum(self.weights)
        parent = {lab: m.types.parent(lab) for m in self.members for lab in m.scorer.labels}
        type_names, rollup = type_rollup([parent[lab] for lab in labels])
        not_entity = {type_names.index(t) for m in self.members for t in m.types.not_entity if t in type_names}
        return SpanScores(labels, type_names, rollup, not_entity, total, parts[0].ids, parts[0].logits,
                          parts[0].min_score)


def tag_records(tagger: Tagger, records: Iterable, *, inline: bool = False, batch_size: int = 64,
                explain: bool = False) -> Iterator[dict]:
    """Output record per input record (same order): ``{"id", "text", "entities"}`` plus ``error`` for bad input.

    Given spans come from a record's ``spans`` field (``[[start, end], …]`` or ``[{"start", "end"}, …]``) or,
    with ``inline``, from ``term:__entity__`` marks in the text.
    """
    from .spans import parse_inline

    pending: list[tuple[dict, str, list | None]] = []
    cache = PredictionCache()  # repeated masked inputs run once per call

    def flush() -> Iterator[dict]:
        good = [(out, text, spans) for out, text, spans in pending if "error" not in out]
        try:
            results = list(tagger.tag([t for _, t, _ in good], [s for _, _, s in good], batch_size=len(good) or 1,
                                      explain=explain, cache=cache))
        except ValueError:  # one bad document must not sink the batch: redo one by one
            results = []
            for out, text, spans in good:
                try:
                    results.append(next(tagger.tag([text], [spans], explain=explain, cache=cache)))
                except ValueError as exc:
                    out["error"] = f"line {out['id']}: {exc}"
                    results.append([])
        for (out, _, _), ents in zip(good, results):
            out["entities"] = [e.to_dict(explain) for e in ents]
        for out, _, _ in pending:
            yield out
        pending.clear()

    for rec in records:
        out = {"id": rec.id, "text": rec.text, "entities": []}
        spans = None
        if rec.error:
            out["error"] = rec.error
        elif inline:
            out["text"], spans = parse_inline(rec.text)
        elif "spans" in rec.fields:
            try:
                spans = [(int(s["start"]), int(s["end"])) if isinstance(s, dict) else (int(s[0]), int(s[1]))
                         for s in rec.fields["spans"]]
                if any(not 0 <= a < b <= len(rec.text) for a, b in spans):
                    raise ValueError
            except (TypeError, ValueError, KeyError, IndexError):
                out["error"] = f"line {rec.line}: 'spans' must be [start, end] character offsets inside the text"
        pending.append((out, out["text"], spans))
        if len(pending) >= batch_size:
            yield from flush()
    yield from flush()


_WORKER: dict = {}


def _worker_init(kwargs: dict, options: dict) -> None:
    import torch

    torch.set_num_threads(1)
    _WORKER["tagger"] = Tagger.from_pretrained(**kwargs)
    _WORKER["options"] = options


def _worker_run(chunk: list) -> list[dict]:
    return list(tag_records(_WORKER["tagger"], chunk, **_WORKER["options"]))


def tag_records_parallel(records: Iterable, workers: int, tagger_kwargs: dict, *, inline: bool = False,
                         batch_size: int = 64, explain: bool = False) -> Iterator[dict]:
    """``tag_records`` over ``workers`` processes (each with its own model, one thread), order kept."""
    import itertools
    import multiprocessing as mp

    options = {"inline": inline, "batch_size": batch_size, "explain": explain}
    it = iter(records)
    chunks = iter(lambda: list(itertools.islice(it, batch_size)), [])
    with mp.get_context("spawn").Pool(workers, _worker_init, (tagger_kwargs, options)) as pool:
        for out in pool.imap(_worker_run, chunks):
            yield from out


def entity_guesses(tagger: Tagger, texts: Sequence[str], k: int = 50) -> list[list[dict[str, float]]]:
    """Fill-in-the-blank entity guessing: per mask, entity types with the summed probability of the
    top-k predicted terms that carry them ("aripiprazole is used to treat [MASK]" → DISEASE …)."""
    out = []
    for preds in tagger.mlm.top_k(texts, k=k):
        per_mask = []
        for p in preds:
            probs = np.exp(p.logits - p.logits.max())
            probs /= probs.sum()
            types = (tagger.scorer.dist[p.ids] @ tagger.scorer.rollup) * probs[:, None]
            totals = types.sum(0)
            order = np.argsort(-totals)
            per_mask.append({tagger.scorer.type_names[j]: round(float(totals[j]), 4) for j in order if totals[j] > 0})
        out.append(per_mask)
    return out
