"""Entity labels: type hierarchy, seed term lists, cluster review YAML, propagation, the labels folder.

docs/design.md §3.2. Humans label clusters once in ``clusters.yaml``; seed term lists
bootstrap suggestions; ``compile_table`` spreads confirmed labels and seeds over
the vocabulary's neighbourhoods (E = Nᵀ N L) into a sparse vocabulary × label table.
Every file problem is reported as ``FILE:LINE: message``.

Modules, lowest first: ``problems`` (LabelError, YAML nodes with lines), ``types``, ``seeds``,
``review`` (clusters.yaml), ``table`` (runtime), ``propagation``, ``folder`` (LabelsFolder),
``compiling`` (a folder into its label table: ``uner labels compile``).
"""

from .calibration import Calibration
from .compiling import CompileReport, compile_folder, compile_labels, model_embeddings
from .folder import LabelsFolder, Review
from .problems import LabelError
from .propagation import compile_table, label_matrix, labelled_neighbourhoods, propagate
from .review import (
    CLUSTER_KEYS,
    HUMAN_KEYS,
    STATUSES,
    bootstrap,
    carry_labels,
    cluster_labels,
    dump_clusters,
    load_clusters,
)
from .seeds import load_seeds, merge_seeds, read_seeds, seed_files, seed_vocab_matches
from .table import (
    LabelTable,
    Weighting,
    label_stats,
    term_distribution,
    term_types,
    type_rollup,
)
from .types import TypeHierarchy, load_types

__all__ = [
    "Calibration", "CompileReport", "compile_folder", "compile_labels", "model_embeddings",
    "CLUSTER_KEYS", "HUMAN_KEYS", "STATUSES", "LabelError", "LabelTable", "LabelsFolder", "Review",
    "TypeHierarchy", "Weighting", "bootstrap", "carry_labels", "cluster_labels", "compile_table", "dump_clusters",
    "label_matrix", "label_stats", "labelled_neighbourhoods", "load_clusters", "load_seeds", "load_types",
    "merge_seeds", "propagate", "read_seeds", "seed_files", "seed_vocab_matches", "term_distribution",
    "term_types", "type_rollup",
]
