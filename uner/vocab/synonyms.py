"""Synonym candidates: graph neighbours re-ranked by co-prediction in masked contexts (docs/design.md §3.4).

Candidates for a term are its mutual neighbours in the directed graph, then its
one-way out-neighbours. With a corpus, every sentence holding the term is masked
there and the MLM's top predictions are counted: a candidate the model predicts
in the term's own contexts is a better synonym. The evidence is kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..models import Backend
from .graph import NeighbourGraph


def contexts(term: str, texts: Iterable[str], limit: int = 200) -> list[str]:
    """Up to ``limit`` texts containing ``term`` as a whole word (case-insensitive)."""
    pattern = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE)
    out = []
    for t in texts:
        if pattern.search(t):
            out.append(t)
            if len(out) >= limit:
                break
    return out


def co_predictions(mlm: Backend, term: str, texts: Sequence[str], k: int = 30) -> Counter:
    """How often each vocabulary term is in the top-k at the masked occurrences of ``term``."""
    pattern = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE)
    masked = []
    for t in texts:
        m = pattern.search(t)
        if m:
            window = t[max(0, m.start() - 300) : m.start()] + mlm.mask_token + t[m.end() : m.end() + 300]
            masked.append(window)
    counts: Counter = Counter()
    for preds in mlm.top_k(masked, k=k):
        if preds:
            counts.update(preds[0].tokens)
    return counts


def synonyms(graph: NeighbourGraph, term: str, predicted: Counter | None = None, top: int = 20) -> list[dict]:
    """Ranked candidates with evidence: mutual neighbours first, then by co-predictions, then cosine."""
    mutual = {t for t, _ in graph.mutual_neighbours(term)}
    predicted = predicted or Counter()
    cands = [{"term": t, "cosine": round(c, 4), "mutual": t in mutual, "co_predicted": predicted.get(t, 0)}
             for t, c in graph.out_neighbours(term) if t != term and not t.startswith("##")]
    cands.sort(key=lambda d: (not d["mutual"], -d["co_predicted"], -d["cosine"]))
    return cands[:top]


def synonym_records(graph: NeighbourGraph, terms: Iterable[str], mlm: Backend | None = None,
                    texts: Sequence[str] = (), max_contexts: int = 200, top: int = 20,
                    normalise: Callable[[str], str] | None = None) -> Iterator[dict]:
    """``{"term", "synonyms"}`` per term, re-ranked by co-prediction in ``texts`` when a model is given. A term
    is looked up as given, else as ``normalise`` (the model's tokenizer) makes it; one outside the vocabulary
    gets ``{"term", "error"}`` and the others go on."""
    for term in terms:
        try:
            found = graph.find(term, normalise)
        except KeyError as exc:
            yield {"term": term, "error": str(exc.args[0])}
            continue
        predicted = co_predictions(mlm, term, contexts(term, texts, max_contexts)) if mlm is not None else None
        yield {"term": term, "synonyms": synonyms(graph, found, predicted, top)}


def format_synonyms(record: dict) -> str:
    """One line: each candidate with its cosine and evidence."""
    return f"{record['term']}: " + "  ".join(
        f"{c['term']}({c['cosine']:.2f}{', mutual' if c['mutual'] else ''}"
        f"{', co-pred ' + str(c['co_predicted']) if c['co_predicted'] else ''})" for c in record["synonyms"])
