"""The student's training-time case augmenter (spaCy augmenter ``"uner.case.v1"``).

The teacher is uncased, so its labels on a sentence hold for the sentence in any casing, while the student's
shape, prefix and suffix features are cased. Taught text is mostly in sentence case; users' text is not:
tweets drop capitals and news headlines and datelines are in capitals (``BELGRADE 1996-08-22``, ``WORLD CUP
QUALIFIER``). Showing a share of the training sentences lower-cased and a share upper-cased teaches the
student names in every casing. spaCy's own ``lower_case`` augmenter does only the first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.iob_utils import doc_to_biluo_tags
from spacy.util import registry

from .train import check_casing


def recased(nlp: Language, example: Example, case: Callable[[str], str]) -> Example:
    """``example`` with every token's text passed through ``case``, its tokens and (partial) entities kept."""
    ref = example.reference
    doc = Doc(nlp.vocab, words=[case(t.text) for t in ref], spaces=[bool(t.whitespace_) for t in ref])
    entities = doc_to_biluo_tags(ref, missing="-")  # missing: no annotation; outside stays "O"
    entities = ["O" if t.ent_iob == 2 else tag for t, tag in zip(ref, entities)]
    return Example.from_dict(doc, {"entities": entities})


@registry.augmenters("uner.case.v1")
def create_case_augmenter(lower: float, upper: float) -> Callable[[Language, Example], Iterator[Example]]:
    """Each training sentence is shown lower-cased with probability ``lower``, upper-cased with ``upper``,
    else as it is."""
    check_casing(lower, upper)

    def augment(nlp: Language, example: Example) -> Iterator[Example]:
        draw = random.random()
        if draw < lower:
            yield recased(nlp, example, str.lower)
        elif draw < lower + upper:
            yield recased(nlp, example, str.upper)
        else:
            yield example

    return augment
