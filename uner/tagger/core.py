"""Tagging: mask each candidate span, let the MLM's top predictions vote with their labels.

docs/design.md §3.3. For every span two inputs are made — the sentence with the span
replaced by one mask (context-dependent, CS) and one input per context-independent (CI)
template, "<span> is a <mask> ." by default. All masked inputs of a batch of documents go through the model
together (the sentence-length ones only for spans whose short inputs leave the type open: ``context_margin``);
each descriptor (a top-k prediction that is a whole word, not punctuation, not a stop descriptor) votes its label
distribution weighted by its logit; label scores roll up into their types; CS and CI are normalised and added.
The top type wins unless it is a not-entity label (OTHER, UNTAGGED_ENTITY).

Speed: ``Tagger.from_pretrained`` loads the model with ``dtype="auto"`` (bfloat16 where it measures
faster on this CPU: entity types agree with float32 on ~98-99 % of spans), and a run's
identical masked inputs — the same span's CI input, repeated sentences — go through the
model once (``PredictionCache``).

The model is used only through ``vocab``, ``mask_token``, ``max_length``, ``count_tokens``,
``top_k`` and ``name``, so any backend with those serves.
"""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import yaml

from ..io import atomic_write_text
from ..labels import Calibration, LabelsFolder, LabelTable, TypeHierarchy
from ..models import Backend, load_backend
from ..paths import STAGES_DIR, WORDS_DIR
from ..spans import DEFAULT_SPACY_MODEL, SPAN_TAGS, Span, candidate_spans, given_spans, load_spacy, parse_for_spans
from .config import TaggerConfig, fill_template
from .inner import NAME as INNER_NAMES
from .inner import InnerNames
from .scoring import Entity, LabelScorer, SpanScores, blend, pool_groups
from .stages import check_stage_types, load_stages, run_stages
from .span_words import name_joins, noun_phrases

class PredictionCache:
    """Top-k predictions of masked inputs for one tagging run: each distinct (model, k, input) runs once.

    ``tag`` and ``tag_records`` make one per call, so a run never reuses another run's predictions;
    the oldest entries go once ``max_entries`` is passed.
    """

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self.entries: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.hits = self.misses = 0

    def top_k(self, mlm: Backend, texts: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
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


class BaseTagger(ABC):
    """What ``Tagger`` and ``Ensemble`` share: parse documents, find their spans, type them from ``span_scores``.

    A subclass sets ``nlp`` (the spaCy pipeline; callers may swap it), ``config``, and ``mlm``, ``types``
    and ``scorer`` (the model, types and scorer that name descriptors and guess entities).
    """

    nlp: object
    config: TaggerConfig
    stage_folder: str | None = None  # the labels folder whose stages/ word lists the stages read (None: shipped)
    mlm: Backend
    types: TypeHierarchy
    scorer: LabelScorer

    @property
    def stages(self) -> tuple[str, ...]:
        """The post-typing stages this tagger runs (``config.stages``)."""
        return self.config.stages

    @abstractmethod
    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Label votes of (text, span) pairs."""

    def tag(self, texts: Iterable[str], spans: Iterable[list[tuple[int, int]] | None] | None = None, *,
            batch_size: int = 64, explain: bool = False, cache: PredictionCache | None = None,
            rejected: bool = False) -> Iterator[list[Entity]]:
        """An iterator over the entities of each text, in input order, streaming in batches of ``batch_size``
        documents. A single string is one text (not a sequence of characters). ``rejected``: also the candidate
        spans that did not become entities, with ``kept=False`` (what a student learns "not an entity" from).

        ``spans`` gives, per text, character offsets of the spans to type (None: find candidates).
        Predictions are shared across the batches of this call (or of ``cache``, when given).
        """
        if isinstance(texts, str):
            texts = [texts]
        cache = cache if cache is not None else PredictionCache()
        given = iter(spans) if spans is not None else None
        batch: list[tuple[str, list[tuple[int, int]] | None]] = []
        for text in texts:
            batch.append((text, next(given) if given is not None else None))
            if len(batch) >= batch_size:
                yield from self._tag_batch(batch, explain, cache, rejected)
                batch = []
        if batch:
            yield from self._tag_batch(batch, explain, cache, rejected)

    def spans_for_doc(self, doc, given: list[tuple[int, int]] | None = None) -> list[Span]:
        """Caller-given spans placed in their sentences, or the candidate spans of a parsed doc."""
        cfg = self.config
        phrases = noun_phrases(self.stage_folder, bool(cfg.descriptor_weight), bool(cfg.coordination_weight),
                               cfg.name_determiners, hyphens=True, numbers=cfg.name_numbers)
        # (a word written with a hyphen inside, which the parser splits, is never cut by a span's edge: CoNLL, WNUT,
        # JNLPBA and the five CrossNER dev splits up, docs/log/accuracy.md §7)
        if given is not None:
            return given_spans(doc, given, phrases)
        return candidate_spans(doc, SPAN_TAGS, cfg.span_policy, self.scorer.is_common_word,
                               name_joins(self.stage_folder, cfg.head_joins), phrases)

    def _tag_batch(self, batch: list[tuple[str, list | None]], explain: bool,
                   cache: PredictionCache | None = None, rejected: bool = False) -> list[list[Entity]]:
        docs = list(parse_for_spans(self.nlp, [t for t, _ in batch]))
        return self.tag_parsed(docs, [self.spans_for_doc(d, g) for d, (_, g) in zip(docs, batch)], explain, cache,
                               rejected)

    def tag_parsed(self, docs: Sequence, spans: Sequence[Sequence[Span]], explain: bool = False,
                   cache: PredictionCache | None = None, rejected: bool = False) -> list[list[Entity]]:
        """Type the given spans of already parsed docs (one model pass for all of them); ``rejected`` as in ``tag``."""
        texts = [d.text for d in docs]
        flat = [(text, sp) for text, doc_spans in zip(texts, spans) for sp in doc_spans]
        if not flat:
            return [[] for _ in docs]
        scores = self.span_scores(flat, cache)
        inner = self.inner_names()
        every = rejected or inner is not None  # (the inner names look at rejected candidates too)
        ents = [self._common(scores.entity(k, text, sp, explain, self._cut(sp), every), sp, every)
                for k, (text, sp) in enumerate(flat)]
        if inner is not None:
            by_end = [{t.idx + len(t): t.tag_ for t in d} for d in docs]  # (PTB tags by token end, per document)
            tags = [doc_tags for doc_tags, doc_spans in zip(by_end, spans) for _ in doc_spans]
            ents = self._inner_names(inner, flat, tags, ents, explain, cache)
        out: list[list[Entity]] = []
        k = 0
        for text, doc_spans in zip(texts, spans):
            doc_ents = [e for e in _names_in_compounds(ents[k : k + len(doc_spans)])
                        if e is not None and (rejected or e.kept)]
            k += len(doc_spans)
            given = any(sp.given for sp in doc_spans)
            out.append(doc_ents if given else run_stages(text, doc_ents, self.config.stages, self.stage_folder))
        return out

    def _cut(self, span: Span) -> float | None:
        """The share a span's top type must pass: the tagger's, or more for a common-noun span (``named``)."""
        return None if span.named else max(self.config.min_score, self.config.common_min_score)

    def _common(self, ent: Entity | None, span: Span, rejected: bool) -> Entity | None:
        """A common-noun span's entity (``named`` policy) stays kept only when typed one of the config's
        ``common_types``, when it lists any; else it is rejected (None unless ``rejected``)."""
        kinds = self.config.common_types
        if ent is None or span.named or not kinds or not ent.kept or ent.type in kinds or ent.subtype in kinds:
            return ent
        return replace(ent, kept=False) if rejected else None

    def inner_names(self) -> InnerNames | None:
        """The ``inner_names`` settings of this tagger's labels when its config switches them on."""
        return InnerNames.load(self.stage_folder) if self.config.inner_names else None

    def _inner_names(self, inner: InnerNames, flat: Sequence[tuple[str, Span]], tags: Sequence[dict[int, str]],
                     ents: list[Entity | None], explain: bool, cache: PredictionCache | None) -> list[Entity | None]:
        """``ents`` (one per span of ``flat``, rejected ones included) with each container candidate replaced by
        its inner name when that is typed an entity other than a container (``uner.tagger.inner``; ``tags``: each
        span's document's PTB tags by token end). A rest typed a container, kept or not, is cut again ("lithium
        maintenance therapy" → "lithium maintenance" → "lithium"), one batch per round."""
        out = list(ents)
        open_ = {k: (sp, ent) for k, ((_, sp), ent) in enumerate(zip(flat, ents)) if ent is not None and not sp.given}
        while asks := [(k, rest) for k, (sp, ent) in open_.items()
                       if (rest := inner.rest(flat[k][0], sp, ent, tags[k])) is not None]:
            scores = self.span_scores([(flat[k][0], rest) for k, rest in asks], cache)
            open_ = {}
            for j, (k, rest) in enumerate(asks):
                new = scores.entity(j, flat[k][0], rest, explain, self._cut(rest), rejected=True)
                if inner.holds(new):
                    open_[k] = (rest, new)
                elif new.kept:
                    out[k] = replace(new, stages=(INNER_NAMES,))
        return out

    def explain(self, ids: np.ndarray, logits: np.ndarray) -> list[list[dict]]:
        """The usable descriptors of each input with their logits and strongest label."""
        return self.scorer.describe(ids, logits)


def _names_in_compounds(ents: Sequence[Entity | None]) -> list[Entity | None]:
    """A kept common-noun entity that holds a name's entity ("Italian general election": the ``named`` policy's
    compound, ``uner.spans``) is the entity there: the name inside it is rejected."""
    compounds = [(e.start, e.end) for e in ents if e is not None and e.kept and not e.named]
    return [replace(e, kept=False) if e is not None and e.kept and e.named
            and any(a <= e.start and e.end <= b for a, b in compounds) else e for e in ents]


class Tagger(BaseTagger):
    """Unsupervised NER over a masked LM and a compiled label table."""

    def __init__(self, mlm: Backend, table: LabelTable, types: TypeHierarchy, nlp=None,
                 config: TaggerConfig | None = None, stop_descriptors: Iterable[str] = (),
                 calibration: Calibration = Calibration(), expert_types: Iterable[str] = (),
                 labels_folder: LabelsFolder | None = None) -> None:
        self.mlm = mlm
        self.labels_folder = labels_folder  # where the table and types came from (``save_pretrained`` copies them)
        self.stage_folder = str(labels_folder.path) if labels_folder is not None else None
        self.stop_descriptors = tuple(stop_descriptors)
        self.calibrated = bool(calibration.type_weights or calibration.min_scores or calibration.subtype_shares)
        self.expert_types = frozenset(expert_types)  # in an ensemble: vote only on spans typed as one of these
        self.types = types
        self.config = config or TaggerConfig()
        self.table = table
        self.scorer = LabelScorer(table, types, mlm.vocab, stop_descriptors, self.config.weighting, calibration)
        self.nlp = nlp if nlp is not None else load_spacy()

    @classmethod
    def from_pretrained(cls, model: str | None = None, labels: str | Path | None = None, *,
                        spacy_model: str | None = None, config: TaggerConfig | None = None,
                        stop_descriptors: str | Path | None = None, calibrate: bool = True,
                        backend: str = "torch", **mlm_kwargs) -> Tagger:
        """The embedded model and its shipped labels by default; any model folder with its labels folder; a labels
        folder named as ``model`` (an adapted one, ``uner adapt``) with the model its ``tagger.yaml`` names.
        ``config`` defaults to the settings of the labels' domain (``TaggerConfig.for_labels``). ``calibrate``:
        apply the folder's ``calibration.yaml`` (per-type weights and thresholds) when it has one. A folder written
        by ``save_pretrained`` also gives the model and the stop descriptors when they are not given.

        ``backend`` names the runtime (``uner.models.BACKEND_CHOICES``: ``"onnx"`` for ONNX Runtime's int8 graph, the
        fastest on a CPU without AMX; ``"auto"`` the faster on this CPU, measured once), ``mlm_kwargs`` go to its loader; ``dtype`` is ``"auto"`` here (torch: bfloat16 where it measures
        faster on this CPU, else float32; float16 on GPUs. onnx: int8).
        """
        mlm_kwargs.setdefault("dtype", "auto")
        nlp = load_spacy(spacy_model or DEFAULT_SPACY_MODEL)  # a missing parser fails before the model loads
        model, labels = LabelsFolder.model_and_labels(model, labels)
        saved = LabelsFolder(labels) if labels is not None else None
        mlm = load_backend(model or (saved.model() if saved else None), backend, **mlm_kwargs)
        folder = saved or LabelsFolder.of(labels, mlm.name)
        config = config or TaggerConfig.for_labels(folder)
        table = folder.load_table()
        stops = (Path(stop_descriptors).read_text(encoding="utf-8").split() if stop_descriptors
                 else folder.stop_descriptors())
        types = folder.load_types()
        known = [types.parent(lab) for lab in table.labels]
        stages = load_stages(config.stages, str(folder.path))  # (a malformed stage file names itself)
        try:
            check_stage_types(stages, known)
        except ValueError as exc:
            raise ValueError(f"{folder.tagger_path}: {exc}") from None
        if config.inner_names:
            InnerNames.load(str(folder.path)).check(set(table.labels))
        unknown = sorted(set(config.common_types) - set(table.labels) - set(known))
        if unknown:
            raise ValueError(f"{folder.tagger_path}: common_types: {', '.join(unknown)} not among the labels' types")
        calibration = folder.load_calibration(known, table.labels) if calibrate else Calibration()
        return cls(mlm, table, types, nlp, config, stops, calibration, folder.expert_types(known), folder)

    def save_pretrained(self, folder: str | Path) -> Path:
        """This tagger as a labels folder — its types, table, calibration, and a ``tagger.yaml`` with the model,
        domain, stages, the settings that differ from the domain's, expert types and stop descriptors — so that
        ``Tagger.from_pretrained(labels=folder)`` loads it back with the same model and settings."""
        if self.labels_folder is None:
            raise ValueError("this tagger was not loaded from a labels folder: there are no types to save")
        src, out = self.labels_folder, LabelsFolder(folder)
        out.path.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src.types_path, out.types_path)
        self.table.save(out.table_path)
        if self.calibrated:
            shutil.copyfile(src.calibration_path, out.calibration_path)
        for sub in (STAGES_DIR, WORDS_DIR):  # the stages' settings and the folder's own word lists
            if (src.path / sub).is_dir():
                shutil.copytree(src.path / sub, out.path / sub, dirs_exist_ok=True)
        cfg = self.config
        doc = {"domain": cfg.domain, "model": self.mlm.name, "stages": list(cfg.stages), "settings": cfg.settings(),
               "expert_types": sorted(self.expert_types), "stop_descriptors": list(self.stop_descriptors)}
        atomic_write_text(out.tagger_path, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
        return out.path

    def _fit(self, build: Callable[[str, str], str], left: str, right: str) -> str:
        """``build(left, right)``: the text with the span's context either side, at most ``max_context_words``
        words of it each side (the rest costs model time and hardly moves the votes); where that passes the model
        window, the width is halved until it fits (the span stays in its context)."""
        limit = self.mlm.max_length
        before, after = left.split(), right.split()
        width = self.config.max_context_words
        if len(before) <= width and len(after) <= width:
            text = build(left, right)  # (the sentence as it is)
            if len(text.encode("utf-8")) + 2 <= limit or self.mlm.count_tokens([text])[0] <= limit:
                return text  # (every token covers >= 1 byte: a short text fits without tokenizing)
        while width >= 1:
            text = build(" ".join(before[-width:]) + " " if before else "",
                         " " + " ".join(after[:width]) if after else "")
            if self.mlm.count_tokens([text])[0] <= limit:
                return text
            width //= 2
        raise ValueError("span context cannot fit the model window")

    def masked_inputs(self, text: str, spans: Sequence[Span]) -> list[str]:
        """CS and/or CI inputs for each span, in span order (a template naming {sentence} gets the span's sentence,
        cropped around the span when too long)."""
        return [x for sp in spans for x in self._span_inputs(text, sp)]

    def _span_inputs(self, text: str, sp: Span) -> list[str]:
        """One span's masked inputs, in ``TaggerConfig.input_shares`` order."""
        mask = self.mlm.mask_token
        span_text = text[sp.start : sp.end]
        left, right = text[sp.sent_start : sp.start], text[sp.end : sp.sent_end]
        out = [self._fit(lambda a, b: f"{a}{mask}{b}", left, right)] if self.config.use_cs else []
        if self.config.use_ci:
            out += [self._fit(lambda a, b, t=t: fill_template(t, span_text, mask, f"{a}{span_text}{b}"), left, right)
                    for t in self.config.ci_templates]
        return out

    def span_scores(self, spans: Sequence[tuple[str, Span]], cache: PredictionCache | None = None) -> SpanScores:
        """Label votes of (text, span) pairs: the distinct masked inputs through the model in one batch, or, with
        ``context_margin``, in two: the short inputs of every span, then the sentence-length ones of the spans
        whose short inputs leave the type open (an input not asked keeps the mask token and no votes)."""
        cfg = self.config
        cache = cache if cache is not None else PredictionCache()
        inputs = [self._span_inputs(text, sp) for text, sp in spans]
        share, long_ = cfg.input_shares(), cfg.sentence_inputs()
        n, per, k = len(spans), len(share), cfg.top_k
        ids = np.full((n, per, k), self.scorer.index[self.mlm.mask_token], np.int64)
        logits = np.zeros((n, per, k), np.float32)
        votes = np.zeros((n, per, len(self.scorer.labels)), np.float32)
        asked = np.zeros((n, per), bool)
        rounds = [~long_, long_] if cfg.context_margin and long_.any() and not long_.all() else [np.ones(per, bool)]
        open_ = np.ones(n, bool)  # the spans the next round asks
        for r, slots in enumerate(rounds):
            at = np.nonzero(np.outer(open_, slots))
            if at[0].size:
                ids[at], logits[at] = cache.top_k(self.mlm, [inputs[i][j] for i, j in zip(*at)], k)
                votes[at] = self.scorer.label_scores(ids[at], logits[at])
                asked[at] = True
            if r == 0 and len(rounds) > 1:
                short = np.einsum("spl,p->sl", votes[:, slots], share[slots])
                open_ = self.scorer.type_margin(short) < cfg.context_margin
        weights = share * asked
        votes = np.einsum("spl,sp->sl", votes, weights / weights.sum(1, keepdims=True))
        if cfg.head_weight or cfg.name_weight or cfg.common_head_weight or cfg.name_head_weight:
            words = [text[sp.start : sp.end].split() for text, sp in spans]
            # a trailing number is not the head ("caspase - 9", "nuclear factor 1"): it would vote MEASURE; a longer
            # name's own head is its syntactic one ("Conference on …") where name_head_weight asks for it
            heads = [sp.head if sp.head and cfg.name_head_weight > cfg.head_weight
                     else w[-1] if any(c.isalpha() for c in w[-1]) else "" for (_, sp), w in zip(spans, words)]
            weight = [max(cfg.head_weight, cfg.name_weight if len(w) == 1 else cfg.name_head_weight if sp.head else 0)
                      if sp.named else max(cfg.head_weight, cfg.common_head_weight) for (_, sp), w in zip(spans, words)]
            votes = blend(votes, self.scorer.term_votes(heads), np.array(weight, np.float32)[:, None])
        if cfg.descriptor_weight:
            votes = blend(votes, self.scorer.term_votes([sp.descriptor for _, sp in spans]), cfg.descriptor_weight)
        if cfg.coordination_weight:
            votes = pool_groups(votes, [(t, sp.group) if sp.group >= 0 else None for t, sp in spans], cfg.coordination_weight)
        if cfg.name_not_entity < 1:
            named = np.array([sp.named for _, sp in spans])
            votes[np.ix_(named, self.scorer.not_entity_labels)] *= cfg.name_not_entity
        return self.scorer.span_scores(votes, ids, logits, cfg.min_score, cfg.subtype_share)


def entity_guesses(tagger: BaseTagger, texts: Sequence[str], k: int = 50) -> list[list[dict[str, float]]]:
    """Fill-in-the-blank entity guessing: per mask, entity types with the summed probability of the
    top-k predicted terms that carry them ("aripiprazole is used to treat [MASK]" → DISEASE …)."""
    scorer = tagger.scorer
    out = []
    for preds in tagger.mlm.top_k(texts, k=k):
        per_mask = []
        for p in preds:
            probs = np.exp(p.logits - p.logits.max())
            probs /= probs.sum()
            types = (scorer.dist[p.ids] @ scorer.rollup) * probs[:, None]
            totals = types.sum(0)
            order = np.argsort(-totals)
            per_mask.append({scorer.type_names[j]: round(float(totals[j]), 4) for j in order if totals[j] > 0})
        out.append(per_mask)
    return out
