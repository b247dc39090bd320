"""The ONNX Runtime backend (``pip install 'uner[onnx]'``): the masked LM as an int8 ONNX graph that gives logits
at the masks only.

Why: on a CPU the teacher's time is its transformer's matrix products, which int8 kernels (VNNI, AMX-int8) run
faster than float32 ones, and ONNX Runtime fuses attention, LayerNorm and GELU besides (measured: 1.3× torch's best
path on a CPU without AMX, slower than torch's bfloat16 with AMX; docs/log/accuracy.md §5.7). The graph
takes ``input_ids``, ``attention_mask`` and ``positions`` (flat indices of the masks in the batch) and gathers
the hidden states there before the MLM head, as the torch backend does. It is built once per model — exported
with ``torch.onnx`` (eager attention, whose pattern ONNX Runtime's BERT fusions recognise), fused by its
transformer optimizer, weights quantized to int8 (``quantize_dynamic``) — into the user cache, keyed by the
model's weights (``paths.weights_key``), so a changed model gets a new graph and the model folder stays as it is.

Only predictions (``top_k``, ``mask_logits``) run in ONNX Runtime; hidden states, embedding matrices and the head
transform, which build labels rather than tag, are read from the torch model, loaded on first use.
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import AutoConfig, AutoTokenizer

from ..io import MissingExtra
from ..paths import user_cache_dir, weights_key
from .hf import MaskedLM, head_logits
from .resolve import resolve_model
from .tokens import TokenizedLM

INSTALL_HINT = "pip install 'uner[onnx]'"
PRECISIONS = ("int8", "float32")  # the graph's weights; "auto" (the default) is int8
EXPORT_VERSION = 2  # part of the cached file's name: a change to how graphs are built makes new ones
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "positions")
BATCH_TOKENS = 256  # padded tokens per batch and thread: smaller than torch's (measured on 1,306 CoNLL inputs, 2
# threads, with AMX and without: 512 tokens per batch 3.00 / 3.07 s, 2,048 3.29 / 3.31 s, 4,096 3.53 / 3.77 s)
# the ops whose weights become int8, per output channel: the matrix products but the FFN's second one (``float_matmuls``);
# the embeddings stay float (a table look-up: nothing to speed up, and int8 there cost top-1 agreement with float32)
INT8_OPS = ("MatMul", "Gemm", "Attention")
GELUS = ("Gelu", "BiasGelu", "FastGelu")  # the fused activations whose outputs feed the FFN's second product


def require_onnxruntime():
    """The ``onnxruntime`` module, or MissingExtra with the one-line install hint."""
    try:
        import onnxruntime
    except ImportError:
        raise MissingExtra(f"--backend onnx needs ONNX Runtime, which is not installed: {INSTALL_HINT}") from None
    return onnxruntime


def precision_of(dtype: str | None) -> str:
    """The graph precision a ``dtype`` option asks for: None or ``"auto"`` int8, else one of ``PRECISIONS``."""
    if dtype in (None, "auto"):
        return PRECISIONS[0]
    if dtype not in PRECISIONS:
        raise ValueError(f"the onnx backend runs {' | '.join(PRECISIONS)} (or auto), not {dtype!r}")
    return dtype


def graph_path(model_dir: str | os.PathLike, precision: str) -> Path:
    """Where the graph of the model in ``model_dir`` is cached: ``onnx/<model>-<weights key>-<precision>-v<N>.onnx``
    of the user cache."""
    path = Path(model_dir)
    return user_cache_dir() / "onnx" / f"{path.name}-{weights_key(path)}-{precision}-v{EXPORT_VERSION}.onnx"


class MaskLogits(torch.nn.Module):
    """The exported network: the encoder on a batch, its states at flat ``positions``, the MLM head on those."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        states = self.model.base_model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return head_logits(self.model, states.reshape(-1, states.shape[-1]).index_select(0, positions))


def build_graph(model_dir: Path, out: Path, precision: str) -> None:
    """Export the model in ``model_dir`` to ``out``: ``MaskLogits`` traced with dynamic batch, width and mask
    count, fused by ONNX Runtime's transformer optimizer, and for int8 its weights quantized (``INT8_OPS``, per
    output channel, ``float_matmuls`` kept float). Measured on the shipped model: per tensor, top-1 agreement with
    float32 on 60 % of CoNLL masked inputs, per channel 79 %; the FFN's second product in float brings given-spans
    F1 on CoNLL-2003 / WNUT-17 dev from -0.6 / -1.3 points of torch's to +0.2 / -0.1, for 16 % more model time. Written to a temporary file beside ``out`` and renamed, so a reader never sees
    half a file."""
    require_onnxruntime()
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    mlm = MaskedLM.from_pretrained(model_dir, device="cpu", dtype="float32", attn_implementation="eager")
    sample = next(mlm.padded(mlm.encode([f"a {mlm.mask_token} b .", mlm.mask_token])))
    positions = np.flatnonzero(sample.input_ids == mlm.tokenizer.mask_token_id)
    args = tuple(torch.from_numpy(a) for a in (sample.input_ids, sample.attention_mask, positions))
    axes = {"input_ids": {0: "batch", 1: "width"}, "attention_mask": {0: "batch", 1: "width"},
            "positions": {0: "masks"}, "logits": {0: "masks"}}
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the tracer's notes on transformers' Python-side shape checks)
        raw, fused, final = (Path(tmp) / name for name in ("raw.onnx", "fused.onnx", "final.onnx"))
        torch.onnx.export(MaskLogits(mlm.model).eval(), args, str(raw), dynamo=False, opset_version=OPSET,
                          input_names=list(INPUTS), output_names=["logits"], dynamic_axes=axes)
        config = mlm.model.config  # (the heads and width its attention fusion needs: it cannot find them itself)
        optimize_model(str(raw), model_type="bert", num_heads=config.num_attention_heads,
                       hidden_size=config.hidden_size).save_model_to_file(str(fused))
        if precision == "int8":
            quiet = logging.getLogger().level
            logging.getLogger().setLevel(logging.ERROR)  # (its advice to pre-process the graph: for static quantization)
            try:
                quantize_dynamic(str(fused), str(final), weight_type=QuantType.QInt8, per_channel=True,
                                 op_types_to_quantize=list(INT8_OPS), nodes_to_exclude=float_matmuls(onnx.load(fused)),
                                 extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})  # (fused ops' outputs)
            finally:
                logging.getLogger().setLevel(quiet)
        else:
            fused.replace(final)
        final.replace(out)


def float_matmuls(graph) -> list[str]:
    """The names of the FFN's second matrix products (their input is a GELU's output) in a fused ONNX model: the
    products int8 hurt most (GELU outputs have a long tail that one scale per batch rounds away)."""
    gelu_outputs = {out for node in graph.graph.node if node.op_type in GELUS for out in node.output}
    return [node.name for node in graph.graph.node if node.op_type == "MatMul" and node.input[0] in gelu_outputs]


class OnnxMaskedLM(TokenizedLM):
    """A masked LM run by ONNX Runtime on the CPU (the ``Backend`` protocol), from a graph in the user cache.

    >>> mlm = OnnxMaskedLM.from_pretrained()  # the embedded default model, int8
    >>> [p.tokens[:3] for p in mlm.top_k(["paris is the capital of [MASK] ."])[0]]
    """

    def __init__(self, session, tokenizer, config, *, path: Path, max_batch_tokens: int, name: str = "") -> None:
        super().__init__(tokenizer, config, max_batch_tokens, name)
        self.session = session
        self.path = path  # the model folder, for the torch model behind the non-prediction members

    @classmethod
    def from_pretrained(cls, name_or_path: str | os.PathLike | None = None, *, dtype: str | None = None,
                        device: str | None = None, threads: int | None = None,
                        max_batch_tokens: int | None = None, graph: Path | None = None) -> OnnxMaskedLM:
        """Load (building it on first use, seconds) the ONNX graph of a model folder, embedded model name or hub id.

        ``dtype``: the graph's precision, None or ``"auto"`` int8, or ``"float32"``. ``threads``: ONNX Runtime's
        intra-op threads (default torch's count). ``max_batch_tokens``: padded tokens per batch (default
        ``BATCH_TOKENS`` per thread).
        ``device``: the CPU only (None or ``"cpu"``). ``graph``: a graph file to run instead of the cached one.
        """
        ort = require_onnxruntime()
        precision = precision_of(dtype)
        if device not in (None, "cpu"):
            raise ValueError(f"the onnx backend runs on the CPU, not {device!r}")
        path = resolve_model(name_or_path)
        graph = graph or graph_path(path, precision)
        if not graph.is_file():
            build_graph(path, graph, precision)
        threads = threads or torch.get_num_threads()
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        return cls(session, AutoTokenizer.from_pretrained(path), AutoConfig.from_pretrained(path), path=path,
                   max_batch_tokens=max_batch_tokens or BATCH_TOKENS * threads,
                   name=Path(path).name if name_or_path is None else str(name_or_path))

    def _mask_outputs(self, ids: Sequence[Sequence[int]], k: int | None
                      ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
        """The graph on each batch with masks; the top ``k`` picked from its logits with numpy."""
        mask_id = self.tokenizer.mask_token_id
        for batch in self.padded(ids):
            flat = np.flatnonzero(batch.input_ids == mask_id)
            if not flat.size:
                continue
            logits = self.session.run(None, dict(zip(INPUTS, (batch.input_ids, batch.attention_mask, flat))))[0]
            rows = np.asarray(batch.index)[flat // batch.input_ids.shape[1]]
            if k is None:
                yield rows, logits, None
            else:
                best = top_ids(logits, k)
                yield rows, np.take_along_axis(logits, best, axis=1), best

    # ----- the rest of the protocol: the torch model's ---------------------------------
    @functools.cached_property
    def torch_model(self) -> MaskedLM:
        """The float32 torch model of the same folder, for what the graph does not compute."""
        return MaskedLM.from_pretrained(self.path, device="cpu", dtype="float32")

    def hidden_states(self, texts: Sequence[str], layers: str = "last") -> list[np.ndarray]:
        return self.torch_model.hidden_states(texts, layers)

    def token_states(self, ids: Sequence[Sequence[int]], layers: str = "last") -> list[np.ndarray]:
        return self.torch_model.token_states(ids, layers)

    def word_embeddings(self) -> np.ndarray:
        return self.torch_model.word_embeddings()

    def decoder_bias(self) -> np.ndarray:
        return self.torch_model.decoder_bias()

    def head_transform_states(self, states: np.ndarray) -> np.ndarray:
        return self.torch_model.head_transform_states(states)


def top_ids(logits: np.ndarray, k: int) -> np.ndarray:
    """The ids of each row's ``k`` largest logits, largest first."""
    part = np.argpartition(-logits, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(logits, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)
