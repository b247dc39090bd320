"""Masked-LM pretraining: continue an encoder or train one from scratch.

The corpus is tokenized once into a memory-mapped cache (streamed, bounded
memory), then training draws windows from the sources by weight. Masking is
dynamic (15 %, 80/10/10, optionally whole-word); the MLM head runs only at the
masked positions. Checkpoints are atomic; ``resume=True`` continues the
schedule, optimizer and random streams where the last checkpoint left them.
A model being continued can first have its WordPiece vocabulary extended
with the corpus's frequent many-piece words (``vocab``).
"""

from __future__ import annotations

from .config import PretrainConfig, lr_factor, run_seed
from .data import TokenCache, WindowSampler, build_eval_set, learn_wordpiece, load_caches, mask_tokens, special_token_mask
from .run import pretrain
from .steps import build_model, evaluate_mlm, export_model, mlm_loss, param_groups, save_checkpoint, train_step
from .vocab import anchor_words, collect_contexts, extend_tokenizer, init_from_contexts, init_new_embeddings, mine_words, piece_stats

__all__ = ["PretrainConfig", "TokenCache", "WindowSampler", "anchor_words", "build_eval_set", "build_model", "collect_contexts",
           "evaluate_mlm", "export_model", "extend_tokenizer", "init_from_contexts", "init_new_embeddings", "learn_wordpiece", "load_caches", "lr_factor",
           "mask_tokens", "mine_words", "mlm_loss", "param_groups", "piece_stats", "pretrain", "run_seed",
           "save_checkpoint", "special_token_mask", "train_step"]
