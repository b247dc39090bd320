"""uner: unsupervised named-entity recognition with masked language models."""

from .models import DEFAULT_MODEL, MaskedLM, MaskPrediction, ModelNotFoundError, resolve_model

__all__ = ["DEFAULT_MODEL", "MaskedLM", "MaskPrediction", "ModelNotFoundError", "resolve_model"]
__version__ = "0.1.0"
