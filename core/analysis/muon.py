"""Muon's optimizer step: every weight matrix's update orthogonalised by Newton-Schulz iterations.

Muon (Jordan et al. 2024, github.com/KellerJordan/Muon, P) keeps one momentum buffer per
weight matrix and replaces the update by its nearest semi-orthogonal matrix, found by
``zeropower_via_newtonschulz5``: 5 iterations in BF16 on X (rows x cols, the shorter side
first), each A = X X^T, B = b A + c A A, X = a X + B X. Embeddings and the output head stay on
AdamW (the same source; Kimi K2 and Moonlight trained so, arXiv 2507.20534, 2502.16982, P).

The iterations need each matrix whole. Megatron-Core's layer-wise distributed optimizer gives
each data-parallel rank whole parameters to update, then all-gathers them
(megatron/core/optimizer/layer_wise_optimizer.py, S), so with a distributed optimizer
(ZeRO >= 1) the work is shared by the replicas of a matrix; without one every replica does all
of it. A tensor-parallel shard is orthogonalised as it lies on its rank (E: Megatron-Core's
TensorParallelMuon can also gather it; the shard is the cheaper reading).
"""

from __future__ import annotations

from core.analysis.compute import Hardware
from core.analysis.pipeline import moe_layers_in
from core.workload import ModelSpec, Parallelism

NS_STEPS = 5  # zeropower_via_newtonschulz5 (P)


def newton_schulz_flops(rows: float, cols: float, steps: int = NS_STEPS) -> float:
    """FLOPs of ``steps`` Newton-Schulz iterations on a rows x cols matrix: per iteration
    X X^T (2 m^2 n), A A (2 m^3) and B X (2 m^2 n), m the shorter side."""
    m, n = min(rows, cols), max(rows, cols)
    return steps * (4.0 * m * m * n + 2.0 * m ** 3)


def _iterations_s(rows: float, cols: float, hw: Hardware) -> float:
    m, n = min(rows, cols), max(rows, cols)
    return NS_STEPS * (hw.gemm(m, n, m) + hw.gemm(m, m, m) + hw.gemm(m, m, n))


def _attention_matrices(model: ModelSpec, tp: int) -> list[tuple[float, float]]:
    """One layer's attention projections as this TP rank holds them (column-parallel ones
    split their outputs, the output projection its inputs)."""
    h, heads = model.hidden, model.heads
    mla = model.mla
    if mla is not None:
        qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim
        out = [(h, mla.kv_lora_rank + mla.qk_rope_head_dim),
               (mla.kv_lora_rank, heads * (mla.qk_nope_head_dim + mla.v_head_dim) / tp),
               (heads * mla.v_head_dim / tp, h)]
        if mla.q_lora_rank:
            out += [(h, mla.q_lora_rank), (mla.q_lora_rank, heads * qk / tp)]
        else:
            out.append((h, heads * qk / tp))
        return out
    q = heads * model.head_dim / tp
    kv = model.kv_heads_effective * model.head_dim / tp
    return [(h, q), (h, kv), (h, kv), (q, h)]


def _mlp_matrices(model: ModelSpec, ffn: float, split: int) -> list[tuple[float, float]]:
    """An MLP's matrices (gate, up, down; no gate without a gated activation), ``split`` the
    ways its hidden width is cut (TP, expert TP)."""
    width = ffn / split
    return [(model.hidden, width)] * (2 if model.gated else 1) + [(width, model.hidden)]


def muon_step_s(model: ModelSpec, par: Parallelism, first: bool, layers: int,
                hw_bf16: Hardware, dense_replicas: int, expert_replicas: int) -> float:
    """Seconds one GPU of the stage (``first``: it starts the model; ``layers`` its layers)
    spends orthogonalising updates in one step, at the BF16 rate of ``hw_bf16``; the work of
    each matrix is shared by its ``*_replicas`` (1 without a distributed optimizer)."""
    tp = par.tp
    moe_layers = moe_layers_in(model, first, layers)
    dense_layers = layers - moe_layers
    dense_s = layers * sum(_iterations_s(r, c, hw_bf16) for r, c in _attention_matrices(model, tp))
    dense_s += dense_layers * sum(_iterations_s(r, c, hw_bf16)
                                  for r, c in _mlp_matrices(model, model.ffn_hidden, tp))
    experts_s = 0.0
    moe = model.moe
    if moe_layers and moe.enabled:
        expert_ffn = moe.expert_ffn_hidden or model.ffn_hidden
        shared = sum(_iterations_s(r, c, hw_bf16) for r, c in _mlp_matrices(model, expert_ffn, tp))
        dense_s += moe_layers * (moe.shared_experts * shared
                                 + _iterations_s(model.hidden, moe.experts, hw_bf16))  # router
        local = moe.experts / max(1, par.ep)
        one = sum(_iterations_s(r, c, hw_bf16)
                  for r, c in _mlp_matrices(model, expert_ffn, par.expert_tp_effective))
        experts_s = moe_layers * local * one
    return dense_s / max(1, dense_replicas) + experts_s / max(1, expert_replicas)
