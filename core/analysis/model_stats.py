"""Parameter counts of a transformer described by ``ModelSpec`` (Megatron layer layout)."""

from __future__ import annotations

from dataclasses import dataclass

from core.workload import ModelSpec


@dataclass(frozen=True)
class ParameterCount:
    attention: float      # per layer: QKV + output projection
    dense_mlp: float      # per dense layer
    moe_mlp_total: float  # per MoE layer, all experts (+ shared + router)
    moe_mlp_active: float # per MoE layer, experts a token visits
    embedding: float      # input embedding (output layer untied: counted again)
    total: float
    active: float         # parameters a token touches (MoE: top-k experts only)


def parameter_count(model: ModelSpec, tied_embeddings: bool = False) -> ParameterCount:
    h = model.hidden
    h_q = model.heads * model.head_dim
    h_kv = model.kv_heads_effective * model.head_dim
    g = 3 if model.gated else 2
    attention = h * (h_q + 2 * h_kv) + h_q * h
    dense_mlp = g * h * model.ffn_hidden
    moe = model.moe
    if moe.enabled:
        expert = g * h * (moe.expert_ffn_hidden or model.ffn_hidden)
        shared = moe.shared_experts * expert
        router = h * moe.experts
        moe_total = moe.experts * expert + shared + router
        moe_active = moe.top_k * expert + shared + router
        dense_layers = moe.dense_layers
    else:
        moe_total = moe_active = 0.0
        dense_layers = model.layers
    moe_layers = model.layers - dense_layers
    embedding = model.vocab * h
    embeddings = embedding if tied_embeddings else 2 * embedding
    body = model.layers * attention + dense_layers * dense_mlp
    total = body + moe_layers * moe_total + embeddings
    active = body + moe_layers * moe_active + embeddings
    return ParameterCount(
        attention=float(attention),
        dense_mlp=float(dense_mlp),
        moe_mlp_total=float(moe_total),
        moe_mlp_active=float(moe_active),
        embedding=float(embedding),
        total=float(total),
        active=float(active),
    )
