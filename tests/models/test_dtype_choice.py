"""`dtype="auto"` on a CPU (issue 21, item 6): bfloat16 with AMX, else only where a cached measurement says
it is faster than float32 (AVX512-BF16 alone is often slower for inference); float32 without native bf16."""

from __future__ import annotations

import json

import pytest
import torch
from transformers import AutoConfig

from uner.models import MaskedLM, auto_cpu_dtype, resolve_dtype
from uner.models import resolve as res


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path))
    return tmp_path / res.DTYPE_CACHE


def _cpu(monkeypatch, amx: bool, bf16: bool) -> None:
    monkeypatch.setattr(res, "cpu_has_amx", lambda: amx)
    monkeypatch.setattr(res, "cpu_has_bf16", lambda: bf16)


def test_bf16_without_amx_is_chosen_only_when_measured_faster(tiny, cache, monkeypatch):
    config = AutoConfig.from_pretrained(tiny[0])
    calls = []
    _cpu(monkeypatch, amx=False, bf16=True)
    monkeypatch.setattr(res, "_measure_bf16", lambda c: calls.append(c) or 0.7)  # bf16 slower, as issue 21 measured
    assert resolve_dtype("auto", "cpu", config) == torch.float32
    dtype, why = auto_cpu_dtype(config)
    assert dtype == torch.float32 and "0.70x" in why and str(cache) in why
    assert len(calls) == 1  # measured once, then read from the cache
    key, = json.loads(cache.read_text())
    cache.write_text(json.dumps({key: 1.6}))  # a cached measurement where bf16 was faster
    assert resolve_dtype("auto", "cpu", config) == torch.bfloat16 and len(calls) == 1


def test_amx_picks_bf16_and_no_native_bf16_picks_float32(cache, monkeypatch):
    _cpu(monkeypatch, amx=True, bf16=True)
    assert auto_cpu_dtype() == (torch.bfloat16, "AMX")
    _cpu(monkeypatch, amx=False, bf16=False)
    assert auto_cpu_dtype() == (torch.float32, "no native bf16")
    assert resolve_dtype("auto", "cuda") == torch.float16 and not cache.exists()


def test_real_measurement_is_cached_and_used_by_from_pretrained(tiny, cache):
    if not res.cpu_has_bf16() or res.cpu_has_amx():
        pytest.skip("the measurement runs only on CPUs with AVX512-BF16 and no AMX")
    mlm = MaskedLM.from_pretrained(tiny[0], device="cpu", dtype="auto")
    speedup = next(iter(json.loads(cache.read_text()).values()))
    assert speedup > 0
    assert next(mlm.model.parameters()).dtype == (torch.bfloat16 if speedup >= res.BF16_MARGIN else torch.float32)
