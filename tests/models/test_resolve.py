"""Finding models (folders, embedded names, the cache, the hub), choosing dtypes, reading a vocabulary alone."""

from __future__ import annotations

import pytest
import torch

from uner.models import MaskedLM, ModelNotFoundError, auto_cpu_dtype, load_vocabulary, resolve_dtype, resolve_model


def test_missing_model_error_names_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelNotFoundError) as err:
        resolve_model(str(missing))
    message = str(err.value)
    assert "\n" not in message
    assert str(missing) in message and "embedded models" in message and "HF_HUB_OFFLINE" in message


def test_folder_without_config_is_rejected(tmp_path):
    with pytest.raises(ModelNotFoundError, match="config.json"):
        resolve_model(tmp_path)


def test_loads_from_folder_by_path(tiny_model_dir):
    assert resolve_model(tiny_model_dir) == str(tiny_model_dir)


def test_dtype_names_and_auto():
    assert resolve_dtype(None, "cpu") == torch.float32 and resolve_dtype(None, "cuda") == torch.float16
    assert resolve_dtype("auto", "cpu") == auto_cpu_dtype()[0]  # bf16 only where it is faster (test_dtype_choice.py)
    assert resolve_dtype("auto", "cuda") == torch.float16
    assert resolve_dtype("bfloat16", "cpu") == torch.bfloat16 and resolve_dtype(torch.float16, "cpu") == torch.float16
    with pytest.raises(ValueError, match="dtype must be"):
        resolve_dtype("int8", "cpu")


def test_vocabulary_without_weights_equals_the_loaded_models(tiny_model_dir):
    mlm = MaskedLM.from_pretrained(tiny_model_dir, device="cpu")
    assert load_vocabulary(tiny_model_dir) == (mlm.vocab, mlm.special_tokens)
