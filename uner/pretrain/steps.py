"""The model side of training: building or continuing the model, parameter groups, one optimisation
step with logits only at masked positions, held-out accuracy, checkpoints and export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (
    AutoModelForMaskedLM,
    BertConfig,
    BertForMaskedLM,
    BertForPreTraining,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from ..io import atomic_dir
from ..models import head_logits, resolve_model
from .config import PretrainConfig


def mlm_loss(model: PreTrainedModel, batch: dict[str, torch.Tensor], labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Cross-entropy at the masked positions only (head applied to those rows), plus NSP loss if asked."""
    kwargs = {k: v for k, v in batch.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
    enc = model.base_model(**kwargs)
    hidden = enc.last_hidden_state
    sel = labels != -100
    logits = head_logits(model, hidden[sel])
    loss = F.cross_entropy(logits.float(), labels[sel])
    nsp_loss = None
    if "next_sentence_label" in batch:
        nsp_logits = model.cls.seq_relationship(enc.pooler_output)
        nsp_loss = F.cross_entropy(nsp_logits.float(), batch["next_sentence_label"])
    return loss, nsp_loss


def train_step(model: PreTrainedModel, optimizer: torch.optim.Optimizer, batch: dict[str, torch.Tensor],
               labels: torch.Tensor, bf16: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """One optimisation step (forward under optional bf16 autocast, backward, clip to 1.0, AdamW);
    returns the detached MLM and NSP losses."""
    with torch.autocast(labels.device.type, dtype=torch.bfloat16, enabled=bf16):
        loss, nsp_loss = mlm_loss(model, batch, labels)
        total = loss + nsp_loss if nsp_loss is not None else loss
    optimizer.zero_grad(set_to_none=True)
    total.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.detach(), None if nsp_loss is None else nsp_loss.detach()


@torch.no_grad()
def evaluate_mlm(model: PreTrainedModel, eval_set: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]],
                 device: torch.device, amp: bool) -> dict[str, float]:
    """Held-out masked-token accuracy: top-1, top-10 and loss over fixed masked sequences."""
    model.eval()
    hits1 = hits10 = total = 0
    loss_sum = 0.0
    for inputs, attention, labels in eval_set:
        inputs, attention, labels = inputs.to(device), attention.to(device), labels.to(device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            hidden = model.base_model(input_ids=inputs, attention_mask=attention).last_hidden_state
            sel = labels != -100
            logits = head_logits(model, hidden[sel]).float()
        gold = labels[sel]
        top = logits.topk(10, dim=-1).indices
        hits1 += int((top[:, 0] == gold).sum())
        hits10 += int((top == gold[:, None]).any(1).sum())
        loss_sum += float(F.cross_entropy(logits, gold, reduction="sum"))
        total += int(gold.numel())
    model.train()
    return {"top1": hits1 / max(total, 1), "top10": hits10 / max(total, 1), "loss": loss_sum / max(total, 1),
            "masked_tokens": total}


def build_model(cfg: PretrainConfig, tokenizer: PreTrainedTokenizerBase) -> tuple[PreTrainedModel, list[str]]:
    """The model to train and the names of freshly initialised parameters (e.g. an added MLM head)."""
    if cfg.init is None:
        config = BertConfig(vocab_size=len(tokenizer), hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                            num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                            max_position_embeddings=max(512, cfg.max_len), pad_token_id=tokenizer.pad_token_id)
        model = (BertForPreTraining if cfg.nsp else BertForMaskedLM)(config)
        return model, [n for n, _ in model.named_parameters()]
    path = resolve_model(cfg.init)
    cls = BertForPreTraining if cfg.nsp else AutoModelForMaskedLM
    model, info = cls.from_pretrained(path, output_loading_info=True, dtype=torch.float32)
    if cfg.nsp and model.config.model_type != "bert":
        raise ValueError("--nsp needs a BERT-type model")
    fresh = list(info.get("missing_keys", []))
    if cfg.head_init == "identity" and any(k.startswith("cls.predictions.transform") for k in fresh):
        dense = model.cls.predictions.transform.dense
        with torch.no_grad():
            dense.weight.copy_(torch.eye(dense.weight.shape[0]))
            dense.bias.zero_()
    return model, fresh


def param_groups(model: PreTrainedModel, cfg: PretrainConfig, fresh: Sequence[str]) -> list[dict]:
    """AdamW groups: encoder at ``lr``, freshly added head parameters at ``head_lr``; no decay on biases/norms."""
    fresh_set = set(fresh)
    groups: dict[tuple[bool, bool], list[torch.nn.Parameter]] = {}
    for name, p in model.named_parameters():
        is_new = cfg.init is not None and name in fresh_set
        no_decay = p.ndim < 2 or "LayerNorm" in name or "layer_norm" in name
        groups.setdefault((is_new, no_decay), []).append(p)
    return [{"params": ps, "lr": cfg.head_lr if new else cfg.lr, "base_lr": cfg.head_lr if new else cfg.lr,
             "weight_decay": 0.0 if nd else cfg.weight_decay} for (new, nd), ps in groups.items()]


def export_model(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, folder: Path, dtype: str) -> None:
    """Save a Hugging Face model folder (safetensors) in the given dtype, atomically."""

    def write(tmp: Path) -> None:
        state_dtype = getattr(torch, dtype)
        clone = type(model)(model.config)
        clone.load_state_dict(model.state_dict())
        clone.to(state_dtype).save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)

    atomic_dir(folder, write)


def save_checkpoint(folder: Path, model, tokenizer, optimizer, state: dict, rng: np.random.Generator,
                    gen: torch.Generator) -> None:
    def write(tmp: Path) -> None:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        torch.save({"optimizer": optimizer.state_dict(), "state": state, "numpy_rng": rng.bit_generator.state,
                    "torch_gen": gen.get_state(), "torch_rng": torch.get_rng_state()}, tmp / "trainer.pt")

    atomic_dir(folder, write)
