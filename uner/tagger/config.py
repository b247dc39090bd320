"""Tagger settings: the masked inputs of a span, how votes become types, the post-typing stages — per domain.

``TaggerConfig`` owns every default and checks its values at construction; ``DOMAINS`` holds each domain's
changes from the general defaults (chosen on the dev splits with ``benchmarks/tune_scoring.py``). The labels
folder's ``tagger.yaml`` names the domain its text wants (and may list its stages), so ``uner tag --model uner-bio``
reads biomedical text without ``--domain``.
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass, fields
from string import Formatter

import numpy as np

from ..labels import LabelsFolder, Weighting
from ..spans import SPAN_POLICIES
from .stages import resolve_stages


CI_TEMPLATES = {"is a": "{span} is a {mask} .", "comma": "{span} , a {mask} ,", "such as": "{mask} such as {span} .",
                "and other": "{span} and other {mask} .",
                # the span's own sentence before the question: "Essex" after "Somerset beat Essex by an innings"
                # is a cricket team, alone a county (CoNLL dev ORG given spans 0.40 -> 0.51, end to end 0.28 -> 0.35)
                "name in context": "{sentence} ( {span} is the name of a {mask} . )"}
TEMPLATE_WEIGHTS = {CI_TEMPLATES["name in context"]: 2.0}  # a template's weight when ci_weights is None (else 1)


def fill_template(template: str, span: str, mask: str, sentence: str) -> str:
    """A CI template's masked input: its ``{span}``, ``{mask}`` and ``{sentence}`` (the span's own sentence) filled.
    The one place templates are filled; what a template may name is read off these parameters."""
    return template.format(span=span, mask=mask, sentence=sentence)


TEMPLATE_FIELDS = frozenset(inspect.signature(fill_template).parameters) - {"template"}


@dataclass
class TaggerConfig:
    """Tagging options (validated at construction). The defaults are the ``general`` domain's; ``for_domain``
    gives each domain's (chosen on the dev splits with ``benchmarks/tune_scoring.py``)."""

    top_k: int = 10  # descriptors per input (CoNLL/WNUT dev, name-in-context template: 5/8/10/15; 10 and 15 tie,
    #                  10 keeps CoNLL ORG higher)
    ci_templates: tuple[str, ...] = tuple(CI_TEMPLATES[n] for n in ("is a", "comma", "and other", "name in context"))
    ci_weights: tuple[float, ...] | None = None  # relative weights (None: TEMPLATE_WEIGHTS, else 1; (): equal)
    use_cs: bool = True
    use_ci: bool = True
    span_policy: str = "names"  # candidate spans (``uner.spans``): "names"; "named" (names, common nouns on confident
    #                             votes); "nouns" (every noun run). news: "names" types 38 % of "named"'s spans, for
    #                             +0.4 / +0.5 points (CoNLL / WNUT dev): its common nouns were almost never entities
    common_min_score: float = 0.6  # "named" policy: a common-noun span needs its top type's share above this
    common_types: tuple[str, ...] = ()  # "named" policy: if any, a common-noun span is kept only when typed one of
    #                                     these (a domain's lower-case types: genres, algorithms; ``uner adapt``)
    max_context_words: int = 200  # context words either side of the span in the sentence-length inputs
    context_margin: float = 0.3  # a span whose short inputs alone give its top type this lead over the next (share
    #                              of their votes) is not asked in its sentence (CS, name in context), which hold
    #                              most of the tokens; 0 asks every span. 0.3 chosen on CoNLL dev (0.25 cost 0.7
    #                              given spans), checked on WNUT, BC5CDR: docs/log/accuracy.md §5.9
    cs_weight: float = 0.2  # share of the context-dependent votes when both inputs are used (CI gets the rest)
    min_score: float = 0.2  # a span is an entity only when its top type's share of the votes exceeds this
    subtype_share: float = 0.3  # a subtype is reported when it holds at least this share of its type's votes
    head_weight: float = 0.0  # share of the span's own last word's labels ("IL-2 mRNA": mrna -> RNA) in its votes
    common_head_weight: float = 0.0  # … of a common-noun span's last word ("named" policy: "general election",
    #                                   "Huber loss": the head names the class; ``uner adapt`` sets it with common_types)
    name_weight: float = 0.3  # … of a one-word name's own labels, if larger ("Toyota", "Reuters": companies)
    name_head_weight: float = 0.0  # … of a longer name's syntactic head ("Conference on Neural Information Processing
    #                                 Systems": conference; ``Span.head``), if larger
    name_determiners: bool = False  # "named"/"names" policies: a capitalised determiner inside the sentence opens the
    #                                 name after it ("The Lord of the Rings": ``uner.spans``)
    name_numbers: bool = False  # a number that the parse attaches to the name next to it is part of it ("2012 Summer
    #                             Olympics", "Voyager 2"; ``uner.conventions.name_numbers``); news tables keep it off
    descriptor_weight: float = 0.0  # share of a name's votes from the common noun in apposition with it ("the album
    #                                  Abbey Road", "Emma , a novel": ``Span.descriptor``)
    coordination_weight: float = 0.0  # share of a coordinated span's votes taken from its group's mean ("Go Plastic ,
    #                                    Ultravisitor and Damogen Furies": phrases in one coordination are of one kind)
    name_not_entity: float = 0.5  # a name's not-entity votes (OTHER) count this much: a proper name is an entity
    weighting: Weighting = Weighting()
    stages: tuple[str, ...] = ("person_titles", "sports_teams")  # post-typing stages, in order (``tagger.stages``)
    inner_names: bool = False  # a container candidate ("lithium therapy") gives way to its inner name (``tagger.inner``)
    head_joins: bool = False  # "named"/"names" policies: a name after a common word also joins the next name across
    #                           the labels' ``words/head_joins.yaml`` words ("Grammy Award for Best Rock Album";
    #                           CrossNER dev +0.7-1.3 points per domain, news within 0.05: docs/log/accuracy.md §7)

    domain: str = "general"  # the domain whose defaults the other fields start from (``for_domain``)

    @classmethod
    def for_domain(cls, domain: str = "general", **changes) -> TaggerConfig:
        """The settings for ``domain`` (see ``DOMAINS``), with ``changes`` on top."""
        if domain not in DOMAINS:
            raise ValueError(f"unknown domain {domain!r} (choose from {', '.join(DOMAINS)})")
        return cls(**{**DOMAINS[domain], **changes, "domain": domain})

    def settings(self) -> dict:
        """The fields that differ from the domain's defaults, as plain YAML values (``tagger.yaml``'s
        ``settings``, written by ``Tagger.save_pretrained``)."""
        base = TaggerConfig.for_domain(self.domain)
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)
                if f.name not in ("domain", "stages") and getattr(self, f.name) != getattr(base, f.name)}

    @classmethod
    def from_settings(cls, domain: str, settings: dict, **changes) -> TaggerConfig:
        """``for_domain(domain)`` with ``settings`` (as ``settings()`` writes them), then ``changes``, on top."""
        known = {f.name for f in fields(cls)} - {"domain"}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ValueError(f"settings: unknown tagger setting {unknown[0]!r}")
        return cls.for_domain(domain, **{**{k: _typed(k, v) for k, v in settings.items()}, **changes})

    @classmethod
    def for_labels(cls, folder: LabelsFolder, domain: str | None = None, **changes) -> TaggerConfig:
        """The settings of ``domain`` when given, else of the domain ``folder``'s labels were made for (its
        ``tagger.yaml``; general without one), with ``changes`` on top: ``uner tag --model uner-bio`` reads
        biomedical text without ``--domain``. The folder's ``stages`` and ``settings`` entries, when it has them,
        replace the domain's (``changes`` still win)."""
        if domain:
            return cls.for_domain(domain, **changes)
        stages = folder.stages()
        try:
            return cls.from_settings(folder.default_domain() or "general", folder.settings(),
                                     **{**({"stages": stages} if stages is not None else {}), **changes})
        except ValueError as exc:
            raise ValueError(f"{folder.tagger_path}: {exc}") from None

    def __post_init__(self) -> None:
        if not (self.use_cs or self.use_ci):
            raise ValueError("at least one of the context-dependent or context-independent inputs is needed")
        if not 0 <= self.cs_weight <= 1 or not 0 <= self.min_score < 1 or not 0 <= self.common_min_score < 1:
            raise ValueError("cs_weight must be in [0, 1], min_score and common_min_score in [0, 1)")
        if not 0 < self.subtype_share <= 1 or not all(0 <= w < 1 for w in (self.head_weight, self.name_weight,
                                                                           self.common_head_weight,
                                                                           self.name_head_weight)):
            raise ValueError("subtype_share must be in (0, 1], head_weight, common_head_weight, name_weight and "
                             "name_head_weight in [0, 1)")
        if not 0 <= self.context_margin < 1:
            raise ValueError("context_margin must be in [0, 1)")
        if self.max_context_words < 1:
            raise ValueError("max_context_words must be at least 1")
        if not (0 <= self.coordination_weight < 1 and 0 <= self.descriptor_weight < 1):
            raise ValueError("coordination_weight and descriptor_weight must be in [0, 1)")
        if not 0 <= self.name_not_entity <= 1:
            raise ValueError("name_not_entity must be in [0, 1]")
        if self.span_policy not in SPAN_POLICIES:
            raise ValueError(f"span_policy must be one of {', '.join(SPAN_POLICIES)}, not {self.span_policy!r}")
        if not self.ci_templates or any("{span}" not in t or "{mask}" not in t for t in self.ci_templates):
            raise ValueError("every CI template needs {span} and {mask}")
        for t in self.ci_templates:
            fields = [(f, spec, conv) for _, f, spec, conv in Formatter().parse(t) if f is not None]
            unknown = {f for f, spec, conv in fields if f not in TEMPLATE_FIELDS or spec or conv}
            if unknown:
                raise ValueError(f"CI template {t!r}: unknown field {{{sorted(unknown)[0]}}} "
                                 f"(use {', '.join('{' + f + '}' for f in sorted(TEMPLATE_FIELDS))})")
        self.stages = tuple(self.stages)
        self.common_types = tuple(self.common_types)
        resolve_stages(self.stages)  # (an unknown name fails here)
        if self.domain not in DOMAINS:
            raise ValueError(f"unknown domain {self.domain!r} (choose from {', '.join(DOMAINS)})")
        if self.ci_weights and (len(self.ci_weights) != len(self.ci_templates) or min(self.ci_weights) < 0
                                or sum(self.ci_weights) <= 0):
            raise ValueError(f"ci_weights: one non-negative weight per CI template, not all zero "
                             f"({len(self.ci_weights)} for {len(self.ci_templates)} templates; () weighs them equally)")

    def input_shares(self) -> np.ndarray:
        """The weight of each masked input of a span (CS first, then the CI templates), summing to 1."""
        if not self.use_ci:
            return np.ones(1, np.float32)
        if self.ci_weights is None:
            weights = [TEMPLATE_WEIGHTS.get(t, 1.0) for t in self.ci_templates]
        else:
            weights = self.ci_weights or [1.0] * len(self.ci_templates)
        ci = np.asarray(weights, np.float32)
        ci = ci / ci.sum()
        if not self.use_cs:
            return ci
        return np.concatenate([[self.cs_weight], (1 - self.cs_weight) * ci]).astype(np.float32)

    def sentence_inputs(self) -> np.ndarray:
        """Per masked input (``input_shares``' order): whether it holds the span's sentence (CS, a template
        naming {sentence}), the inputs that ``context_margin`` may skip."""
        ci = ["{sentence}" in t for t in self.ci_templates] if self.use_ci else []
        return np.array(([True] if self.use_cs else []) + ci, bool)


DOMAINS: dict[str, dict] = {
    # names are capitalised: candidates are names, common nouns only on confident votes (CoNLL, WNUT dev);
    # a one-word name also votes as the vocabulary term it is, and OTHER counts half against a name
    # (ORG/corporation recall: "Toyota", "Reuters"; first 1,000 CoNLL / WNUT dev sentences); the span is also
    # asked about in its sentence (name in context, weight 2) and 10 descriptors vote (full CoNLL / WNUT dev)
    "general": {},
    # entities are lower-case noun phrases ("aspirin", "breast cancer"); class-noun templates ("[MASK] such as
    # <span>") type chemicals, genes and cells better (BC5CDR, NCBI-disease, JNLPBA, BC2GM dev)
    # (the span's own head word votes too: "IL-2 mRNA" -> RNA, "Jurkat cells" -> cell; JNLPBA, BC5CDR dev)
    "biomedical": {"span_policy": "nouns", "top_k": 5,
                   "ci_templates": tuple(CI_TEMPLATES[n] for n in ("is a", "comma", "such as", "and other")),
                   "head_weight": 0.3, "subtype_share": 0.2, "name_weight": 0.0, "name_not_entity": 1.0,
                   # every span is asked in its sentence: the short templates' lead does not tell a protein from a
                   # DNA or RNA, the sentence does (JNLPBA dev given spans 0.539 -> 0.581; BC5CDR, NCBI-disease,
                   # BC2GM level; the teacher's time: docs/log/accuracy.md §3.13)
                   "context_margin": 0.0,
                   # the stages that pay (at least 0.3 points on two biomedical dev sets through the teacher or the
                   # student) and the conventions of the language (abbreviation definitions, one sense per discourse,
                   # English compounds and their heads); what each does and adds: docs/design.md §3.3d. The teacher
                   # runs them all (they teach the student); the student runs those its tagger.yaml lists.
                   "stages": ("abbreviations", "phrase_bounds", "word_endings", "hyphen_compounds", "name_pieces",
                              "degree_modifiers", "leading_counts", "rarely_tagged", "lexicon", "class_nouns",
                              "bare_heads", "coordinated_heads", "trailing_heads", "repeated_names"),
                   # "lithium therapy", "ketoprofen group": the drug inside a therapy or a group is the entity
                   # (chosen on BC5CDR dev; NCBI-disease, JNLPBA, BC2GM dev measured; docs/log/accuracy.md §3.7)
                   "inner_names": True},
}


def _plain(value):
    """A setting as YAML writes it: tuples and sets as lists, the label weighting as a mapping."""
    if isinstance(value, Weighting):
        return asdict(value)
    if isinstance(value, (frozenset, set)):
        return sorted(value)
    return list(value) if isinstance(value, tuple) else value


def _typed(name: str, value):
    """A setting read from YAML as ``TaggerConfig`` holds it (lists back to tuples and sets, mappings to weighting)."""
    kind = {"ci_templates": tuple, "ci_weights": tuple, "stages": tuple,
            "common_types": tuple}.get(name)
    if name == "weighting" and isinstance(value, dict):
        return Weighting(**value)
    return kind(value) if kind is not None and isinstance(value, list) else value
