"""uner: unsupervised named-entity recognition with masked language models.

The public API, one import away: ``Tagger.from_pretrained()`` tags text, ``MaskedLM`` reads a
masked LM, ``embed`` makes sentence vectors, ``LabelsFolder`` holds a model's labels.
"""

from .labels import LabelsFolder
from .models import DEFAULT_MODEL, Backend, MaskedLM, MaskPrediction, ModelNotFoundError, resolve_model
from .tagger import Ensemble, Entity, Tagger, TaggerConfig
from .vectors import Pooling, Whitening, embed

__all__ = ["DEFAULT_MODEL", "Backend", "Ensemble", "Entity", "LabelsFolder", "MaskPrediction", "MaskedLM",
           "ModelNotFoundError", "Pooling", "Tagger", "TaggerConfig", "Whitening", "embed", "resolve_model"]
__version__ = "0.1.0"
