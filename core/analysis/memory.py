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

All sizes are GB = 1e9 bytes, the GPU's memory too: ``hbm_gb`` is what it holds in those
bytes (``AcceleratorSpec.hbm_capacity_gb``: the driver's total, 85.52 GB on an "80GB" H100),
not the spec sheet's number, which counts GiB.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.model_stats import parameter_count
from core.analysis.moe_layer import expert_skew
from core.assumptions.performance import PerformanceAssumptions
# The stage split is the pipeline schedule's; tests/test_memory.py and scripts import these
# names from here, where memory per stage is computed.
from core.analysis.pipeline import (  # noqa: F401 - ends_balanced, stage_layers re-exported
    ends_balanced,
    inflight_microbatches,
    moe_layers_in,
    stage_layer_counts,
    stage_layers,
)
from core.precision_recipes import RECIPES, block_scaled_tensor_cores, muon_optimizer_bytes
from core.workload import ModelSpec, Parallelism

GB = 1e9

# Bytes per parameter of each model-state part under mixed-precision Adam (ZeRO paper, P).
WEIGHT_BYTES = 2.0
GRAD_BYTES = 2.0
OPTIMIZER_BYTES = 12.0


def model_state_bytes_per_param(zero_stage: int, data_parallel: int,
                                optimizer_bytes: float = OPTIMIZER_BYTES,
                                weight_bytes: float = WEIGHT_BYTES) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per parameter on one GPU for a ZeRO stage.

    Sums to the performance.md §6 table: 16 | 4 + 12/N_d | 2 + 14/N_d | 16/N_d (with the
    12 bytes of FP32 master weights and Adam moments; DeepSeek-V3's BF16 moments make it 8).
    """
    n_d = max(1, data_parallel)
    weights = weight_bytes / n_d if zero_stage >= 3 else weight_bytes
    grads = GRAD_BYTES / n_d if zero_stage >= 2 else GRAD_BYTES
    optimizer = optimizer_bytes / n_d if zero_stage >= 1 else optimizer_bytes
    return weights, grads, optimizer


def activation_bytes_per_token(
    model: ModelSpec,
    recompute: str = "none",
    flash_attention: bool = True,
    moe_layer: bool = False,
    dropout: bool = True,
    saved_bytes: float = 2.0,
    skew: float = 1.0,
    attention_out_bytes: float | None = None,
    expert_act_input_bytes: float = 2.0,
) -> float:
    """Stored activation bytes per token for one layer (before the / t of SP).

    Korthikanti's 34 s b h for MHA + 4h MLP, by part (16-bit values, 1-byte dropout masks):
    LayerNorm inputs 4h; attention: QKV input 2h, Q 2h_q, K and V 4h_kv, core output 2h_q,
    dropout mask h (= 11h for MHA); MLP: fc1 input 2h, fc1 output 2(g-1)f, activation output
    2f, dropout mask h (= 19h for a 4h GeLU MLP). Scores (no FlashAttention, and core attention
    not recomputed: every mode but selective and full): 5 a s per token (softmax output 2, dropout mask 1, dropout output 2; the
    attention-dropout part only with ``dropout``). Without ``dropout`` the two h masks go:
    8h + 4h_q + 4h_kv + 2(g - 1)f + 2f (= 32h for MHA + 4h GeLU).

    ``saved_bytes``: bytes per value a linear layer keeps of its input for the weight gradient
    (the precision recipe's: FP8 recipes keep the quantized copy, TransformerEngine linear.py;
    the attention core's output then stays BF16 for its own backward and gains that copy).
    MLA (DeepSeek-V2 §2.1) keeps the down-projections' input, the query and KV latents
    before and after their norms, Q, K, V and the core output. An MoE layer keeps the router's
    FP32 scores (4 E bytes) and, per routed copy (``top_k`` x the busiest rank's ``skew``), the
    dispatched input, the fc1 output and the activation output (each shared expert the latter
    two). Recompute modes drop what they re-run: ``norms-up-proj`` the norms' outputs, MLA's
    up-projection outputs (Q, K, V) and the activation outputs (Megatron-Core recompute
    modules layernorm, mla_up_proj, moe_act); ``moe-experts`` also the routed experts' fc1 and
    activation outputs; ``full`` keeps the layer input only. ``attention_out_bytes`` and
    ``expert_act_input_bytes``: DeepSeek-V3's recipe keeps the attention output once in E5M6 and
    the experts' SwiGLU input in FP8, recomputing its output (precision_recipes.py).
    """
    h = model.hidden
    g = 3 if model.gated else 2
    b = saved_bytes
    if recompute == "full":
        return 2.0 * h  # the layer input only
    modules = recompute in ("norms-up-proj", "moe-experts")
    mask = 1.0 * h if dropout else 0.0
    ln = 4.0 * h
    ln_out = 0.0 if modules else b * h  # the input of the projections after each norm
    mla = model.mla
    if mla is not None:
        heads = model.heads
        latents = 2.0 * (mla.q_lora_rank + mla.kv_lora_rank + mla.qk_rope_head_dim)
        normed = 0.0 if modules else b * (mla.q_lora_rank + mla.kv_lora_rank)
        qkv = 0.0 if modules else 2.0 * heads * (2 * mla.qk_head_dim + mla.v_head_dim)
        core_out = heads * mla.v_head_dim * _attention_out_bytes(b, attention_out_bytes)
        attention = ln_out + latents + normed + qkv + core_out + mask
    else:
        h_q = model.heads * model.head_dim
        h_kv = model.kv_heads_effective * model.head_dim
        core_out = h_q * _attention_out_bytes(b, attention_out_bytes)
        attention = ln_out + mask + 2.0 * h_q + 4.0 * h_kv + core_out
    act_out = 0.0 if modules else b  # bytes per value of the activation output (fc2 input)
    if moe_layer and model.moe.enabled:
        moe = model.moe
        f_e = moe.expert_ffn_hidden or model.ffn_hidden
        if recompute == "moe-experts":
            per_copy = b * h  # the dispatched input; the expert MLP is re-run from it
        elif expert_act_input_bytes < 2.0:  # SwiGLU input cached low, its output recomputed
            per_copy = b * h + expert_act_input_bytes * (g - 1) * f_e
        else:
            per_copy = b * h + 2.0 * (g - 1) * f_e + act_out * f_e
        shared = moe.shared_experts * (2.0 * (g - 1) * f_e + act_out * f_e)
        mlp = ln_out + mask + 4.0 * moe.experts + moe.top_k * skew * per_copy + shared
    else:
        f = model.ffn_hidden
        mlp = ln_out + mask + 2.0 * (g - 1) * f + act_out * f
    scores = 0.0
    # the module recompute modes leave core attention stored: Megatron-Core's recompute
    # modules layernorm / mla_up_proj / mlp / moe_act do not re-run it; "core_attn" is a module
    # of its own (TransformerConfig.recompute_modules, code read), the schema's "selective"
    if recompute in ("none", "norms-up-proj", "moe-experts") and not flash_attention:
        scores = (5.0 if dropout else 2.0) * model.heads * model.seq_len
    return ln + attention + mlp + scores


def _attention_out_bytes(saved_bytes: float, stored_once: float | None) -> float:
    """Bytes per value of the attention output: stored once (a recipe's own format), else BF16
    for the attention backward plus the output projection's low-precision copy."""
    if stored_once is not None:
        return stored_once
    return 2.0 + (saved_bytes if saved_bytes < 2.0 else 0.0)


def routed_activation_bytes_per_token(model: ModelSpec, recompute: str, dropout: bool,
                                      saved_bytes: float, skew: float,
                                      expert_act_input_bytes: float = 2.0) -> float:
    """The routed experts' share of ``activation_bytes_per_token`` of an MoE layer."""
    if recompute == "full" or not model.moe.enabled:
        return 0.0
    with_experts = activation_bytes_per_token(model, recompute, True, True, dropout,
                                              saved_bytes, skew,
                                              expert_act_input_bytes=expert_act_input_bytes)
    without = activation_bytes_per_token(model, recompute, True, True, dropout, saved_bytes, 0.0,
                                         expert_act_input_bytes=expert_act_input_bytes)
    return with_experts - without


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
    # MoE by part (0 for a dense model): the routed experts' weights + gradients + optimizer
    # states, and their activations (included in the totals above)
    expert_states_gb: float = 0.0
    expert_activations_gb: float = 0.0
    # activation offload: what one micro-batch's stored activations of this stage send to host
    # memory (and read back) per step
    offloaded_gb_per_microbatch: float = 0.0

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
            **({"moe": {"expert_states_gb": self.expert_states_gb,
                        "expert_activations_gb": self.expert_activations_gb,
                        "other_states_gb": self.model_states_gb - self.expert_states_gb,
                        "other_activations_gb": self.activations_gb - self.expert_activations_gb}}
               if self.expert_states_gb > 0 else {}),
            **({"offloaded_gb_per_microbatch": self.offloaded_gb_per_microbatch}
               if self.offloaded_gb_per_microbatch > 0 else {}),
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
    precision: str = "bf16",
    schedule: str = "1f1b",
    extra_warmup: int = 0,
    skew: float = 1.0,
    weight_bytes: float = WEIGHT_BYTES,
    optimizer: str = "adamw",
) -> MemoryBreakdown:
    """Peak memory of one GPU for ``model`` trained with ``par`` (performance.md §6).

    ``precision`` is the workload's recipe (core/precision_recipes.py: saved GEMM inputs,
    gradient and optimizer bytes); ``schedule`` "dualpipe" holds two stages' parameters and
    p + 1 micro-batches in flight (DeepSeek-V3 Table 2); ``extra_warmup`` (Megatron-Core's
    all-to-all overlap: one warm-up forward more, then forwards and backwards combined layer by
    layer) holds one layer more at the peak (pipeline.inflight_microbatches); ``skew`` is the busiest expert rank's
    routed tokens over the mean (moe_layer.expert_skew). ``weight_bytes``: bytes per
    parameter of the model's own weight copy (``fp8_weight_bytes``). ``optimizer`` "muon"
    keeps one momentum buffer, not Adam's two, for every weight matrix but the embedding and
    the output head, which stay on AdamW (core/analysis/muon.py).
    """
    rec = RECIPES.get(precision, RECIPES["bf16"])
    tp, pp, cp, ep = par.tp, par.pp, par.cp, par.ep
    v = max(1, par.virtual_stages) if pp > 1 else 1
    m = microbatches if microbatches is not None else par.microbatches
    counts = parameter_count(model, tied_embeddings)
    first_layers, middle_layers, last_layers = stage_layer_counts(model.layers, pp, v,
                                                                  balance_ends, model.mtp_depth)
    dualpipe = schedule == "dualpipe" and pp > 1

    # --- model states -------------------------------------------------------------------
    n_d = par.dp * cp
    n_e = par.expert_replicas
    expert_params_layer = 0.0
    shared_params_layer = 0.0
    if model.moe.enabled:
        moe = model.moe
        g = 3 if model.gated else 2
        expert = g * model.hidden * (moe.expert_ffn_hidden or model.ffn_hidden)
        expert_params_layer = moe.experts * expert
        shared_params_layer = counts.moe_mlp_total - expert_params_layer  # shared + router
    mtp_layer_experts = expert_params_layer if model.moe.enabled and \
        model.moe.dense_layers < model.layers else 0.0

    def stage_params(first: bool, layers: int, embedding: bool, last: bool) -> tuple[float, float, float]:
        """(dense, routed experts, of the dense the embedding / output head) on one GPU."""
        moe_layers = moe_layers_in(model, first, layers)
        dense_layers = layers - moe_layers
        dense = layers * counts.attention + dense_layers * counts.dense_mlp
        dense += moe_layers * shared_params_layer
        experts = moe_layers * expert_params_layer
        tables = 0.0
        if pp == 1:
            tables = counts.embedding * (1 if tied_embeddings else 2)
        elif embedding:
            tables = counts.embedding  # input embedding (first) or output layer (last)
        dense += tables
        if last:  # multi-token prediction modules sit with the output head
            dense += counts.mtp - model.mtp_depth * mtp_layer_experts
            experts += model.mtp_depth * mtp_layer_experts
        return dense / tp, experts / (par.expert_tp_effective * max(1, ep)), tables / tp

    w_d, g_d, o_d = model_state_bytes_per_param(par.zero_stage, n_d, rec.optimizer_bytes,
                                                weight_bytes)
    w_e, g_e, o_e = model_state_bytes_per_param(par.zero_stage, n_e, rec.optimizer_bytes,
                                                weight_bytes)
    # the weight matrices' optimizer bytes per parameter (the embedding and the head keep o_d)
    o_body, o_experts = o_d, o_e
    if optimizer == "muon":
        o_body = model_state_bytes_per_param(par.zero_stage, n_d, muon_optimizer_bytes(rec))[2]
        o_experts = model_state_bytes_per_param(par.zero_stage, n_e, muon_optimizer_bytes(rec))[2]
    # gradients in the buffer's precision (the ZeRO table assumes 2 bytes)
    grad_bytes = rec.grad_bytes if rec.grad_bytes is not None else grad_bytes
    g_d *= grad_bytes / GRAD_BYTES
    g_e *= grad_bytes / GRAD_BYTES

    # --- activations --------------------------------------------------------------------
    tokens = par.micro_batch * model.seq_len / cp  # tokens per GPU (CP splits the sequence)
    recompute = par.recompute
    saved = rec.saved_input_bytes
    recipe_bytes = {"attention_out_bytes": rec.attention_out_bytes,
                    "expert_act_input_bytes": rec.expert_act_input_bytes}
    per_token_dense = activation_bytes_per_token(model, recompute, flash_attention, False,
                                                 dropout, saved, **recipe_bytes)
    per_token_moe = activation_bytes_per_token(model, recompute, flash_attention, True, dropout,
                                               saved, skew, **recipe_bytes)
    routed_per_token = routed_activation_bytes_per_token(model, recompute, dropout, saved, skew,
                                                         rec.expert_act_input_bytes)
    # Without SP the LayerNorm/dropout regions are replicated across TP ranks: Korthikanti's
    # "TP only" form s b h (10 + 24/t + 5 a s/(h t)); full recompute keeps 2 s b h unsharded.
    sp = sequence_parallel or tp == 1
    replicated_none = (10.0 if dropout else 8.0) * model.hidden
    replicated = 0.0 if sp else (2.0 * model.hidden if recompute == "full" else replicated_none)

    def stored(per_token: float) -> float:
        return (per_token - replicated) / tp + replicated

    working_dense = activation_bytes_per_token(model, "none", flash_attention, False, dropout,
                                               saved, **recipe_bytes)
    working_moe = activation_bytes_per_token(model, "none", flash_attention, True, dropout,
                                             saved, skew, **recipe_bytes)
    last_moe = moe_layers_in(model, False, 1) > 0  # the last layer's kind (MTP modules copy it)
    # logits of one micro-batch on the last stage (its loss runs at once), one set per MTP module
    logits = tokens * model.vocab / tp * logits_bytes_per_element * (1 + model.mtp_depth)

    def stage_activations(first: bool, layers: int, last: bool) -> tuple[float, float, float]:
        """(bytes one micro-batch leaves stored, of which routed experts', the working set of
        one layer being run)."""
        moe_layers = moe_layers_in(model, first, layers)
        dense_layers = layers - moe_layers
        per_mb = tokens * (dense_layers * stored(per_token_dense) + moe_layers * stored(per_token_moe))
        routed_mb = tokens * moe_layers * routed_per_token / tp
        if last and model.mtp_depth:
            # each module: a layer of the last kind and its 2h concatenated input
            per_mb += model.mtp_depth * tokens * (
                stored(per_token_moe if last_moe else per_token_dense) + 4.0 * model.hidden / tp)
        working = tokens * (working_moe if moe_layers else working_dense) / tp if layers else 0.0
        return per_mb, routed_mb, working

    # (name, first, layers, index, holds the output head) of each stage kind
    kinds = [("first", True, first_layers, 0, pp == 1)]
    if pp > 2:
        kinds.append(("middle", False, middle_layers, 1, False))
    if pp > 1:
        kinds.append(("last", False, last_layers, pp - 1, True))
    parts = {}
    for name, first, layers, index, head in kinds:
        dense, experts, tables = stage_params(first, layers, first or head, head)
        parts[name] = (dense, experts, *stage_activations(first, layers, head), head, index,
                       layers, tables)
    if dualpipe:
        # DualPipe: rank i runs stage i of one direction and stage p - 1 - i of the other, so
        # the first rank also holds the last stage (embedding, output head, MTP)
        ranks = [("first", (parts["first"], parts["last"]))]
        if pp > 2:
            ranks.append(("middle", (parts["middle"], parts["middle"])))
    else:
        ranks = [(name, (part,)) for name, part in parts.items()]

    candidates = []
    for stage, held in ranks:
        index = held[0][6]
        combined = held[0][7] if extra_warmup > 0 else 0
        inflight = inflight_microbatches(pp, v, m, index, schedule, combined)
        dense = sum(h[0] for h in held)
        experts = sum(h[1] for h in held)
        # in flight: micro-batches of either stage (DualPipe: p + 1 chunks of the two)
        per_mb = sum(h[2] for h in held) / len(held)
        routed_mb = sum(h[3] for h in held) / len(held)
        working = max(h[4] for h in held)
        weights = dense * w_d + experts * w_e
        grads = dense * g_d + experts * g_e
        tables = sum(h[8] for h in held)
        optim = (dense - tables) * o_body + tables * o_d + experts * o_experts
        offloaded = 0.0
        if par.activation_offload:
            # the stored activations wait in host memory; the GPU holds the layer being run
            # and the one being fetched or sent
            acts, routed, offloaded = 2.0 * working, 0.0, per_mb * len(held)
        else:
            acts, routed = per_mb * inflight, routed_mb * inflight
            if recompute == "full":
                acts += working  # one layer is re-materialised at a time during the backward
        lg = logits if any(h[5] for h in held) else 0.0
        total = (weights + grads + optim + acts + lg) / GB + workspace_gb + framework_gb
        expert_states = experts * (w_e + g_e + o_experts)
        candidates.append((total, stage, dense + experts, weights, grads, optim, acts, lg, inflight,
                           expert_states, routed, offloaded))
    (total, stage, params, weights, grads, optim, acts, lg, inflight, expert_states, routed,
     offloaded) = max(candidates)
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
        expert_states_gb=expert_states / GB,
        expert_activations_gb=routed / GB,
        offloaded_gb_per_microbatch=offloaded / GB,
    )


def fp8_weight_bytes(a: PerformanceAssumptions, precision: str, accelerator) -> float:
    """Bytes per parameter of the model's weight copy: 1 for per-tensor FP8 primary weights
    (``fp8_primary_weights``) on tensor cores that take FP8 in any layout (the block-scaled
    generation, Blackwell); else the BF16 copy's 2 (Hopper keeps a
    transposed FP8 copy beside the FP8 one; MXFP8 row- and column-wise copies)."""
    any_layout = accelerator is not None and block_scaled_tensor_cores(accelerator)
    if a.fp8_primary_weights and precision == "fp8" and any_layout:
        return 1.0
    return WEIGHT_BYTES


def memory_for(model: ModelSpec, par: Parallelism, hbm_gb: float, a: PerformanceAssumptions,
               microbatches: int | None = None, precision: str = "bf16",
               accelerator=None, optimizer: str = "adamw") -> MemoryBreakdown:
    """``memory_per_gpu`` with the memory-relevant assumptions of the performance model (one
    place for the step-time model, the parallelism search and the bottleneck what-ifs);
    ``accelerator`` (its catalog spec) decides what an FP8 weight costs."""
    # Megatron-Core's all-to-all overlap runs one more warm-up forward (pipeline.py)
    overlapped = a.ep_overlap > 0 and a.pipeline_schedule == "1f1b" and model.moe.enabled \
        and par.ep > 1
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
        precision=precision,
        schedule=a.pipeline_schedule,
        extra_warmup=1 if overlapped else 0,
        skew=expert_skew(model, par, a),
        weight_bytes=fp8_weight_bytes(a, precision, accelerator),
        optimizer=optimizer,
    )
