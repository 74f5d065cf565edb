"""The model's integer fields as the Workload tab labels them, shared by the training and the
inference forms (the model block is the same in both workload kinds, core/workload.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QSpinBox

MODEL_INTS = [("layers", "Layers"), ("hidden", "Hidden size"), ("ffn_hidden", "FFN hidden"),
              ("heads", "Attention heads"), ("kv_heads", "KV heads (0 = heads)"), ("vocab", "Vocabulary"),
              ("seq_len", "Sequence length")]
MOE_INTS = [("experts", "Experts (0 = dense)"), ("top_k", "Top-k"), ("expert_ffn_hidden", "Expert FFN hidden")]
# The training form keeps these two from the design's workload; the inference form edits them
# (DeepSeek-V3/R1: one shared expert, three leading dense layers).
MOE_LAYOUT_INTS = [("shared_experts", "Shared experts"), ("dense_layers", "Leading dense layers")]
# Multi-head latent attention (core.inference_workload.MlaSpec), with the lowest value each allows.
MLA_INTS = [("kv_lora_rank", "KV latent rank", 1), ("qk_rope_head_dim", "RoPE key dim", 0),
            ("q_lora_rank", "Query latent rank (0 = none)", 0), ("qk_nope_head_dim", "Query/key head dim", 1),
            ("v_head_dim", "Value head dim", 1)]


def int_spin(low: int, high: int) -> QSpinBox:
    """A spin box for a count, with thousands separators (a 131,072 context reads as one)."""
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setGroupSeparatorShown(True)
    return spin
