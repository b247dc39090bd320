"""Stage 1 of distillation: sentences for the teacher, drawn from unlabelled corpus files.

Each source gives its share of ``n`` sentences: paragraphs are reservoir-sampled in one streaming pass
(bounded memory whatever the corpus size), split into sentences by spaCy's rule-based sentencizer
(a leading all-capitals headline, as news wires glue it to the body, becomes its own sentence), filtered
by length, and the sources are interleaved in a seeded random order — so any prefix of the output is
the same mix, and the teacher can stop early.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import spacy

from ..io import Source, atomic_write_text, read_paragraphs

_HEADLINE = re.compile(r"^((?:[A-Z0-9][A-Z0-9&.,'/-]*\s+){2,}[A-Z0-9][A-Z0-9&.,'/-]*)\s+(?=[A-Z][a-z])")
PARAGRAPHS_PER_SENTENCE = 0.5  # paragraphs drawn per sentence wanted (a paragraph holds several sentences)


def _reservoir(items: Iterator[str], k: int, rng: random.Random) -> list[str]:
    """A uniform sample of ``k`` items from a stream (all of them when there are fewer)."""
    out: list[str] = []
    for n, item in enumerate(items):
        if n < k:
            out.append(item)
        elif (j := rng.randrange(n + 1)) < k:
            out[j] = item
    return out


def split_headline(paragraph: str) -> list[str]:
    """``["ASIAN EXPORTERS FEAR DAMAGE", "Mounting trade friction …"]`` for a wire story whose all-capitals
    headline runs into the body; the paragraph unchanged otherwise."""
    m = _HEADLINE.match(paragraph)
    return [m.group(1), paragraph[m.end():]] if m else [paragraph]


def sentences(paragraphs: Sequence[str], min_words: int = 5, max_words: int = 60) -> Iterator[str]:
    """The sentences of ``paragraphs`` with ``min_words`` to ``max_words`` words and at least one letter,
    whitespace collapsed, HTML entities decoded."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    parts = (part for p in paragraphs for part in split_headline(" ".join(html.unescape(p).split())) if part)
    for doc in nlp.pipe(parts, batch_size=256):
        for sent in doc.sents:
            text = sent.text.strip()
            if min_words <= len(text.split()) <= max_words and any(c.isalpha() for c in text):
                yield text


def sample_sentences(sources: Sequence[Source], n: int, seed: int = 0, min_words: int = 5,
                     max_words: int = 60) -> tuple[list[str], list[dict]]:
    """About ``n`` sentences, each source's share proportional to its weight, interleaved at random; and per
    source what was read and drawn (file, weight, paragraphs in the file, paragraphs sampled, sentences kept)."""
    rng = random.Random(seed)
    total = sum(s.weight for s in sources)
    drawn: list[str] = []
    report = []
    for src in sources:
        want = max(1, round(n * src.weight / total))
        seen = [0]

        def counted(path: Path = src.path, seen: list[int] = seen) -> Iterator[str]:
            for p in read_paragraphs(path):
                if p:
                    seen[0] += 1
                    yield p

        paragraphs = _reservoir(counted(), int(want * PARAGRAPHS_PER_SENTENCE) + 1, rng)
        sents = list(sentences(paragraphs, min_words, max_words))
        rng.shuffle(sents)
        drawn += sents[:want]
        report.append({"file": src.path.name, "weight": src.weight, "paragraphs": seen[0],
                       "paragraphs_sampled": len(paragraphs), "sentences": len(sents[:want])})
    rng.shuffle(drawn)
    return drawn, report


def write_sentences(path: str | Path, sents: Sequence[str]) -> None:
    """One sentence per line, written atomically."""
    atomic_write_text(path, "".join(s + "\n" for s in sents))
