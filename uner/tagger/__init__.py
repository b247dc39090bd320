"""Tagging entities with a masked LM and compiled labels (DESIGN.md §3.3).

``core`` (Tagger, config, prediction cache), ``scoring`` (label votes → entities), ``ensemble``
(several taggers voting), ``records`` (JSONL records in and out), ``runners`` (serial, processes),
``formats`` (JSONL / CoNLL / HTML writers, resume) and ``files`` (a whole file, as ``uner tag``).
"""

from .core import CI_TEMPLATES, DOMAINS, BaseTagger, PredictionCache, Tagger, TaggerConfig
from .ensemble import Ensemble, load_tagger
from .files import SetupError, tag_file
from .formats import WRITERS, bio_tags, format_for, html_fragment, html_page, resume_point
from .records import TagOptions, tag_records
from .runners import RUNNERS, ProcessRunner, Runner, SerialRunner, make_runner
from .scoring import PUNCT, Entity, LabelScorer, SpanScores, entity_guesses

__all__ = [
    "CI_TEMPLATES", "DOMAINS",
    "PUNCT", "RUNNERS", "WRITERS", "BaseTagger", "Ensemble", "Entity", "LabelScorer", "PredictionCache",
    "ProcessRunner", "Runner", "SerialRunner", "SetupError", "SpanScores", "TagOptions", "Tagger", "TaggerConfig",
    "bio_tags", "entity_guesses", "format_for", "html_fragment", "html_page", "load_tagger", "make_runner", "resume_point",
    "tag_file", "tag_records",
]
