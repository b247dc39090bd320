"""Synonym candidates read off the MLM at the term's place (docs/design.md §3.4).

A term's contexts are the sentences of a corpus that hold it, and always ``FRAMES`` (short sentences written for
uner, the term in each) and the pattern sentences below, so that no corpus is needed. The MLM is read at the term's
place in them twice:

- masked (the term hidden): the predictions counted over the corpus contexts (co-prediction) are the words that
  fit where the term stands;
- in view (a term of one vocabulary token): the distribution over the vocabulary at the term's own position is what
  the model reads the term as, its substitutes; averaged over the contexts, so that every sense has its say.

A candidate's score adds the log of its mean substitute probability, its cosine to the term in the input embeddings
and its co-prediction, less the log of the term's rank among the candidate's own nearest words (mutual neighbours
rank first; computed for the best 150 candidates alone, never the neighbour graph). Patterns answered by the MLM weigh in: what it
predicts in ``SYNONYM_PATTERNS`` ("X, also called [MASK]") is promoted, what it predicts more in
``CONTRAST_PATTERNS`` ("not X but [MASK]") than there is demoted; with a corpus, its dependency parse adds what was
written: a candidate met in a contrastive construction with the term ("X or Y", "from X to Y", "X rather than Y",
"not X but Y", "X versus Y") is demoted, one in apposition ("X (Y)", "X, also called Y") or "X and also Y" promoted.
A term outside the vocabulary (a phrase, a word the tokenizer splits) has no substitutes or cosine: the masked
readings alone rank its candidates.

Candidates are whole vocabulary words of three letters or more (no stop word, no "pt"). Inflections and derivations
fold onto one lemma (spaCy's lemmatizer, and regular English endings): the term's own family is never returned, and
a candidate's forms are listed under its lemma (else its shortest form). The evidence is kept in every record.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from ..models import Backend
from ..spans import load_spacy

WORDS = yaml.safe_load((Path(__file__).with_name("synonyms.yaml")).read_text(encoding="utf-8"))  # the English words
SYNONYM_PATTERNS = tuple(WORDS["synonym_patterns"])
CONTRAST_PATTERNS = tuple(WORDS["contrast_patterns"])
FRAMES = tuple(WORDS["frames"])
# Weights of the score's terms, chosen on 100 words of the WordNet dev half drawn apart from the benchmark's (seed 1;
# benchmarks/synonyms.py); cosine × 10 is on the scale of a log-probability. Longer sentences written as frames
# scored below these short ones; corpus contexts, 16 a word, above them.
COSINE_WEIGHT = 10.0
CO_PREDICTION_WEIGHT = 0.2
PATTERN_WEIGHT = 0.1
CONTRAST_WEIGHT = 0.5
PARSE_WEIGHT = 2.0
MUTUAL_WEIGHT = 2.0  # × log of the term's rank among a candidate's nearest words
FLOOR = 1e-9  # added to mean probabilities before their log

ENDINGS = re.compile(f"(?:e|y|i)?(?:{'|'.join(WORDS['derivation_endings'])})?(?:{'|'.join(WORDS['inflection_endings'])})?")
NEGATING_PREFIXES = tuple(WORDS["negating_prefixes"])
CONTENT = ("NOUN", "PROPN", "ADJ", "VERB", "ADV")


def contexts(term: str, texts: Iterable[str], limit: int = 200) -> list[str]:
    """Up to ``limit`` windows (300 characters each side) of texts that hold ``term`` as a whole word
    (case-insensitive), the term at the first occurrence kept."""
    pattern = term_pattern(term)
    out = []
    for t in texts:
        m = pattern.search(t)
        if m:
            out.append(t[max(0, m.start() - 300): m.end() + 300])
            if len(out) >= limit:
                break
    return out


def term_pattern(term: str) -> re.Pattern:
    """The term as a whole word or phrase, any case, any run of spaces between its words."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, term.split())) + r"(?!\w)", re.IGNORECASE)


def masked(mlm: Backend, term: str, texts: Sequence[str]) -> list[str]:
    """Each text with the term's first occurrence replaced by the mask token (texts without it left out)."""
    pattern = term_pattern(term)
    return [pattern.sub(mlm.mask_token, t, count=1) for t in texts if pattern.search(t)]


class Family:
    """Words of one family: inflections (spaCy's rule lemmatizer under each open part of speech, and regular
    English endings) and derivations (a shared stem of four letters or more with derivational endings, or a
    negating prefix: "happiness", "unhappy")."""

    def __init__(self, nlp) -> None:
        self.nlp = nlp
        self.lemmatizer = nlp.get_pipe("lemmatizer")
        self.lemmas = lru_cache(maxsize=65536)(self._lemmas)

    def _lemmas(self, word: str) -> frozenset[str]:
        out = {word}
        for pos in ("NOUN", "VERB", "ADJ", "ADV"):
            doc = self.nlp.make_doc(word)
            if len(doc) == 1:
                doc[0].pos_ = pos
                out.update(self.lemmatizer.rule_lemmatize(doc[0]))
        return frozenset(out)

    def same(self, a: str, b: str) -> bool:
        """One family: a shared lemma, or one derived from the other."""
        a, b = a.lower(), b.lower()
        return bool(self.lemmas(a) & self.lemmas(b)) or derived(a, b) or derived(b, a)


def derived(word: str, other: str) -> bool:
    """``other`` is ``word``'s stem with regular endings, after a negating prefix or none ("abandonment",
    "unhappy" of "abandon", "happy")."""
    for prefix in ("", *NEGATING_PREFIXES):
        if not other.startswith(prefix) or (prefix and word.startswith(prefix)):
            continue
        rest = other[len(prefix):]
        common = next((i for i, (p, q) in enumerate(zip(word, rest)) if p != q), min(len(word), len(rest)))
        for n in range(common, (3 if prefix else 4) - 1, -1):
            if all(ENDINGS.fullmatch(tail(w, n)) for w in (word, rest)):
                return True
    return False


def tail(word: str, n: int) -> str:
    """What follows the first n letters, a doubled consonant dropped ("bigger" → "er")."""
    rest = word[n:]
    return rest[1:] if len(rest) > 1 and rest[0] == word[n - 1] else rest


@dataclass
class Readings:
    """A term's MLM readings, each a log of mean probabilities over the vocabulary (None when it has none)."""

    substitute: np.ndarray | None  # in view, at the term's place in its contexts, frames and patterns
    co_predicted: np.ndarray | None  # masked, at the term's place in corpus contexts
    synonym: np.ndarray  # at the mask of SYNONYM_PATTERNS
    contrast: np.ndarray  # at the mask of CONTRAST_PATTERNS
    contexts: int


class SynonymHarvester:
    """Synonym candidates of terms from one masked LM (see the module docstring), with an optional corpus."""

    def __init__(self, mlm: Backend, texts: Sequence[str] = (), nlp=None, max_contexts: int = 64,
                 pool: int = 150) -> None:
        self.mlm = mlm
        self.texts = texts
        self.nlp = nlp or load_spacy()
        self.family = Family(self.nlp)
        self.max_contexts = max_contexts
        self.pool = pool
        stop = self.nlp.Defaults.stop_words
        self.word = np.array([t.isalpha() and len(t) > 2 and t.lower() not in stop for t in mlm.vocab])
        self.decoder = mlm.word_embeddings()
        self.embeddings = self.decoder / np.maximum(np.linalg.norm(self.decoder, axis=1, keepdims=True), 1e-12)
        self.bias = mlm.decoder_bias()

    def token(self, term: str) -> int | None:
        """The term's vocabulary id when the tokenizer keeps it whole, else None."""
        ids = self.mlm.tokenize_ids([term])[0]
        return ids[0] if len(ids) == 1 else None

    def readings(self, term: str, found: Sequence[str]) -> Readings:
        """The term's readings in one pass over the patterns and the corpus contexts ``found`` (masked), and one
        over frames, patterns and contexts with the term in view (a single-token term only)."""
        m = self.mlm.mask_token
        patterns = [p.format(x=term, m=m) for p in SYNONYM_PATTERNS + CONTRAST_PATTERNS]
        logits = self.mlm.mask_logits(patterns + masked(self.mlm, term, found))
        logp = np.stack([log_softmax(x[0]) for x in logits])
        n = len(SYNONYM_PATTERNS)
        token = self.token(term)
        substitute = None
        if token is not None:
            texts = [p.format(x=term, m=m) for p in FRAMES] + patterns + list(found)
            substitute = mean_log(self.in_view(term, token, texts))
        return Readings(substitute, mean_log(logp[n + len(CONTRAST_PATTERNS):]) if found else None,
                        mean_log(logp[:n]), mean_log(logp[n: n + len(CONTRAST_PATTERNS)]), len(found))

    def in_view(self, term: str, token: int, texts: Sequence[str]) -> np.ndarray:
        """Log-probabilities over the vocabulary at the term's first occurrence in each text, the term in view
        (the MLM head read at that token: the decoder shares the input embeddings, as in every shipped model)."""
        pattern = term_pattern(term)
        ids, at = [], []
        for t in texts:
            hit = pattern.search(t)
            before, after = self.mlm.tokenize_ids([t[: hit.start()], t[hit.end():]])
            room = max(self.mlm.max_length - 3, 2) // 2
            before, after = before[-room:], after[:room]
            ids.append(self.mlm.add_specials([*before, token, *after]))
            at.append(len(before) + 1)
        states = np.stack([s[i] for s, i in zip(self.mlm.token_states(ids, "head"), at)])
        return log_softmax(states @ self.decoder.T + self.bias)

    def record(self, term: str, top: int = 10) -> dict:
        """``{"term", "synonyms": [candidate…], "contexts"}``, or ``{"term", "error"}`` for a term that is not
        a word or phrase, or ``{"term", "synonyms": [], "reason"}`` when nothing passes."""
        term = " ".join(term.split())
        if not any(c.isalpha() for c in term):
            return {"term": term, "error": f"{term!r}: not a word or phrase"}
        unknown = set(self.mlm.special_tokens).intersection(self.mlm.vocab[i] for i in self.mlm.tokenize_ids([term])[0])
        if unknown:
            return {"term": term, "error": f"{term!r}: the model's vocabulary cannot spell it ({', '.join(sorted(unknown))})"}
        found = contexts(term, self.texts, self.max_contexts) if self.texts else []
        r = self.readings(term, found)
        score = PATTERN_WEIGHT * r.synonym - CONTRAST_WEIGHT * np.maximum(r.contrast - r.synonym, 0)
        if r.substitute is not None:
            score = score + r.substitute + COSINE_WEIGHT * self.cosine(term)
        else:
            score = score + r.synonym
        if r.co_predicted is not None:
            score = score + CO_PREDICTION_WEIGHT * r.co_predicted
        pool = np.argsort(-np.where(self.word, score, -np.inf))[: min(self.pool, int(self.word.sum()))]
        if r.substitute is not None:
            score[pool] -= MUTUAL_WEIGHT * np.log(self.reverse_rank(self.token(term), pool))
        parsed = parse_evidence(self.nlp, term, found) if found else {}
        cands = self.candidates(term, pool[np.argsort(-score[pool])], score, r, parsed)
        cands.sort(key=lambda c: -c["score"])
        rec = {"term": term, "synonyms": cands[:top], "contexts": r.contexts}
        if not cands:
            rec["reason"] = "no vocabulary word among the model's predictions at its place"
        return rec

    def cosine(self, term: str) -> np.ndarray:
        """Cosine of a single-token term to every vocabulary row of the input embeddings."""
        return self.embeddings @ self.embeddings[self.token(term)]

    def reverse_rank(self, token: int, pool: np.ndarray) -> np.ndarray:
        """Where the term stands among each pool word's own nearest words by cosine (1: first): a synonym's
        neighbourhood holds the term near its top (the mutual neighbours of the graph, for these rows alone)."""
        sims = self.embeddings[pool] @ self.embeddings[self.word].T
        return (sims > (self.embeddings[pool] @ self.embeddings[token])[:, None]).sum(1) + 1

    def candidates(self, term: str, order: np.ndarray, score: np.ndarray, r: Readings,
                   parsed: dict[str, Counter]) -> list[dict]:
        """The pool words in ``order``, the term's family left out, each family folded into one candidate (its
        forms, its best form's evidence), parse evidence added."""
        out: list[dict] = []
        for i in order:
            word = self.mlm.vocab[i]
            if any(self.family.same(w, word) for w in term.split()):
                continue
            kin = next((c for c in out if self.family.same(c["term"], word)), None)
            if kin is not None:  # shown under its lemma, else its shortest form
                kin["forms"].append(word)
                if word in self.family.lemmas(kin["term"]) or (len(word) < len(kin["term"])
                                                               and kin["term"] not in self.family.lemmas(word)):
                    kin["term"] = word
                continue
            out.append(self.evidence(i, word, score, r))
        for c in out:
            contrast = sum(parsed.get("contrast", Counter())[f] for f in c["forms"])
            synonymy = sum(parsed.get("synonymy", Counter())[f] for f in c["forms"])
            c.update(contrast=contrast, synonymy=synonymy,
                     score=round(float(c["score"] + PARSE_WEIGHT * (np.log1p(synonymy) - np.log1p(contrast))), 4))
        return out

    def evidence(self, i: int, word: str, score: np.ndarray, r: Readings) -> dict:
        """A candidate's record: its score and the probabilities behind it."""
        ev = {"term": word, "forms": [word], "score": float(score[i])}
        if r.substitute is not None:
            ev["substitute"] = round(float(np.exp(r.substitute[i])), 5)
        ev["synonym_patterns"] = round(float(np.exp(r.synonym[i])), 5)
        ev["contrast_patterns"] = round(float(np.exp(r.contrast[i])), 5)
        if r.co_predicted is not None:
            ev["co_predicted"] = round(float(np.exp(r.co_predicted[i])), 5)
        return ev

    def records(self, terms: Iterable[str], top: int = 10) -> Iterator[dict]:
        """``record`` of each term, in order."""
        for term in terms:
            yield self.record(term, top)


def log_softmax(x: np.ndarray) -> np.ndarray:
    """Log-probabilities of logits along the last axis (float32)."""
    x = np.asarray(x, dtype=np.float32)
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def mean_log(logp: np.ndarray) -> np.ndarray:
    """log of the mean probability over the rows of log-probabilities."""
    return np.log(np.exp(logp).mean(0) + FLOOR)


def parse_evidence(nlp, term: str, texts: Sequence[str]) -> dict[str, Counter]:
    """Words the dependency parse puts beside the term: ``contrast`` ("X or Y", "from X to Y", "X rather than Y",
    "not X but Y", "X versus Y") and ``synonymy`` (apposition "X (Y)", "X, also called Y", "X and also Y");
    lower-cased words, counted over the texts."""
    out = {"contrast": Counter(), "synonymy": Counter()}
    pattern = term_pattern(term)
    for doc in nlp.pipe(texts):
        for hit in pattern.finditer(doc.text):
            span = doc.char_span(hit.start(), hit.end(), alignment_mode="expand")
            if span is not None:
                for kind, tok in construction_partners(span.root):
                    out[kind][tok.text.lower()] += 1
    return out


def construction_partners(x) -> Iterator[tuple[str, object]]:
    """(kind, token) for each word in a contrastive or synonymous construction with token ``x``."""
    for y in coordinated(x):
        first, second = sorted((x, y), key=lambda t: t.i)
        between = {t.lower_ for t in first.doc[first.i + 1: second.i]}
        if between & {"or", "nor", "versus", "vs", "vs."} or "but" in between and negated(first):
            yield "contrast", y
        elif "also" in between:
            yield "synonymy", y
    for y in contrasted(x):
        yield "contrast", y
    for y in [*x.children, x.head]:
        if y.i != x.i and "appos" in (y.dep_, x.dep_) and y.pos_ in ("NOUN", "PROPN", "ADJ"):
            yield "synonymy", y
        if y.dep_ == "acl" and y.lemma_ in ("call", "know", "name") and y.head.i == x.i:
            yield from (("synonymy", z) for z in y.subtree if z.dep_ in ("oprd", "attr", "pobj", "dobj"))


def coordinated(x) -> list:
    """The conjuncts coordinated with ``x`` (its head's, its own)."""
    out = [c for c in x.children if c.dep_ == "conj"]
    if x.dep_ == "conj":
        out.append(x.head)
    return out


def negated(tok) -> bool:
    return any(c.dep_ == "neg" for c in tok.children) or (tok.i > 0 and tok.doc[tok.i - 1].lower_ == "not")


def contrasted(x) -> Iterator:
    """The word after "to" in "from X to Y", after "than" in "X rather than Y", after "versus" in "X versus Y":
    the first content word (noun, adjective, verb, adverb) within three tokens of the mark, however the parser
    attached it (the small parser often hangs "from X to Y" of adjectives wrongly)."""
    doc = x.doc
    after = doc[x.i + 1: x.i + 4]
    starts = x.head.lower_ == "from" or (x.i > 0 and doc[x.i - 1].lower_ == "from")
    marks = [t for t in after if (t.lower_ == "to" and starts) or t.lower_ in ("versus", "vs", "vs.")
             or (t.lower_ == "than" and any(u.lower_ == "rather" for u in after))]
    for mark in marks[:1]:
        yield from [t for t in doc[mark.i + 1: mark.i + 4] if t.pos_ in CONTENT][:1]


def format_synonyms(record: dict) -> str:
    """One line: each candidate with its score and evidence, or the reason there is none."""
    if not record["synonyms"]:
        return f"{record['term']}: none ({record.get('reason', '')})"
    return f"{record['term']}: " + "  ".join(format_candidate(c) for c in record["synonyms"])


def format_candidate(c: dict) -> str:
    notes = [f"{c['score']:.1f}"]
    if len(c["forms"]) > 1:
        notes.append("/".join(f for f in c["forms"] if f != c["term"]))
    notes += [f"{k} {c[k]}" for k in ("synonymy", "contrast") if c.get(k)]
    return f"{c['term']}({', '.join(notes)})"
