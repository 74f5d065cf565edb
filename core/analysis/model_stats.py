"""Parameter and FLOP counts of a transformer described by ``ModelSpec`` (Megatron layer layout).

FLOP semantics follow Megatron-LM's ``num_floating_point_operations``
(``megatron/training/training.py``; ../shared/reference/performance.md §1.1):

    F_tok = 6 L [h (h_q + 2 h_kv) + h_q h + g h f_mlp] + 6 L a h_q s + 6 h V

* g = 3 for gated MLPs (SwiGLU, GeGLU), else 2;
* f_mlp = f for a dense layer, k f_e + n_sh f_e for an MoE layer (summed per layer type);
* a = 1 for causal attention (half the score matrix), 2 for non-causal;
* the last term is the logits GEMM. The router GEMM (h x E) is not counted (Megatron does not).

Multi-head latent attention (``model.mla``, DeepSeek-V2 §2.1) replaces the QKV and output
projections by MLA's (``MlaSpec.attention_params``) and the attention core's head sizes by the
query/key head (nope + RoPE) and the value head. Multi-token prediction (``model.mtp_depth``,
DeepSeek-V3 §2.2) adds per module one more transformer layer of the last layer's kind, its
2h x h projection and the shared output head's logits, as Megatron-LM counts ``mtp_num_layers``
in ``num_floating_point_operations`` (code read, P).

"Model FLOPs" count three passes (forward, activation gradient, weight gradient). "Hardware
FLOPs" add recomputation: full recompute runs the layers' forward once more (not the logits),
selective recompute re-runs the attention core forward (Korthikanti et al., MLSys'23).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.workload import RECOMPUTE, ModelSpec

RECOMPUTE_MODES = RECOMPUTE


@dataclass(frozen=True)
class ParameterCount:
    attention: float      # per layer: QKV + output projection
    dense_mlp: float      # per dense layer
    moe_mlp_total: float  # per MoE layer, all experts (+ shared + router)
    moe_mlp_active: float # per MoE layer, experts a token visits
    embedding: float      # input embedding (output layer untied: counted again)
    total: float
    active: float         # parameters a token touches (MoE: top-k experts only)
    mtp: float = 0.0      # multi-token prediction modules (in total and active)


def attention_parameters(model: ModelSpec) -> float:
    """Weights of one layer's attention projections (QKV + output, or MLA's)."""
    if model.mla is not None:
        return model.mla.attention_params(model.hidden, model.heads)
    h = model.hidden
    h_q = model.heads * model.head_dim
    h_kv = model.kv_heads_effective * model.head_dim
    return float(h * (h_q + 2 * h_kv) + h_q * h)


def parameter_count(model: ModelSpec, tied_embeddings: bool = False) -> ParameterCount:
    h = model.hidden
    g = 3 if model.gated else 2
    attention = attention_parameters(model)
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
    # an MTP module: a layer of the last layer's kind and its 2h x h projection
    last_total, last_active = (moe_total, moe_active) if moe_layers else (dense_mlp, dense_mlp)
    mtp_total = model.mtp_depth * (attention + last_total + 2 * h * h)
    mtp_active = model.mtp_depth * (attention + last_active + 2 * h * h)
    total = body + moe_layers * moe_total + embeddings + mtp_total
    active = body + moe_layers * moe_active + embeddings + mtp_active
    return ParameterCount(
        attention=float(attention),
        dense_mlp=float(dense_mlp),
        moe_mlp_total=float(moe_total),
        moe_mlp_active=float(moe_active),
        embedding=float(embedding),
        total=float(total),
        active=float(active),
        mtp=float(mtp_total),
    )


@dataclass(frozen=True)
class FlopsPerToken:
    """Forward FLOPs per token (2 per multiply-add), by part. Training is 3x these."""

    attention_linear: float  # per layer: QKV + output projection GEMMs
    attention_core: float    # per layer: QK^T and AV, with the causal factor a/2 applied
    dense_mlp: float         # per dense layer
    moe_mlp: float           # per MoE layer: k routed experts + shared experts (0 if dense)
    logits: float            # output layer, once per token
    dense_layers: int
    moe_layers: int
    mtp: float = 0.0         # multi-token prediction modules: their layers, projections, logits

    @property
    def layers_forward(self) -> float:
        """Forward FLOPs of all transformer layers for one token."""
        per_layer = self.attention_linear + self.attention_core
        return (
            (self.dense_layers + self.moe_layers) * per_layer
            + self.dense_layers * self.dense_mlp
            + self.moe_layers * self.moe_mlp
        )

    @property
    def forward(self) -> float:
        return self.layers_forward + self.logits + self.mtp

    @property
    def training(self) -> float:
        """Model FLOPs per token for one training step (forward + backward = 3 passes)."""
        return 3.0 * self.forward


def flops_per_token(model: ModelSpec, causal: bool | None = None) -> FlopsPerToken:
    """Forward FLOPs per token by part (performance.md §1.1).

    ``causal`` overrides ``model.causal``: causal attention counts half of the score matrix
    (a = 1, current Megatron), non-causal the whole (a = 2: PaLM, Megatron-2021, MosaicML).
    """
    causal = model.causal if causal is None else causal
    a = 1.0 if causal else 2.0
    h = model.hidden
    g = 3 if model.gated else 2
    s = model.seq_len
    attention_linear = 2.0 * attention_parameters(model)
    # QK^T over the query/key head, AV over the value head: 2 FLOPs x s each, times a/2
    d_qk, d_v = attention_head_dims(model)
    attention_core = a * model.heads * (d_qk + d_v) * s
    dense_mlp = 2.0 * g * h * model.ffn_hidden
    moe = model.moe
    if moe.enabled:
        f_e = moe.expert_ffn_hidden or model.ffn_hidden
        moe_mlp = 2.0 * g * h * (moe.top_k * f_e + moe.shared_experts * f_e)
        dense_layers = moe.dense_layers
    else:
        moe_mlp = 0.0
        dense_layers = model.layers
    moe_layers = model.layers - dense_layers
    last_mlp = moe_mlp if moe_layers else dense_mlp
    logits = 2.0 * h * model.vocab
    mtp = model.mtp_depth * (attention_linear + attention_core + last_mlp + 2.0 * 2 * h * h
                             + logits)
    return FlopsPerToken(
        attention_linear=attention_linear,
        attention_core=attention_core,
        dense_mlp=dense_mlp,
        moe_mlp=moe_mlp,
        logits=logits,
        dense_layers=dense_layers,
        moe_layers=moe_layers,
        mtp=mtp,
    )


def attention_head_dims(model: ModelSpec) -> tuple[int, int]:
    """(query/key, value) head sizes of the attention core: MLA's nope + RoPE and value heads,
    else the model's head size for both."""
    if model.mla is not None:
        return model.mla.qk_head_dim, model.mla.v_head_dim
    return model.head_dim, model.head_dim


def model_flops_per_token(model: ModelSpec, causal: bool | None = None) -> float:
    """Training model FLOPs per token (Megatron semantics; no recomputation)."""
    return flops_per_token(model, causal).training


def hardware_flops_per_token(
    model: ModelSpec, recompute: str = "none", causal: bool | None = None
) -> float:
    """Training FLOPs the hardware executes per token, including recomputation.

    ``full``: one extra forward of every layer (not the logits), i.e. the 96-form of
    Narayanan et al. (SC'21). ``selective``: one extra forward of the attention core
    (4 B s^2 h per layer for MHA, non-causal), as Korthikanti et al. count HFU.
    ``norms-up-proj`` adds MLA's K/V up-projection GEMMs (norms and activation functions
    are not GEMMs); ``moe-experts`` adds the routed experts' forward to ``selective``.
    """
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"recompute must be one of {', '.join(RECOMPUTE_MODES)}, got {recompute!r}")
    parts = flops_per_token(model, causal)
    extra = 0.0
    if recompute == "full":
        extra = parts.layers_forward
    elif recompute != "none":
        extra = model.layers * parts.attention_core
        if recompute == "norms-up-proj" and model.mla is not None:
            mla = model.mla
            extra += model.layers * 2.0 * mla.kv_lora_rank * model.heads * (
                mla.qk_nope_head_dim + mla.v_head_dim)
        if recompute == "moe-experts" and model.moe.enabled:
            moe = model.moe
            f_e = moe.expert_ffn_hidden or model.ffn_hidden
            g = 3 if model.gated else 2
            extra += parts.moe_layers * 2.0 * g * model.hidden * moe.top_k * f_e
    return parts.training + extra


def model_flops_per_step(model: ModelSpec, global_batch: int, causal: bool | None = None) -> float:
    """Model FLOPs of one iteration: F_tok x global batch x sequence length."""
    return model_flops_per_token(model, causal) * global_batch * model.seq_len
