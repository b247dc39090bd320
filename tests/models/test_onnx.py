"""The ONNX Runtime backend: the float32 graph gives torch's top-k (ids identical, logits within 1e-4) on every
supported family, the int8 graph of the shipped model agrees with float32 torch's top-1 on at least 70 % of real
masked inputs (and top-10 overlap at least 75 %), its FFN-out products alone in float, the graph cache follows the weights and stays out of the model folder, a missing
onnxruntime is one line and exit 2, and ``uner tag --backend onnx`` tags with the shipped model."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.conftest import folder_listing, tiny_model
from tests.helpers import uner
from tests.models.test_hf import TEXTS  # (texts with 0, 1 and 2 masks, one near the tiny models' window)
from uner.io import MissingExtra
from uner.models import Backend, MaskedLM, fastest_backend, load_backend
from uner.models.ort import INSTALL_HINT, float_matmuls, graph_path
from uner.paths import user_cache_dir

needs_ort = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                               reason="onnxruntime is not installed (pip install 'uner[onnx]')")
# masked inputs as the tagger writes them (templates after the span, the span masked in its sentence)
REAL = [f"{span} {template}" for span in ("Paris", "Barack Obama", "Toyota", "the Bundesliga", "aspirin",
                                          "Microsoft Windows", "the Nile", "Angela Merkel")
        for template in ("is a [MASK] .", ", a [MASK] ,", "and other [MASK] .", "is the name of a [MASK] .")]
REAL += ["[MASK] visited Berlin with executives of Siemens .", "The [MASK] of France is Paris ."]


@needs_ort
def test_the_float32_graph_gives_torch_s_top_k_and_logits(tiny_model_dir):
    onnx = load_backend(tiny_model_dir, "onnx", dtype="float32")
    ref = MaskedLM.from_pretrained(tiny_model_dir, device="cpu", dtype="float32")
    assert isinstance(onnx, Backend) and onnx.vocab == ref.vocab and onnx.max_length == ref.max_length
    for got, want in zip(onnx.top_k(TEXTS, k=8), ref.top_k(TEXTS, k=8)):
        assert [p.ids.tolist() for p in got] == [p.ids.tolist() for p in want]
        for a, b in zip(got, want):
            assert a.tokens == b.tokens
            np.testing.assert_allclose(a.logits, b.logits, rtol=1e-4, atol=1e-4)
    for got, want in zip(onnx.mask_logits(TEXTS), ref.mask_logits(TEXTS)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(onnx.word_embeddings(), ref.word_embeddings())  # (the torch model's)


@pytest.fixture(scope="module")
def shipped_int8():
    return load_backend(None, "onnx")


@needs_ort
def test_the_int8_graph_of_the_shipped_model_agrees_with_float32_and_is_int8(shipped_int8):
    import onnx

    ref = MaskedLM.from_pretrained(None, device="cpu", dtype="float32")
    got, want = shipped_int8.top_k(REAL, k=10), ref.top_k(REAL, k=10)
    top1 = np.mean([a[0].ids[0] == b[0].ids[0] for a, b in zip(got, want)])
    overlap = np.mean([len(set(a[0].ids) & set(b[0].ids)) / 10 for a, b in zip(got, want)])
    assert top1 >= 0.7 and overlap >= 0.75, (top1, overlap)
    graph = onnx.load(graph_path(shipped_int8.path, "int8"))
    ops = [n.op_type for n in graph.graph.node]
    assert "QAttention" in ops and ops.count("MatMulInteger") >= 2 * 6  # attention, FFN-in, head: int8
    assert float_matmuls(graph) == [n.name for n in graph.graph.node if n.op_type == "MatMul"]  # FFN-out: float
    assert len(float_matmuls(graph)) == 6  # (one per layer)


@needs_ort
def test_the_graph_is_cached_by_the_weights_and_never_written_into_the_model_folder(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "model"
    shutil.copytree(tiny[0], folder)
    before = folder_listing(folder)
    first = load_backend(folder, "onnx", dtype="float32")
    graph = graph_path(folder, "float32")
    assert graph.is_file() and graph.is_relative_to(user_cache_dir())
    assert folder_listing(folder) == before
    built = graph.stat().st_mtime_ns
    load_backend(folder, "onnx", dtype="float32")
    assert graph.stat().st_mtime_ns == built  # the same weights: the cached graph, not a new export
    torch.manual_seed(1)
    changed = tiny_model("bert", len(first.vocab))
    with torch.no_grad():
        changed.cls.predictions.bias.normal_(0, 5)  # (so that the top-k surely moves)
    changed.save_pretrained(folder)
    second = load_backend(folder, "onnx", dtype="float32")
    assert graph_path(folder, "float32") != graph and graph_path(folder, "float32").is_file()
    new = MaskedLM.from_pretrained(folder, device="cpu", dtype="float32").top_k(TEXTS, k=5)
    assert [[p.ids.tolist() for p in t] for t in second.top_k(TEXTS, k=5)] == [[p.ids.tolist() for p in t] for t in new]
    assert [[p.ids.tolist() for p in t] for t in first.top_k(TEXTS, k=5)] != [[p.ids.tolist() for p in t] for t in new]
    assert sorted(p.name for p in folder.iterdir()) == sorted(before)


@needs_ort
def test_auto_measures_once_per_cpu_and_model_shape_and_loads_the_faster(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path / "cache"))
    chosen, why = fastest_backend(tiny[0])
    cache = tmp_path / "cache" / "backend.json"
    ((key, speedup),) = json.loads(cache.read_text()).items()
    assert "onnxruntime" in key and "bert/" in key and speedup > 0
    assert chosen == ("onnx" if speedup >= 1.1 else "torch") and why.startswith(f"onnx int8 measured {speedup:.2f}x")
    for planted, backend, cls in ((9.0, "onnx", "OnnxMaskedLM"), (0.5, "torch", "MaskedLM")):  # (not re-measured)
        cache.write_text(json.dumps({key: planted}))
        assert fastest_backend(tiny[0])[0] == backend
        assert type(load_backend(tiny[0], "auto")).__name__ == cls
    # the one-layer copy's graph is gone; what stays: the measurements (torch's dtype one on a CPU without AMX, where
    # "auto" measures bfloat16 against float32) and the model's own graph
    kept = [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert all(name in ("backend.json", "dtype.json") or name.startswith(f"{Path(tiny[0]).name}-") for name in kept)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert fastest_backend(tiny[0]) == ("torch", "ONNX Runtime is not installed")


def test_a_missing_onnxruntime_is_an_import_error_with_the_install_hint(tiny, monkeypatch):
    from uner.tagger import Tagger

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # (import onnxruntime now raises ImportError)
    with pytest.raises(MissingExtra, match=INSTALL_HINT.replace("[", r"\[").replace("]", r"\]")) as err:
        Tagger.from_pretrained(*tiny, backend="onnx")
    assert isinstance(err.value, ImportError)


def test_a_missing_onnxruntime_is_one_line_and_exit_2_from_the_cli(tiny):
    script = ("import sys\nsys.modules['onnxruntime'] = None\nfrom uner.cli import main\n"
              "sys.argv[0] = 'uner'\nmain()\n")
    res = subprocess.run([sys.executable, "-c", script, "tag", "-", "--backend", "onnx", "--model", str(tiny[0]),
                          "--labels", str(tiny[1])], input="Paris is in France .\n", capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [f"uner: error: --backend onnx needs ONNX Runtime, which is not installed: "
                                       f"{INSTALL_HINT}"]


@needs_ort
def test_uner_tag_with_the_onnx_backend_tags_with_the_shipped_model(shipped_int8):
    res = uner("tag", "-", "--backend", "onnx", stdin="Barack Obama visited Paris with executives of Toyota.\n")
    assert res.returncode == 0, res.stderr
    ents = {(e["text"], e["type"]) for e in json.loads(res.stdout)["entities"]}
    assert ents == {("Barack Obama", "PERSON"), ("Paris", "LOCATION"), ("Toyota", "ORGANIZATION")}
    bad = uner("tag", "-", "--backend", "onnx", "--dtype", "bfloat16", stdin="Paris .\n")
    assert (bad.returncode, bad.stderr.splitlines()) == (2, ["uner: error: the onnx backend runs int8 | float32 "
                                                             "(or auto), not 'bfloat16'"])
