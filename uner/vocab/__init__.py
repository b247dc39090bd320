"""The vocabulary's neighbourhoods: the directed neighbour graph, its pivot clusters, synonym candidates
(docs/design.md §3.1, §3.4).

Modules, lowest first: ``graph`` (``NeighbourGraph``: CSR arrays with a networkx view), ``clustering``
(cosine-tail histograms → graph → pivot clusters → clusters.yaml; ``uner cluster``), ``synonyms`` (the MLM
read at a term's place: substitutes, co-prediction, patterns; ``uner synonyms``).
"""

from .clustering import (Cluster, ClusterParams, ReviewedLabelsError, VocabularyGraph, build_cached_graph, build_graph,
                         cluster_vocabulary, neighbour_graph, pivot_clusters, read_term_list)
from .graph import NeighbourGraph
from .synonyms import SynonymHarvester, contexts, format_synonyms

__all__ = [
    "Cluster", "ClusterParams", "NeighbourGraph", "ReviewedLabelsError", "SynonymHarvester", "VocabularyGraph",
    "build_cached_graph", "build_graph", "cluster_vocabulary", "contexts", "format_synonyms",
    "neighbour_graph", "pivot_clusters", "read_term_list",
]
