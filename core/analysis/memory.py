"""Memory per GPU of a training job: model states, activations, logits, workspace.

Sources (../shared/reference/performance.md §6):

* **Model states**: mixed-precision Adam keeps 16 B/param (bf16 params 2 + bf16 grads 2 + fp32
  master 4 + m 4 + v 4; ZeRO, SC'20, P). ZeRO stage s shards them over the data-parallel
  degree N_d: 0 -> 16, 1 -> 4 + 12/N_d, 2 -> 2 + 14/N_d, 3 -> 16/N_d bytes per parameter.
  Parameters per GPU are those of the heaviest pipeline stage, sharded over TP (and EP for
  experts). Megatron shards the optimizer over the data-parallel group *with* CP (dp x cp).
* **Activations**: Korthikanti et al. (MLSys'23 §4) per layer per micro-batch, 16-bit:
  s b h (34 + 5 a s / h) without recompute, everything / t with sequence parallelism (SP).
  The 34 is re-derived below per part so GQA, gated MLPs and MoE count correctly; selective
  recompute (and FlashAttention) drop the 5 a s / h score term; full recompute keeps only the
  layer input (2 s b h / t) plus one layer's working set during its recomputation.
* **In flight**: under 1F1B pipeline stage i holds min(m, p - i) micro-batches of its layers
  (the first stage L layers' worth). Megatron's interleaved schedule runs 2(p - i - 1) + (v - 1)p
  + 1 chunk forwards ahead on stage i (``get_num_warmup_microbatches`` in
  megatron/core/pipeline_parallel/schedules.py, code read), i.e. the first stage holds
  p (1 + (p - 1)/(p v)) micro-batches of its layers (Korthikanti et al. §4.2.3) and the last
  ((v - 1)p + 1)/v. The fullest of the first, second and last stages is reported.
* **Uneven splits** (``balance_ends``): when the layers do not divide into p v chunks but
  layers + 2 do, the embedding and the output layer + loss count as one layer each, so the first
  and last stages get one transformer layer fewer (Llama 3, Dubey et al. 2024 §3.3.2, P: "we
  reduce one Transformer layer each from the first and the last stages"; Megatron-Core
  ``--account-for-embedding-in-pipeline-split`` / ``--account-for-loss-in-pipeline-split``).
  Otherwise the first L mod (p v) chunks get one layer more.
* **Dropout** (``dropout``): the 1-byte dropout masks of Korthikanti's count (attention output
  and MLP output, h each per token) exist only when the run uses dropout (GPT-3/Megatron
  2021-22 recipes, 0.1); Llama-style pre-training recipes use none (NeMo llama3_1_*.yaml:
  hidden_dropout 0.0, attention_dropout 0.0, P).
* **Gradients** are held in the DP reduction precision (``grad_bytes``: 2 for bf16 buffers,
  4 when gradients are accumulated and reduce-scattered in fp32 as in Llama 3 §3.3.2, P).
* **Logits**: s b V / t elements on the last stage (fp32 by default).
* **Workspace** (communication buffers, cuBLAS/NCCL workspace) and **framework** (CUDA context,
  allocator fragmentation) are each ~1-3 GB (E).

All sizes are GB = 1e9 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.model_stats import parameter_count
from core.analysis.performance_assumptions import PerformanceAssumptions
# The stage split is the pipeline schedule's; tests/test_memory.py and scripts import these
# names from here, where memory per stage is computed.
from core.analysis.pipeline import (  # noqa: F401 - ends_balanced, stage_layers re-exported
    ends_balanced,
    inflight_microbatches,
    moe_layers_in,
    stage_layer_counts,
    stage_layers,
)
from core.workload import ModelSpec, Parallelism

GB = 1e9

# Bytes per parameter of each model-state part under mixed-precision Adam (ZeRO paper, P).
WEIGHT_BYTES = 2.0
GRAD_BYTES = 2.0
OPTIMIZER_BYTES = 12.0


def model_state_bytes_per_param(zero_stage: int, data_parallel: int) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per parameter on one GPU for a ZeRO stage.

    Sums to the performance.md §6 table: 16 | 4 + 12/N_d | 2 + 14/N_d | 16/N_d.
    """
    n_d = max(1, data_parallel)
    weights = WEIGHT_BYTES / n_d if zero_stage >= 3 else WEIGHT_BYTES
    grads = GRAD_BYTES / n_d if zero_stage >= 2 else GRAD_BYTES
    optimizer = OPTIMIZER_BYTES / n_d if zero_stage >= 1 else OPTIMIZER_BYTES
    return weights, grads, optimizer


def activation_bytes_per_token(
    model: ModelSpec,
    recompute: str = "none",
    flash_attention: bool = True,
    moe_layer: bool = False,
    dropout: bool = True,
) -> float:
    """Stored activation bytes per token for one layer (before the / t of SP).

    Korthikanti's 34 s b h for MHA + 4h MLP, by part (16-bit values, 1-byte dropout masks):
    LayerNorm inputs 4h; attention: QKV input 2h, Q 2h_q, K and V 4h_kv, core output 2h_q,
    dropout mask h (= 11h for MHA); MLP: fc1 input 2h, fc1 output 2(g-1)f, activation output
    2f, dropout mask h (= 19h for a 4h GeLU MLP). Scores (no FlashAttention and no selective
    recompute): 5 a s per token (softmax output 2, dropout mask 1, dropout output 2; the
    attention-dropout part only with ``dropout``). Without ``dropout`` the two h masks go:
    8h + 4h_q + 4h_kv + 2(g - 1)f + 2f (= 32h for MHA + 4h GeLU).
    """
    h = model.hidden
    h_q = model.heads * model.head_dim
    h_kv = model.kv_heads_effective * model.head_dim
    g = 3 if model.gated else 2
    if recompute == "full":
        return 2.0 * h  # the layer input only
    mask = 1.0 * h if dropout else 0.0
    ln = 4.0 * h
    attention = 2.0 * h + mask + 4.0 * h_q + 4.0 * h_kv
    if moe_layer and model.moe.enabled:
        moe = model.moe
        f_e = moe.expert_ffn_hidden or model.ffn_hidden
        per_copy = 2.0 * h + 2.0 * (g - 1) * f_e + 2.0 * f_e  # permuted input, fc1 out, act out
        mlp = 2.0 * h + mask + moe.top_k * per_copy + moe.shared_experts * (
            2.0 * (g - 1) * f_e + 2.0 * f_e
        )
    else:
        f = model.ffn_hidden
        mlp = 2.0 * h + mask + 2.0 * (g - 1) * f + 2.0 * f
    scores = 0.0
    if recompute == "none" and not flash_attention:
        scores = (5.0 if dropout else 2.0) * model.heads * model.seq_len
    return ln + attention + mlp + scores


@dataclass(frozen=True)
class MemoryBreakdown:
    """Memory of the fullest GPU (first or last pipeline stage), GB."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    logits_gb: float
    workspace_gb: float
    framework_gb: float
    total_gb: float
    hbm_gb: float
    fits: bool
    params_per_gpu: float          # parameters held by this GPU's model-parallel shard
    inflight_microbatches: float   # micro-batches whose activations the stage holds at peak
    stage: str                     # "first", "middle" (the second stage) or "last": the fullest

    @property
    def model_states_gb(self) -> float:
        return self.weights_gb + self.gradients_gb + self.optimizer_gb

    @property
    def headroom_gb(self) -> float:
        return self.hbm_gb - self.total_gb

    def to_json(self) -> dict:
        return {
            "weights_gb": self.weights_gb,
            "gradients_gb": self.gradients_gb,
            "optimizer_gb": self.optimizer_gb,
            "activations_gb": self.activations_gb,
            "logits_gb": self.logits_gb,
            "workspace_gb": self.workspace_gb,
            "framework_gb": self.framework_gb,
            "total_gb": self.total_gb,
            "hbm_gb": self.hbm_gb,
            "fits": self.fits,
            "params_per_gpu": self.params_per_gpu,
            "inflight_microbatches": self.inflight_microbatches,
            "stage": self.stage,
        }


def memory_per_gpu(
    model: ModelSpec,
    par: Parallelism,
    hbm_gb: float,
    *,
    sequence_parallel: bool = True,
    flash_attention: bool = True,
    logits_bytes_per_element: float = 4.0,
    workspace_gb: float = 1.5,
    framework_gb: float = 2.0,
    tied_embeddings: bool = False,
    microbatches: int | None = None,
    dropout: bool = True,
    balance_ends: bool = False,
    grad_bytes: float = GRAD_BYTES,
) -> MemoryBreakdown:
    """Peak memory of one GPU for ``model`` trained with ``par`` (performance.md §6)."""
    tp, pp, cp, ep = par.tp, par.pp, par.cp, par.ep
    v = max(1, par.virtual_stages) if pp > 1 else 1
    m = microbatches if microbatches is not None else par.microbatches
    counts = parameter_count(model, tied_embeddings)
    first_layers, middle_layers, last_layers = stage_layer_counts(model.layers, pp, v,
                                                                  balance_ends)

    # --- model states -------------------------------------------------------------------
    n_d = par.dp * cp
    n_e = max(1, n_d // max(1, ep))
    expert_params_layer = 0.0
    shared_params_layer = 0.0
    if model.moe.enabled:
        moe = model.moe
        g = 3 if model.gated else 2
        expert = g * model.hidden * (moe.expert_ffn_hidden or model.ffn_hidden)
        expert_params_layer = moe.experts * expert
        shared_params_layer = counts.moe_mlp_total - expert_params_layer  # shared + router

    def stage_params(first: bool, layers: int, embedding: bool) -> tuple[float, float]:
        moe_layers = moe_layers_in(model, first, layers)
        dense_layers = layers - moe_layers
        dense = layers * counts.attention + dense_layers * counts.dense_mlp
        dense += moe_layers * shared_params_layer
        if pp == 1:
            dense += counts.embedding * (1 if tied_embeddings else 2)
        elif embedding:
            dense += counts.embedding  # input embedding (first) or output layer (last)
        experts = moe_layers * expert_params_layer
        return dense / tp, experts / (tp * max(1, ep))

    w_d, g_d, o_d = model_state_bytes_per_param(par.zero_stage, n_d)
    w_e, g_e, o_e = model_state_bytes_per_param(par.zero_stage, n_e)
    # gradients in the buffer's precision (the ZeRO table assumes 2 bytes)
    g_d *= grad_bytes / GRAD_BYTES
    g_e *= grad_bytes / GRAD_BYTES

    # --- activations --------------------------------------------------------------------
    tokens = par.micro_batch * model.seq_len / cp  # tokens per GPU (CP splits the sequence)
    recompute = par.recompute
    per_token_dense = activation_bytes_per_token(model, recompute, flash_attention, False,
                                                 dropout)
    per_token_moe = activation_bytes_per_token(model, recompute, flash_attention, True, dropout)
    # Without SP the LayerNorm/dropout regions are replicated across TP ranks: Korthikanti's
    # "TP only" form s b h (10 + 24/t + 5 a s/(h t)); full recompute keeps 2 s b h unsharded.
    sp = sequence_parallel or tp == 1
    replicated_none = (10.0 if dropout else 8.0) * model.hidden
    replicated = 0.0 if sp else (2.0 * model.hidden if recompute == "full" else replicated_none)

    def stored(per_token: float) -> float:
        return (per_token - replicated) / tp + replicated

    working_dense = activation_bytes_per_token(model, "none", flash_attention, False, dropout)
    working_moe = activation_bytes_per_token(model, "none", flash_attention, True, dropout)

    def stage_activations(first: bool, layers: int, inflight: float) -> float:
        moe_layers = moe_layers_in(model, first, layers)
        dense_layers = layers - moe_layers
        per_mb = tokens * (dense_layers * stored(per_token_dense) + moe_layers * stored(per_token_moe))
        total = per_mb * inflight
        if recompute == "full" and layers:
            # one layer is re-materialised at a time during the backward pass
            total += tokens * (working_moe if moe_layers else working_dense) / tp
        return total

    logits = tokens * model.vocab / tp * logits_bytes_per_element

    candidates = []
    stages = [("first", True, first_layers, 0, pp == 1, True)]
    if pp > 2:
        stages.append(("middle", False, middle_layers, 1, False, False))
    if pp > 1:
        stages.append(("last", False, last_layers, pp - 1, True, True))
    for stage, first, layers, index, has_logits, embedding in stages:
        inflight = inflight_microbatches(pp, v, m, index)
        dense, experts = stage_params(first, layers, embedding)
        weights = dense * w_d + experts * w_e
        grads = dense * g_d + experts * g_e
        optim = dense * o_d + experts * o_e
        acts = stage_activations(first, layers, inflight)
        lg = logits if has_logits else 0.0
        total = (weights + grads + optim + acts + lg) / GB + workspace_gb + framework_gb
        candidates.append((total, stage, dense + experts, weights, grads, optim, acts, lg, inflight))
    total, stage, params, weights, grads, optim, acts, lg, inflight = max(candidates)
    return MemoryBreakdown(
        weights_gb=weights / GB,
        gradients_gb=grads / GB,
        optimizer_gb=optim / GB,
        activations_gb=acts / GB,
        logits_gb=lg / GB,
        workspace_gb=workspace_gb,
        framework_gb=framework_gb,
        total_gb=total,
        hbm_gb=hbm_gb,
        fits=total <= hbm_gb,
        params_per_gpu=params,
        inflight_microbatches=inflight,
        stage=stage,
    )


def memory_for(model: ModelSpec, par: Parallelism, hbm_gb: float, a: PerformanceAssumptions,
               microbatches: int | None = None) -> MemoryBreakdown:
    """``memory_per_gpu`` with the memory-relevant assumptions of the performance model (one
    place for the step-time model, the parallelism search and the bottleneck what-ifs)."""
    return memory_per_gpu(
        model,
        par,
        hbm_gb,
        sequence_parallel=a.sequence_parallel,
        flash_attention=a.flash_attention,
        logits_bytes_per_element=a.logits_bytes_per_element,
        workspace_gb=a.workspace_gb,
        framework_gb=a.framework_overhead_gb,
        microbatches=microbatches,
        dropout=a.dropout,
        balance_ends=a.balance_pipeline_ends,
        grad_bytes=a.grad_reduce_bytes,
    )
