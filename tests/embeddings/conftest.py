"""The tiny BERT as a batched transformers backend, shared by the vector tests."""

from __future__ import annotations

import pytest

from uner.models import MaskedLM


@pytest.fixture(scope="module")
def bert(tiny):
    return MaskedLM.from_pretrained(tiny[0], device="cpu", max_batch_tokens=64)
