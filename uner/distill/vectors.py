"""Stage 3b of distillation: the teacher's word knowledge as the student's static word vectors.

The student's hash embeddings see a word's cased form, shape and affixes but learn what a word *is* only from
the teacher-tagged sentences it occurs in. Every whole word of the teacher's vocabulary also gets a static
vector: its input embedding (centred, reduced to ``dims`` principal components, unit variance) beside its entity
type distribution from the label table ("toyota" → ORGANIZATION), under its lower-case, Title-case and
UPPER-case spellings (the teacher is uncased, the student's vectors are looked up by exact form).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import spacy
from spacy.vectors import Vectors

from ..io import atomic_dir
from ..tagger import Tagger

WORD = re.compile(r"[^\W\d_][\w'&.-]*", re.UNICODE)  # starts with a letter: no subwords, numbers, punctuation


def teacher_vectors(embeddings: np.ndarray, vocab: list[str], type_votes: np.ndarray, dims: int = 64,
                    type_scale: float = 2.0) -> tuple[list[str], np.ndarray]:
    """The words kept (whole vocabulary words of ≥ 2 characters) and their vectors: ``dims`` principal
    components of ``embeddings`` (V × d, scaled to unit variance) and ``type_votes`` (V × types, each row the
    term's type distribution or zeros) times ``type_scale``."""
    keep = [i for i, t in enumerate(vocab) if len(t) >= 2 and WORD.fullmatch(t)]
    emb = embeddings[keep].astype(np.float64)
    emb -= emb.mean(0)
    _, _, vt = np.linalg.svd(emb, full_matrices=False)
    comps = emb @ vt[: min(dims, vt.shape[0])].T
    comps /= comps.std() or 1.0
    vectors = np.hstack([comps, type_scale * type_votes[keep]]).astype(np.float32)
    return [vocab[i] for i in keep], vectors


def write_vectors(words: list[str], vectors: np.ndarray, out: str | Path) -> Path:
    """A blank English spaCy pipeline holding the vectors under each word's lower, Title and UPPER form (the
    folder ``[initialize] vectors`` of ``student.cfg`` loads), written atomically."""
    nlp = spacy.blank("en")
    table = Vectors(data=vectors, keys=None)
    for row, word in enumerate(words):
        for form in dict.fromkeys((word, word.lower(), word.title(), word.upper())):
            table.add(nlp.vocab.strings.add(form), row=row)
    nlp.vocab.vectors = table
    atomic_dir(Path(out), lambda tmp: nlp.to_disk(tmp))
    return Path(out)


def build_teacher_vectors(model: str | None, labels: str | Path | None, out: str | Path, dims: int = 64) -> Path:
    """``teacher_vectors`` of a teacher (masked LM by name or folder, its labels folder) written to ``out``."""
    tagger = Tagger.from_pretrained(model, labels, dtype="float32")
    scorer = tagger.scorer
    type_votes = np.asarray(scorer.dist @ scorer.rollup, dtype=np.float32)
    words, vectors = teacher_vectors(tagger.mlm.word_embeddings(), tagger.mlm.vocab, type_votes, dims)
    return write_vectors(words, vectors, out)
