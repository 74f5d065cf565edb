"""The roofline of one phase layout of an inference deployment (``core/analysis/serving.py``
assembles the deployment from one or two of them): weights and KV cache per GPU, and the time of
one prefill or decode step on a replica, with the KV cache where the workload places it.

Per pipeline stage and step: compute time = FLOPs / (tp GPUs x dense peak x efficiency); HBM
time = bytes read / (HBM bandwidth x efficiency); KV fetch time = KV bytes brought in from host
memory (decode) or from a remote prefix cache (prefill) over their link; communication (TP
all-reduces, EP dispatch + combine) is added, not overlapped. Compute, HBM reads and KV fetches
overlap (the larger binds): the fetches run on copy engines (host) or the NIC (storage) while
the SMs work, layer by layer, as FlexGen's and Mooncake's layer-wise prefetch do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.analysis.collectives import allreduce_time_s, alltoall_time_s
from core.analysis.inference_assumptions import InferenceAssumptions
from core.analysis.model_stats import parameter_count
from core.fabric import FabricView
from core.inference_workload import PRECISION_BYTES, InferenceWorkload, PhaseLayout

# Where the KV bytes a step fetches come from (PhaseTime.kv_fetch_over, and the phase's bound).
HOST_LINK = "host_link"
STORAGE = "storage"


@dataclass(frozen=True)
class ModelShape:
    """What the roofline needs of the model, with MLA counted as MLA."""

    total_params: float
    active_params: float
    routed_params: float  # all routed experts' weights (0 for a dense model)
    routed_active_params: float  # the top-k experts a token visits
    kv_bytes_per_token: float
    attention_flops_per_context_token: float  # per layer, per query token, per key position


def model_shape(workload: InferenceWorkload) -> ModelShape:
    model, mla = workload.model, workload.mla
    counts = parameter_count(model)
    attention = counts.attention
    if mla is not None:
        attention = mla.attention_params(model.hidden, model.heads)
    total = counts.total + model.layers * (attention - counts.attention)
    active = counts.active + model.layers * (attention - counts.attention)
    moe = model.moe
    routed = routed_active = 0.0
    if moe.enabled:
        expert = (3 if model.gated else 2) * model.hidden * (moe.expert_ffn_hidden or model.ffn_hidden)
        moe_layers = model.layers - moe.dense_layers
        routed = float(moe_layers * moe.experts * expert)
        routed_active = float(moe_layers * moe.top_k * expert)
    kv_bytes = PRECISION_BYTES[workload.kv_cache_precision]
    if mla is not None:
        # one latent + one RoPE key per token and layer, shared by the heads (DeepSeek-V2 §2.1)
        kv_per_token = model.layers * (mla.kv_lora_rank + mla.qk_rope_head_dim) * kv_bytes
        # QK^T over (nope + rope) dims and AV over v dims, per head, 2 FLOPs a multiply-add
        attn = 2.0 * model.heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim)
    else:
        kv_per_token = 2 * model.layers * model.kv_heads_effective * model.head_dim * kv_bytes
        attn = 4.0 * model.heads * model.head_dim
    return ModelShape(total, active, routed, routed_active, float(kv_per_token), attn)


def kv_bytes_per_token(workload: InferenceWorkload) -> float:
    """KV-cache bytes one token of context takes over all layers."""
    return model_shape(workload).kv_bytes_per_token


@dataclass(frozen=True)
class PhaseTime:
    """Seconds of one step of a phase on one pipeline stage, by part, and what binds."""

    compute_s: float
    memory_s: float
    communication_s: float
    kv_fetch_s: float = 0.0  # KV brought into HBM during the step (host memory or storage)
    kv_fetch_over: str = ""  # HOST_LINK or STORAGE when kv_fetch_s is set

    @property
    def stage_s(self) -> float:
        return max(self.compute_s, self.memory_s, self.kv_fetch_s) + self.communication_s

    @property
    def bound(self) -> str:
        """"compute", "memory" (HBM), "host_link", "storage" or "communication"."""
        if self.communication_s > max(self.compute_s, self.memory_s, self.kv_fetch_s):
            return "communication"
        if self.kv_fetch_s > max(self.compute_s, self.memory_s):
            return self.kv_fetch_over
        return "compute" if self.compute_s >= self.memory_s else "memory"

    def to_json(self) -> dict:
        return {"compute_s": self.compute_s, "memory_s": self.memory_s,
                "communication_s": self.communication_s, "kv_fetch_s": self.kv_fetch_s,
                "bound": self.bound}


@dataclass(frozen=True)
class KvTiers:
    """Where the KV cache may live besides HBM, per GPU, as the roofline uses it: host memory
    (capacity, and the link's effective bytes/s) and a remote prefix cache (the share of prompt
    tokens it serves, and the storage path's effective read bytes/s)."""

    host_bytes: float = 0.0
    host_link_bytes_s: float = 0.0
    prefix_hit_rate: float = 0.0
    storage_read_bytes_s: float = 0.0


@dataclass(frozen=True)
class PhaseModel:
    """One phase layout on the design: its replica's weights, KV cache and step times."""

    fabric: FabricView
    workload: InferenceWorkload
    layout: PhaseLayout
    assumptions: InferenceAssumptions
    shape: ModelShape
    tiers: KvTiers
    weights_bytes: float  # per GPU
    routed_bytes: float  # per GPU: the routed experts' share of weights_bytes
    kv_bytes_per_token: float  # per GPU: one token of context, this GPU's layers and heads
    hbm_free_bytes: float  # HBM after the reserve and the weights (negative: they do not fit)

    @property
    def kv_capacity_bytes(self) -> float:
        """KV cache one GPU holds: the HBM the weights leave, plus its host memory share."""
        return max(0.0, self.hbm_free_bytes) + self.tiers.host_bytes

    def requests_held(self, context_tokens: float) -> int:
        """Requests of ``context_tokens`` whose KV cache one replica holds at once."""
        return int(self.kv_capacity_bytes // (self.kv_bytes_per_token * context_tokens))

    def step_s(self, phase: PhaseTime) -> float:
        """A step of the whole replica: its pp stages one after another."""
        return self.layout.pp * phase.stage_s

    def prompt_flops(self, input_tokens: float) -> float:
        """FLOPs of one prompt's prefill: the tokens the prefix cache does not serve, each
        attending (causally) to every position before it (the served prefix included)."""
        hit = self.tiers.prefix_hit_rate
        attention = 0.5 * (1.0 - hit * hit) * input_tokens * input_tokens
        return (2.0 * self.shape.active_params * (1.0 - hit) * input_tokens
                + attention * self.workload.model.layers * self.shape.attention_flops_per_context_token)

    def prefill_step(self, flops: float, input_tokens: float) -> PhaseTime:
        """One prefill step of ``flops`` over prompts of ``input_tokens`` in all: the weights
        read once, the prefix cache's share of the prompts' KV read from storage."""
        hit = self.tiers.prefix_hit_rate
        fetched = hit * input_tokens * self.kv_bytes_per_token
        return PhaseTime(
            compute_s=self._compute_s(flops, self.assumptions.prefill_compute_efficiency),
            memory_s=self.weights_bytes / self._hbm_bytes_s,
            communication_s=self.communication_s((1.0 - hit) * input_tokens),
            kv_fetch_s=fetched / self.tiers.storage_read_bytes_s if fetched else 0.0,
            kv_fetch_over=STORAGE if fetched else "",
        )

    def decode_step(self, batch: int, context_tokens: float) -> PhaseTime:
        """One decode step of ``batch`` sequences at ``context_tokens`` each: the weights (the
        routed experts in the fraction the step touches) and every sequence's KV cache read
        from HBM, the share of the KV cache beyond the free HBM first brought from host memory."""
        model = self.workload.model
        flops = batch * (2.0 * self.shape.active_params
                         + context_tokens * model.layers * self.shape.attention_flops_per_context_token)
        weights = self.weights_bytes - self.routed_bytes * (1.0 - self._experts_touched(batch))
        kv = batch * context_tokens * self.kv_bytes_per_token
        from_host = max(0.0, kv - max(0.0, self.hbm_free_bytes)) if self.tiers.host_bytes else 0.0
        return PhaseTime(
            compute_s=self._compute_s(flops, self.assumptions.decode_compute_efficiency),
            memory_s=(weights + kv) / self._hbm_bytes_s,
            communication_s=self.communication_s(batch),
            kv_fetch_s=from_host / self.tiers.host_link_bytes_s if from_host else 0.0,
            kv_fetch_over=HOST_LINK if from_host else "",
        )

    def communication_s(self, tokens: float) -> float:
        """TP all-reduces (after attention and after the MLP) and EP dispatch + combine of one
        stage, for ``tokens`` tokens in flight on the replica."""
        model, layout, a = self.workload.model, self.layout, self.assumptions
        stage_layers = model.layers / layout.pp
        tp_bytes = tokens * model.hidden * a.activation_bytes
        seconds = 2 * stage_layers * allreduce_time_s(self.fabric, tp_bytes, layout.tp)
        if model.moe.enabled and layout.ep > 1:
            moe_layers = (model.layers - model.moe.dense_layers) / layout.pp
            # the EP group's tokens (its ep/tp replicas' worth, at least one replica's) spread
            # over its ep GPUs; each sends top_k copies of its tokens out and back
            tokens_per_rank = tokens * max(1.0, layout.ep / layout.tp) / layout.ep
            routed = tokens_per_rank * model.moe.top_k * model.hidden
            weight_bytes = PRECISION_BYTES[self.workload.precision]
            dispatch = alltoall_time_s(self.fabric, routed * min(weight_bytes, a.activation_bytes), layout.ep)
            combine = alltoall_time_s(self.fabric, routed * a.activation_bytes, layout.ep)
            seconds += moe_layers * (dispatch + combine)
        return seconds

    @property
    def _hbm_bytes_s(self) -> float:
        return float(self.fabric.accelerator["hbm_tbyte_s"]) * 1e12 * self.assumptions.hbm_efficiency

    def _compute_s(self, flops: float, efficiency: float) -> float:
        """One stage's share of ``flops`` on its tp GPUs."""
        peak = self.fabric.accelerator.peak_tflops(self.workload.precision) * 1e12
        return flops / self.layout.pp / self.layout.tp / (peak * efficiency)

    def _experts_touched(self, batch: int) -> float:
        """Expected fraction of a GPU's routed experts one decode step reads: each of the EP
        group's tokens picks top_k of the experts (uniform routing assumed, E)."""
        moe = self.workload.model.moe
        if not moe.enabled:
            return 1.0
        tokens = batch * max(1.0, self.layout.ep / self.layout.tp)
        return 1.0 - (1.0 - moe.top_k / moe.experts) ** tokens


def phase_model(fabric: FabricView, workload: InferenceWorkload, layout: PhaseLayout,
                assumptions: InferenceAssumptions, tiers: KvTiers) -> PhaseModel:
    """``layout`` of ``workload`` on ``fabric``: everything but the routed experts splits over
    the replica's tp x pp GPUs; the routed experts over ep GPUs per stage, tensor-split further
    when tp exceeds ep (vLLM's MoE without expert parallelism shards every expert over TP). The
    KV cache splits over pp stages and over the KV heads of a TP group (a GQA head is
    replicated when tp exceeds the KV heads; an MLA latent is replicated on every GPU)."""
    shape = model_shape(workload)
    weight_bytes = PRECISION_BYTES[workload.precision]
    routed = shape.routed_params / (max(layout.ep, layout.tp) * layout.pp) * weight_bytes
    weights = (shape.total_params - shape.routed_params) / layout.replica_gpus * weight_bytes + routed
    kv_split = 1 if workload.mla is not None else min(layout.tp, workload.model.kv_heads_effective)
    usable = float(fabric.accelerator["hbm_gb"]) * 1e9 * (1.0 - assumptions.activation_reserve_fraction)
    return PhaseModel(fabric, workload, layout, assumptions, shape, tiers, weights, routed,
                      shape.kv_bytes_per_token / layout.pp / kv_split, usable - weights)


def unit_gpus(layout: PhaseLayout) -> int:
    """The fewest GPUs copies of ``layout`` come in: whole replicas that also make whole EP
    groups (lcm(tp, ep) GPUs per stage, times the pp stages)."""
    return math.lcm(layout.tp, layout.ep) * layout.pp
