"""Distillation (docs/design.md §3.3b): the masked-LM tagger teaches a fast spaCy student on unlabelled text.

Stages, each writing its files and skipped when they exist (the teacher's run resumes mid-file):
``sample`` (sentences from corpus files) → ``teach`` (the tagger's entities and rejected candidates) →
``vectors`` (the teacher's word knowledge as static vectors) → ``select`` (confident labels; uncertain spans
missing) → ``train`` (spaCy) → the student (``uner.tagger.Student``).
"""

from .pipeline import DistillConfig, distill
from .sample import sample_sentences
from .select import SelectConfig, Selection, select
from .train import TrainConfig, train_student

__all__ = ["DistillConfig", "SelectConfig", "Selection", "TrainConfig", "distill", "sample_sentences",
           "select", "train_student"]
