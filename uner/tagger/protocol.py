"""What every tagging engine is to its callers: ``Tagger`` (the masked LM), ``Ensemble`` and ``Student``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from .scoring import Entity


@runtime_checkable
class EntityTagger(Protocol):
    """A spaCy pipeline that tokenizes as the tagging does (``nlp``: CoNLL output, evaluation), ``tag`` (an iterator
    over each text's entities, in order; caller-given spans typed as given), and a folder form: ``save_pretrained``
    writes what ``from_pretrained`` loads back identically. (Only the masked-LM taggers parse, so ``tag_parsed``
    over parsed docs is theirs alone.)"""

    nlp: object
    stages: tuple[str, ...]  # the post-typing stages it runs (``uner.tagger.stages``) ...
    stage_folder: str | None  # ... with the word lists of this labels folder (None: the shipped labels')

    def tag(self, texts: Iterable[str], spans: Iterable[list[tuple[int, int]] | None] | None = None, *,
            batch_size: int = 64, explain: bool = False, cache=None, rejected: bool = False
            ) -> Iterator[list[Entity]]: ...

    @classmethod
    def from_pretrained(cls, *args, **kwargs) -> EntityTagger: ...

    def save_pretrained(self, folder: str | Path) -> Path: ...
