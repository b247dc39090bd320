"""What is read off tagged text: scores against gold corpora and relation triples (docs/design.md §3.4, §5).

Modules: ``evaluate`` (gold readers, strict and given-spans F1, dataset mappings from ``uner/mappings/``;
``uner eval``) and ``relations`` (triples from tagged entities and the dependency parse; ``uner relations``).
"""

from .evaluate import Mapping, Scores, evaluate_model, read_gold, report_text, strict_f1, token_f1_by_type
from .relations import Argument, RelationExtractor, Triple, parse_type_pairs, record_triples, summary_text

__all__ = [
    "Argument", "Mapping", "RelationExtractor", "Scores", "Triple", "evaluate_model", "parse_type_pairs",
    "read_gold", "record_triples", "report_text", "strict_f1", "summary_text", "token_f1_by_type",
]
