"""spaCy component ``"uner_entity_tagger"``: entities from one softmax per token, the student's fast NER.

spaCy's transition-based ``ner`` walks each sentence action by action; here the student's encoder is
followed by one linear layer over IOB labels (``B-TYPE``, ``I-TYPE``, ``O``) for every token at once, and
the labels are decoded into ``doc.ents``. It learns from the same partially annotated data as ``ner``:
tokens of the teacher's uncertain spans are missing (no loss), not ``O``. It is spaCy's ``Tagger`` with
the labels read from and written to entities instead of ``token.tag_``, so spaCy's training loop, config
system and ``spacy.load`` work unchanged (the factory is registered by uner's ``spacy_factories`` entry point).
"""


from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
from spacy.language import Language
from spacy.pipeline.tagger import DEFAULT_TAGGER_MODEL, Tagger
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_get_examples
from spacy.util import minibatch
from thinc.api import Model, SequenceCategoricalCrossentropy, Softmax_v2

from ..paths import SCORES_KEY

OUTSIDE = "O"
GROWN_OFFSET = 2.0  # a label added to a trained tagger starts this much (logit) below its type's (``grow``)


def iob_labels(biluo: Sequence[str | None]) -> list[str | None]:
    """BILUO entity tags (spaCy's ``get_aligned_ner``) as IOB labels; missing (``-``, None) stays None."""
    out: list[str | None] = []
    for tag in biluo:
        if tag is None or tag in ("-", ""):
            out.append(None)
        elif tag == OUTSIDE:
            out.append(OUTSIDE)
        else:
            move, label = tag.split("-", 1)
            out.append(("B-" if move in ("B", "U") else "I-") + label)
    return out


class Grammar:
    """Where each IOB label sits: ``O``, the ``B-`` and the ``I-`` label of every entity type."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)
        self.outside = self.labels.index(OUTSIDE)
        types = sorted({lab[2:] for lab in self.labels if lab != OUTSIDE})
        self.begin = np.array([self.labels.index(f"B-{t}") for t in types], dtype=np.int64)
        self.inside = np.array([self.labels.index(f"I-{t}") for t in types], dtype=np.int64)
        self.index = {label: i for i, label in enumerate(self.labels)}


def log_softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax of (tokens × labels) logits."""
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def decode(grammar: Grammar, scores: Sequence[np.ndarray], o_bias: float = 0.0) -> list[list[tuple[int, int, str]]]:
    """Each doc's best valid IOB path (an ``I-`` only after the ``B-`` or ``I-`` of its type), as entity token
    spans ``(start, end, label)``. ``scores`` are per doc (tokens × labels) logits; ``o_bias`` is added to the
    ``O`` log-probability (higher: fewer, surer entities). Viterbi over the batch at once: the best path into
    ``B-``/``O`` comes from the best state before, into ``I-X`` from ``B-X`` or ``I-X``, so each step is a few
    array operations over (docs × types), not a label × label table."""
    n_docs, n_labels = len(scores), len(grammar.labels)
    lengths = np.array([len(s) for s in scores])
    width = int(lengths.max(initial=0))
    if width == 0:
        return [[] for _ in scores]
    z = log_softmax(np.concatenate(scores))  # every token of the batch at once, then into a (docs × width) grid
    z[:, grammar.outside] += o_bias
    logp = np.full((n_docs, width, n_labels), -1e9, dtype=np.float32)
    logp[:, :, grammar.outside] = 0.0  # padding: O, which any state may precede
    logp[np.arange(width) < lengths[:, None]] = z
    B, I, O = grammar.begin, grammar.inside, grammar.outside
    back = np.zeros((n_docs, width, n_labels), dtype=np.int32)
    score = np.full((n_docs, n_labels), -1e9, dtype=np.float32)
    score[:, O] = logp[:, 0, O]
    score[:, B] = logp[:, 0, B]  # no I- first
    for t in range(1, width):
        best, arg = score.max(axis=1), score.argmax(axis=1)
        from_inside = score[:, I] >= score[:, B]
        new = np.empty_like(score)
        new[:, O] = best + logp[:, t, O]
        new[:, B] = best[:, None] + logp[:, t, B]
        new[:, I] = np.where(from_inside, score[:, I], score[:, B]) + logp[:, t, I]
        back[:, t, O] = arg
        back[:, t, B] = arg[:, None]
        back[:, t, I] = np.where(from_inside, I, B)
        score = new
    path = np.empty((n_docs, width), dtype=np.int64)
    path[:, -1] = score.argmax(axis=1)
    rows = np.arange(n_docs)
    for t in range(width - 1, 0, -1):
        path[:, t - 1] = back[rows, t, path[:, t]]
    out = []
    for d, n in enumerate(lengths):
        spans: list[tuple[int, int, str]] = []
        for i, tag in enumerate(path[d, :n]):
            if tag == O:
                continue
            label = grammar.labels[tag]
            if label[0] == "I":
                spans[-1] = (spans[-1][0], i + 1, spans[-1][2])
            else:
                spans.append((i, i + 1, label[2:]))
        out.append(spans)
    return out


def span_confidences(grammar: Grammar, log_probs: np.ndarray, spans: Sequence[tuple[int, int, str]]) -> list[float]:
    """Each entity's confidence: the lowest probability the softmax gives one of its tokens' labels (``B-`` on the
    first, ``I-`` on the rest). Raw: ``Student`` maps it onto the teacher's score scale (``score_map``)."""
    out = []
    for a, b, label in spans:
        cols = [grammar.index[f"B-{label}"]] + [grammar.index[f"I-{label}"]] * (b - a - 1)
        out.append(float(np.exp(log_probs[np.arange(a, b), cols].min())))
    return out


class EntityTagger(Tagger):
    """A token classifier over IOB entity labels that sets ``doc.ents`` (best valid path, ``decode``)."""

    def __init__(self, *args, o_bias: float = 0.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.o_bias = o_bias
        self._grammar: Grammar | None = None

    @property
    def grammar(self) -> Grammar:
        """The label layout for ``decode`` (made again only when the labels change)."""
        if self._grammar is None or self._grammar.labels != list(self.labels):
            self._grammar = Grammar(self.labels)
        return self._grammar

    def predict(self, docs: Sequence[Doc]) -> list[np.ndarray]:
        """Per doc, the (tokens × labels) logits."""
        if not any(len(doc) for doc in docs):
            return [np.zeros((len(doc), len(self.labels)), dtype=np.float32) for doc in docs]
        return [self.model.ops.to_numpy(s) for s in self.model.predict(docs)]

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128, o_bias: float | None = None) -> Iterator[Doc]:
        """spaCy's ``pipe``; ``o_bias`` (``nlp.pipe(texts, component_cfg={"ner": {"o_bias": b}})``) decodes this
        call with that O bias instead of the component's own."""
        handle = self.get_error_handler()
        for docs in minibatch(stream, size=batch_size):
            try:
                self._annotate(docs, self.predict(docs), self.o_bias if o_bias is None else o_bias)
                yield from docs
            except Exception as exc:
                handle(self.name, self, docs, exc)

    def set_annotations(self, docs: Sequence[Doc], scores: Sequence[np.ndarray]) -> None:
        """``doc.ents``, and the same spans with their confidences in ``doc.spans[SCORES_KEY]``
        (``attrs["scores"]``, as spaCy's span categorizer keeps its scores)."""
        self._annotate(docs, scores, self.o_bias)

    def _annotate(self, docs: Sequence[Doc], scores: Sequence[np.ndarray], o_bias: float) -> None:
        for doc, z, spans in zip(docs, scores, decode(self.grammar, scores, o_bias)):
            ents = [Span(doc, a, b, label=lab) for a, b, lab in spans]
            doc.set_ents(ents, default="outside")
            confidences = span_confidences(self.grammar, log_softmax(z.astype(np.float64)), spans) if spans else []
            doc.spans[SCORES_KEY] = SpanGroup(doc, name=SCORES_KEY, spans=ents, attrs={"scores": confidences})

    def get_loss(self, examples: Iterable[Example], scores) -> tuple[float, object]:
        loss_func = SequenceCategoricalCrossentropy(names=self.labels, normalize=False,
                                                    neg_prefix=self.cfg["neg_prefix"],
                                                    label_smoothing=self.cfg["label_smoothing"])
        truths = [iob_labels(eg.get_aligned_ner()) for eg in examples]
        d_scores, loss = loss_func(scores, truths)
        if self.model.ops.xp.isnan(loss):
            raise ValueError(f"{self.name}: the loss is NaN")
        return float(loss), d_scores

    def grow(self, types: Iterable[str], offset: float = GROWN_OFFSET) -> list[str]:
        """Add the ``B-``/``I-`` labels of the entity ``types`` it lacks to a trained tagger, widening its output
        layer: a student that goes on learning from a teacher with more labels (a new subtype) learns them too.
        A new ``TYPE/SUBTYPE`` label starts as its ``TYPE``'s row less ``offset`` (the type stays the likelier
        until training tells them apart), any other from zeros at the lowest bias. Returns the labels added."""
        new = [f"{m}-{t}" for t in sorted(set(types)) for m in ("B", "I") if f"{m}-{t}" not in self.labels]
        if not new:
            return []
        layer = self.model.get_ref("output_layer")
        W, b = layer.get_param("W"), layer.get_param("b")
        index = {label: i for i, label in enumerate(self.labels)}
        rows, bias = [], []
        for label in new:
            parent = index.get(label.partition("/")[0])
            rows.append(W[parent] if parent is not None else layer.ops.alloc1f(W.shape[1]))
            bias.append(b[parent] - offset if parent is not None else b.min())
        self.cfg["labels"].extend(new)
        for label in new:
            self.vocab.strings.add(label)
        xp, n_out = layer.ops.xp, len(self.labels)
        wider = Softmax_v2(n_out, W.shape[1], normalize_outputs=layer.attrs["softmax_normalize"],
                           temperature=layer.attrs["softmax_temperature"])
        wider.set_param("W", xp.vstack([W, xp.stack(rows)]))
        wider.set_param("b", xp.concatenate([b, layer.ops.asarray1f(bias)]))
        wrapper = self.model.layers[-1]  # (spacy.Tagger.v2: tok2vec >> with_array(softmax))
        wrapper.layers[0] = wider
        for node in (wrapper, self.model):
            node.set_dim("nO", n_out, force=True)
        self.model.set_ref("softmax", wider)
        self.model.set_ref("output_layer", wider)
        return new

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Language | None = None,
                   labels: Sequence[str] | None = None) -> None:
        """Labels from the training data's entity types (``B-``/``I-`` each, and ``O``); then the model."""
        validate_get_examples(get_examples, "EntityTagger.initialize")
        if labels is None:
            types = sorted({ent.label_ for eg in get_examples() for ent in eg.reference.ents})
            labels = [OUTSIDE] + [f"{m}-{t}" for t in types for m in ("B", "I")]
        for label in labels:
            self.add_label(label)
        sample = [eg.predicted for _, eg in zip(range(10), get_examples())]
        self.model.initialize(X=sample, Y=[self.model.ops.alloc2f(len(doc), len(self.labels)) for doc in sample])


@Language.factory("uner_entity_tagger", assigns=["doc.ents", "token.ent_iob", "token.ent_type"],
                  default_config={"model": DEFAULT_TAGGER_MODEL, "o_bias": 0.0, "overwrite": False, "neg_prefix": "!",
                                  "label_smoothing": 0.0, "scorer": {"@scorers": "spacy.ner_scorer.v1"}},
                  default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None})
def make_entity_tagger(nlp: Language, name: str, model: Model, o_bias: float, overwrite: bool, neg_prefix: str,
                       label_smoothing: float, scorer: Callable | None) -> EntityTagger:
    """The factory (the students' ``model``: ``spacy.Tagger.v2`` over a tok2vec listener, ``student.cfg``)."""
    return EntityTagger(nlp.vocab, model, name, o_bias=o_bias, overwrite=overwrite, scorer=scorer,
                        neg_prefix=neg_prefix, label_smoothing=label_smoothing)
