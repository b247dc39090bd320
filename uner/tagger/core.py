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

The model is used only through ``vocab``, ``mask_token``, ``max_length``, ``count_tokens``,
``top_k`` and ``name``, so any backend with those serves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..labels import LabelsFolder, LabelTable, TypeHierarchy, Weighting
from ..models import MaskedLM
from ..spans import SPAN_TAGS, Span, candidate_spans, given_spans, load_spacy
from .scoring import Entity, LabelScorer, SpanScores


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


class BaseTagger(ABC):
    """What ``Tagger`` and ``Ensemble`` share: parse documents, find their spans, type them from ``span_scores``.

    A subclass sets ``nlp`` (the spaCy pipeline; callers may swap it), ``config``, and ``mlm``, ``types``
    and ``scorer`` (the model, types and scorer that name descriptors and guess entities).
    """

    nlp: object
    config: TaggerConfig
    mlm: MaskedLM
    types: TypeHierarchy
    scorer: LabelScorer

    @abstractmethod
    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Label votes of (text, span) pairs."""

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
                ent = scores.entity(k, text, sp, explain)
                if ent is not None:
                    ents.append(ent)
                k += 1
            out.append(ents)
        return out

    def explain(self, ids: np.ndarray, logits: np.ndarray) -> list[list[dict]]:
        """The usable descriptors of each input with their logits and strongest label."""
        return self.scorer.describe(ids, logits)


class Tagger(BaseTagger):
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
        folder = LabelsFolder(labels) if labels is not None else LabelsFolder.for_model(mlm.name)
        table = folder.load_table()
        stops = Path(stop_descriptors).read_text(encoding="utf-8").split() if stop_descriptors else ()
        nlp = load_spacy(spacy_model) if spacy_model else None
        return cls(mlm, table, folder.load_types(), nlp, config, stops)

    def _fit(self, text: str) -> str:
        """Crop context words around the single mask until the input fits the model window."""
        limit = self.mlm.max_length
        if len(text.encode("utf-8")) + 2 <= limit or self.mlm.count_tokens([text])[0] <= limit:
            return text  # (every token covers >= 1 byte: a short text fits without tokenizing)
        words = text.split()
        at = next(i for i, w in enumerate(words) if self.mlm.mask_token in w)
        width = self.config.max_context_words
        while width > 1:
            cropped = " ".join(words[max(0, at - width) : at + width + 1])
            if self.mlm.count_tokens([cropped])[0] <= limit:
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
        return self.scorer.span_scores(votes, ids.reshape(len(spans), per_span, k),
                                       logits.reshape(len(spans), per_span, k), self.config.min_score)
