"""Tagging entities with a masked LM and compiled labels (docs/design.md §3.3).

``core`` (Tagger, config, prediction cache), ``scoring`` (label votes → entities), ``stages`` (named post-typing
stages every engine runs), ``ensemble`` (several taggers voting), ``student`` (the fast spaCy student), ``loading``
(a tagger by engine), ``records`` (JSONL records in and out), ``runners`` (serial, processes, Ray, student),
``formats`` (JSONL / CoNLL / HTML writers), ``partial`` (the locked, resumable output file and the record of
what it is made from) and ``files`` (a whole file, as ``uner tag``).
"""

from .config import CI_TEMPLATES, DOMAINS, TaggerConfig
from .core import BaseTagger, PredictionCache, Tagger, entity_guesses
from .ensemble import Ensemble
from .loading import ENGINES, load_tagger
from .protocol import EntityTagger
from .files import SetupError, tag_file
from .formats import WRITERS, WriteError, bio_tags, format_for, html_fragment, html_page
from .partial import resume_point
from .records import TagOptions, tag_records
from .runners import RUNNERS, ProcessRunner, Runner, SerialRunner, make_runner
from .scoring import PUNCT, Entity, LabelScorer, SpanScores
from .stages import STAGES, run_in_context, run_stages
from .student import Student

__all__ = [
    "CI_TEMPLATES", "DOMAINS", "ENGINES",
    "PUNCT", "RUNNERS", "STAGES", "WRITERS", "BaseTagger", "Ensemble", "Entity", "EntityTagger", "LabelScorer", "PredictionCache",
    "ProcessRunner", "Runner", "SerialRunner", "SetupError", "SpanScores", "Student", "TagOptions", "Tagger", "TaggerConfig",
    "WriteError",
    "bio_tags", "entity_guesses", "format_for", "html_fragment", "html_page", "load_tagger", "make_runner", "resume_point",
    "run_in_context", "run_stages", "tag_file", "tag_records",
]
