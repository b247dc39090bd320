"""The teacher on each runtime, with and without AMX: sentences/s and the ratio to the default before issue 39.

The baseline is torch ``auto`` with the ``named`` span policy (the general default until the ``names`` policy),
the encoder's last layer run whole and every span asked in its sentence (``benchmarks.levers``); the other
variants add today's levers one at a time, so that each shows on its own.
Each (backend, dtype, span policy, levers reverted) tags the same sentences in a fresh process, round by round (every variant once
per round), so that load from other processes on a shared machine falls on all of them alike; medians over rounds. Without
AMX: the process runs with ``noamx.c`` preloaded, which refuses Linux's AMX permission request
(``arch_prctl(ARCH_REQ_XCOMP_PERM)``); oneDNN (torch) and ONNX Runtime's MLAS both ask before they use AMX tiles and
fall back to their AVX-512 kernels (VNNI for int8, AVX512-BF16 for bfloat16): a proxy for a CPU without AMX.
``ONEDNN_MAX_CPU_ISA`` would restrict torch only; MLAS has no such switch. The compute line: FLOPs of the
encoder and MLM head per sentence (from the token counts of the distinct masked inputs) and the share of this
CPU's int8 matrix-product peak (measured here: one ``MatMulInteger``) that the onnx run reaches.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from uner.models import cpu_has_amx

from .levers import revert

# (backend, dtype, span policy, levers reverted); the first is the baseline: the default before issue 39 (the
# `named` policy, the whole last layer, every span in its sentence); "" is today's (`names`, every lever)
VARIANTS = (("torch", "auto", "named", "whole,all"), ("torch", "float32", "named", "whole,all"),
            ("torch", "auto", "", "whole,all"), ("torch", "auto", "", "all"), ("torch", "auto", "", ""),
            ("torch", "float32", "", ""), ("torch", "bfloat16", "", ""),
            ("onnx", "int8", "named", "all"), ("onnx", "int8", "", ""))
SHIM = Path(__file__).with_name("noamx.c")
FLAGS = ("avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")  # the matrix-product instructions that matter here

_RUN = """
import dataclasses, json, sys, time
from uner.tagger import Tagger
from benchmarks.levers import revert
texts = json.load(sys.stdin)
tagger = Tagger.from_pretrained(sys.argv[3] or None, backend=sys.argv[1], dtype=sys.argv[2], device="cpu")
if sys.argv[4]:
    tagger.config = dataclasses.replace(tagger.config, span_policy=sys.argv[4])
revert(tagger, sys.argv[5])
list(tagger.tag(texts[:10]))
wall, cpu = time.perf_counter(), time.process_time()
list(tagger.tag(texts))
mlm = tagger.mlm
dtype = str(next(mlm.model.parameters()).dtype).replace("torch.", "") if hasattr(mlm, "model") else sys.argv[2]
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "dtype": dtype}))
"""

_PEAK = """
import time, numpy as np, onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
m, k, n = 512, 1024, 1024
w = numpy_helper.from_array(np.random.randint(-127, 127, (k, n), dtype=np.int8), "w")
graph = helper.make_graph([helper.make_node("MatMulInteger", ["a", "w"], ["y"])], "peak",
                          [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])], [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 9
options = ort.SessionOptions()
options.intra_op_num_threads = 1
session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
a = np.random.randint(0, 255, (m, k), dtype=np.uint8)
for _ in range(3):
    session.run(None, {"a": a})
runs = []
for _ in range(20):
    t = time.process_time()
    session.run(None, {"a": a})
    runs.append(time.process_time() - t)
print(2 * m * k * n / min(runs) / 1e9)
"""


def cpu_flags() -> list[str]:
    """Which of ``FLAGS`` this CPU has (/proc/cpuinfo; none elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    have = set(next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), []))
    return [f for f in FLAGS if f in have]


def shim_library(folder: str) -> str | None:
    """``noamx.c`` compiled into ``folder`` (None, with a note, when there is no C compiler)."""
    out = os.path.join(folder, "libnoamx.so")
    try:
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, str(SHIM), "-ldl"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"  (no AMX-less runs: cannot compile {SHIM.name}: {exc})")
        return None
    return out


def run_once(backend: str, dtype: str, policy: str, levers: str, texts: list[str], model: str | None,
             preload: str | None) -> dict:
    env = {**os.environ, **({"LD_PRELOAD": preload} if preload else {})}
    out = subprocess.run([sys.executable, "-c", _RUN, backend, dtype, model or "", policy, levers],
                         input=json.dumps(texts), text=True, capture_output=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    return json.loads(out.stdout.strip().splitlines()[-1])


def int8_peak(preload: str | None) -> float:
    """GOPS of one thread on a 512×1024×1024 int8 matrix product in ONNX Runtime (best of 20, CPU time)."""
    env = {**os.environ, **({"LD_PRELOAD": preload} if preload else {})}
    out = subprocess.run([sys.executable, "-c", _PEAK], text=True, capture_output=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def teacher_flops(texts: list[str], model: str | None, levers: str = "") -> tuple[float, float, int, int]:
    """FLOPs per sentence of the teacher's network (encoder on every token of the distinct masked inputs it asks, with
    ``levers`` reverted; MLM head at every mask): with the last layer whole, and at the masks only (its keys and
    values on every token, the rest at the one mask of each input); the number of those inputs and their tokens."""
    from uner.tagger import PredictionCache, Tagger

    tagger = Tagger.from_pretrained(model, device="cpu", dtype="float32")
    revert(tagger, levers)
    cache = PredictionCache(max_entries=10**7)
    list(tagger.tag(texts, cache=cache))
    inputs = [key[2] for key in cache.entries]
    c = tagger.mlm.model.config
    d, f, layers, vocab = c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.vocab_size
    lengths = tagger.mlm.count_tokens(inputs)
    tokens = sum(lengths)
    layer = 2 * (4 * d * d + 2 * d * f)  # per token: Q, K, V, output projections; the two FFN matrices
    attention = sum(2 * 2 * n * n * d for n in lengths)  # per layer: scores and their weighted sum
    head = len(inputs) * 2 * (d * d + d * vocab)  # transform and decoder at each mask
    whole = layers * layer * tokens + layers * attention + head
    last = 2 * 2 * d * d * tokens + len(inputs) * (layer - 2 * 2 * d * d) + 2 * 2 * d * tokens  # (one query each)
    rows = (layers - 1) * (layer * tokens + attention) + last + head
    return whole / len(texts), rows / len(texts), len(inputs), tokens


def bench_backends(texts: list[str], model: str | None, rounds: int) -> None:
    """Print sentences/s of every variant, with and without AMX, the ratios to the baseline (the first variant:
    torch ``auto`` with the ``named`` span policy, the default before ``names``) and to the fastest torch dtype with
    today's spans (without AMX, ``auto`` still sees AMX in the CPU's flags and picks bfloat16; a CPU that lacks it
    measures and picks the faster), and the compute floor of today's default spans."""
    with tempfile.TemporaryDirectory() as tmp:
        shim = shim_library(tmp) if cpu_has_amx() else None  # (without AMX, refusing it changes nothing)
        settings = [(*v, p) for p in (None, *([shim] if shim else [])) for v in VARIANTS]
        times: dict[tuple, list[dict]] = {s: [] for s in settings}
        for _ in range(rounds):
            for s in settings:
                times[s].append(run_once(*s[:4], texts, model, s[4]))
        peaks = {p: int8_peak(p) for p in {s[4] for s in settings}}
    med = {s: statistics.median(r["wall"] for r in runs) for s, runs in times.items()}
    cpu = {s: statistics.median(r["cpu"] for r in runs) for s, runs in times.items()}
    asked_all = teacher_flops(texts, model, "all")
    flops, rows_flops, n_inputs, tokens = teacher_flops(texts, model)
    print(f"teacher backends: {len(texts)} sentences, {rounds} rounds (medians), a fresh process per run; "
          f"ratios to the baseline (torch --dtype auto, named spans, whole last layer, every span in its sentence) "
          f"on the same AMX setting; levers reverted: whole = last layer on every token, all = every span in its "
          f"sentence")
    for preload in dict.fromkeys(s[4] for s in settings):
        base = med[(*VARIANTS[0], preload)]
        best = min(med[(*v, preload)] for v in VARIANTS if v[0] == "torch" and not v[2] and not v[3])
        setting = ("AMX refused (noamx.c preloaded): proxy for a CPU without AMX" if preload is not None
                   else "with AMX" if cpu_has_amx() else "this CPU has no AMX")
        print(f"  {setting}"
              f"; int8 matrix-product peak {peaks[preload]:.0f} GOPS per thread (measured)")
        for b, d, policy, levers in VARIANTS:
            s = (b, d, policy, levers, preload)
            dtype = times[s][0]["dtype"]
            print(f"    {b:5s} {d:8s} ({dtype:8s}) {policy or 'names':5s} spans, reverted: {levers or '-':9s} "
                  f"{len(texts) / med[s]:7.1f} sentences/s  "
                  f"wall {med[s]:6.2f} s  cpu {cpu[s]:6.2f} s  {base / med[s]:4.2f}x baseline, "
                  f"{best / med[s]:4.2f}x the fastest torch")
        onnx = ("onnx", "int8", "", "", preload)
        threads = max(cpu[onnx] / med[onnx], 1e-9)
        print(f"    compute: {rows_flops / 1e9:.2f} GFLOP per sentence ({flops / 1e9:.2f} with the last layer whole; "
              f"{n_inputs} distinct masked inputs, {tokens} tokens; every span in its sentence: "
              f"{asked_all[1] / 1e9:.2f} GFLOP, {asked_all[2]} inputs, {asked_all[3]} tokens); "
              f"onnx int8 {flops * len(texts) / cpu[onnx] / 1e9:.0f} GOPS per CPU-second = "
              f"{flops * len(texts) / cpu[onnx] / 1e9 / peaks[preload]:.0%} of the int8 peak "
              f"({threads:.1f} threads busy on average)")
