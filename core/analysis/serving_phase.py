"""The roofline of one phase layout of an inference deployment (``core/analysis/serving.py``
assembles the deployment from one or two of them): weights and KV cache per GPU, and the time of
one prefill or decode step on a replica, with the KV cache where the workload places it.

Per pipeline stage and step: compute time = linear FLOPs / (tp GPUs x dense peak of the
weights' precision x efficiency) + attention FLOPs / (tp GPUs x dense peak of the attention's
precision x efficiency) (attention runs at the KV cache's precision, not the weights'); HBM time
= bytes read / (HBM bandwidth x efficiency); KV fetch time = KV bytes brought in from host memory
(decode) or from a remote prefix cache (prefill) over their link; communication (TP all-reduces,
EP dispatch + combine) and a fixed cost per layer (kernel launches and tails, synchronisation)
are added, not overlapped. Compute, HBM reads and KV fetches overlap (the larger binds): the
fetches run on copy engines (host) or the NIC (storage) while the SMs work, layer by layer, as
FlexGen's and Mooncake's layer-wise prefetch do. Fine-grained routed experts (an expert FFN
narrower than the hidden size) are the exception: their grouped GEMMs read their weights, then
compute, as NVIDIA's MoE kernels measure (``PhaseModel._serialise_experts``).

Pipeline parallelism: a replica keeps min(pp, batch) micro-batches in flight (TensorRT-LLM
schedules pp micro-batches), so every stage works on one micro-batch
while the others work on the rest. A decode stage step is one micro-batch of batch / pp
sequences; a sequence gets its next token after its micro-batch has crossed the pp stages (pp
stage steps); a prompt reaches its first token after pp prefill stage steps, but occupies each
stage for one of them.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

from core.analysis.collectives import allreduce_time_s, alltoall_time_s
from core.assumptions.inference import CALIBRATION_ACCELERATOR, InferenceAssumptions
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
    # per layer, per query token, per key position: prefill (K and V materialised) and decode
    # (MLA's absorbed form; the same as prefill without MLA)
    attention_flops_per_context_token: float
    decode_attention_flops_per_context_token: float


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
        # prefill expands the latents into K and V: QK^T over (nope + rope) dims and AV over v
        # dims, per head, 2 FLOPs a multiply-add
        attn = 2.0 * model.heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim)
        decode_attn = mla_absorbed_flops_per_position(model.heads, mla.kv_lora_rank, mla.qk_rope_head_dim)
    else:
        kv_per_token = 2 * model.layers * model.kv_heads_effective * model.head_dim * kv_bytes
        attn = decode_attn = 4.0 * model.heads * model.head_dim
    return ModelShape(total, active, routed, routed_active, float(kv_per_token), attn, decode_attn)


def mla_absorbed_flops_per_position(heads: int, kv_lora_rank: int, rope_dim: int) -> float:
    """Decode attention of MLA in the absorbed form, per layer and cached position (DeepSeek-V2
    §2.1.3; FlashMLA, deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md: FLOPs
    2 h_q s_q s_k (d_k + d_v) with d_k = kv_lora_rank + rope, d_v = kv_lora_rank): each head
    scores its query against the cached latent and RoPE key, and weights the latent itself as
    the value. W_UK is applied to the query and W_UV to the attention output once per token, the
    same weights and FLOPs as the expanded form's per-token up-projection, so the 2 x parameters
    per token stand. DeepSeek-V3: 2 x 128 x (2 x 512 + 64) = 278,528."""
    return 2.0 * heads * (2 * kv_lora_rank + rope_dim)


# Block scales stored beside 4-bit weights, bytes per weight: NVFP4 keeps one FP8 (E4M3) scale
# per 16 FP4 values (P: NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision
# Inference", developer.nvidia.com/blog, 2025: 16-value micro-blocks with an E4M3 scale and an
# FP32 tensor scale, "3.5x" smaller than FP16, i.e. 4.5 bits a value; S: Hugging Face lists
# nvidia/Llama-3.3-70B-Instruct-NVFP4 at 41B stored elements for 70.6B weights: packed FP4
# pairs, one F8_E4M3 per 16, BF16 embeddings).
# MXFP4 (AMD) keeps one E8M0 per 32, half that (E: NVFP4's figure used for every FP4). FP8 and
# INT8 scales are per tensor, channel or 128 x 128 block: negligible.
_BLOCK_SCALE_BYTES = {"fp4": 1.0 / 16}


def weight_bytes_per_param(precision: str) -> float:
    """HBM bytes one weight takes at ``precision``, its block scales included."""
    return PRECISION_BYTES[precision] + _BLOCK_SCALE_BYTES.get(precision, 0.0)


def attention_precision(workload: InferenceWorkload, accelerator) -> str:
    """The precision attention's matrix products (QK^T, AV) run at: the KV cache's, not the
    weights' (FP4 weights do not make attention FP4). An FP4 KV cache is read into FP8 for the
    products (P: FlashInfer's nvfp4_kv_materialize_fp8 materialises NVFP4 KV pages as FP8 for
    the trtllm-gen kernels); a precision without a dense peak on the accelerator runs at BF16,
    else at the serving precision (which it has). Sources: NVIDIA's MLPerf v5.1 harness runs
    FP8 context FMHA with its FP8 KV cache under NVFP4 weights (configs/*/llama2-70b.py);
    native FP8 MLA decode kernels on SM100 (modular/modular max/kernels/src/nn/
    mla_decode_sm100_qkv_fp8.mojo) and AMD aiter's a8w8 MLA decode (fp8 Q and KV) on MI355X."""
    table = accelerator.tflops_dense
    kv = workload.kv_cache_precision
    if workload.attention_precision is not None:
        # the engine's kernels say (FlashMLA's SM90 decode computes in BF16 over an FP8 cache)
        kv = workload.attention_precision
    for precision in ("fp8" if kv == "fp4" else kv, "bf16", workload.precision):
        if table.get(precision):
            return precision
    return workload.precision


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
    fixed_s: float = 0.0  # the stage's layers' fixed cost (kernel launches, tails, syncs)

    @property
    def stage_s(self) -> float:
        return max(self.compute_s, self.memory_s, self.kv_fetch_s) + self.communication_s + self.fixed_s

    @property
    def bound(self) -> str:
        """"compute", "memory" (HBM), "host_link", "storage" or "communication": what binds
        among the roofline's parts (the fixed cost per layer is added to whichever binds)."""
        if self.communication_s > max(self.compute_s, self.memory_s, self.kv_fetch_s):
            return "communication"
        if self.kv_fetch_s > max(self.compute_s, self.memory_s):
            return self.kv_fetch_over
        return "compute" if self.compute_s >= self.memory_s else "memory"

    def to_json(self) -> dict:
        return {"compute_s": self.compute_s, "memory_s": self.memory_s,
                "communication_s": self.communication_s, "kv_fetch_s": self.kv_fetch_s,
                "fixed_s": self.fixed_s, "bound": self.bound}


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
    attention_precision: str  # what QK^T and AV run at (``attention_precision``)

    @property
    def kv_capacity_bytes(self) -> float:
        """KV cache one GPU holds: the HBM the weights leave, plus its host memory share."""
        return max(0.0, self.hbm_free_bytes) + self.tiers.host_bytes

    def requests_held(self, context_tokens: float) -> int:
        """Requests of ``context_tokens`` whose KV cache one replica holds at once."""
        return int(self.kv_capacity_bytes // (self.kv_bytes_per_token * context_tokens))

    def step_s(self, phase: PhaseTime) -> float:
        """``phase`` (one stage step) across the replica's pp stages: the time between two
        tokens of a sequence (decode: its micro-batch crosses every stage), or a prompt's way
        to its first token (prefill)."""
        return self.layout.pp * phase.stage_s

    def micro_batches(self, batch: int) -> int:
        """Micro-batches a replica keeps in flight at decode batch ``batch``: one per pipeline
        stage, as TensorRT-LLM does (P: NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/
        _util.py, ``max_num_sequences = max_batch_size * mapping.pp_size``, one micro-batch of
        up to max_batch_size per stage; cpp/tensorrt_llm/batch_manager/
        trtGptModelInflightBatching.cpp, ``mNumMicroBatches = getPipelineParallelism()``), and
        no more than there are sequences."""
        return max(1, min(self.layout.pp, batch))

    def prompt_flops_at_weight_peak(self, input_tokens: float) -> float:
        """FLOPs of one prompt's prefill (the tokens the prefix cache does not serve, each
        attending causally to every position before it, the served prefix included), the
        attention's counted at the weights' peak: scaled by peak(weights) / peak(attention), so
        that one peak turns the sum of several prompts' into time."""
        hit = self.tiers.prefix_hit_rate
        attention = 0.5 * (1.0 - hit * hit) * input_tokens * input_tokens
        return (2.0 * self.shape.active_params * (1.0 - hit) * input_tokens
                + attention * self.workload.model.layers * self.shape.attention_flops_per_context_token
                * self._attention_slowdown)

    def prefill_step(self, flops_at_weight_peak: float, input_tokens: float) -> PhaseTime:
        """One prefill stage step of prompts of ``input_tokens`` in all whose FLOPs are
        ``flops_at_weight_peak`` (``prompt_flops_at_weight_peak``): the stage's weights read
        once, the prefix cache's share of the prompts' KV read from storage."""
        hit = self.tiers.prefix_hit_rate
        fetched = hit * input_tokens * self.kv_bytes_per_token
        tokens = (1.0 - hit) * input_tokens
        # the busiest EP rank's extra share of the routed experts' FLOPs
        routed = 2.0 * self.shape.routed_active_params * tokens * self._ep_imbalance(tokens)
        flops_at_weight_peak += routed - 2.0 * self.shape.routed_active_params * tokens
        efficiency = self.assumptions.prefill_compute_efficiency
        compute_s, memory_s = self._serialise_experts(
            self._compute_s(flops_at_weight_peak, efficiency), self.weights_bytes / self._hbm_bytes_s,
            self._compute_s(routed, efficiency), self.routed_bytes / self._hbm_bytes_s)
        return PhaseTime(
            compute_s=compute_s,
            memory_s=memory_s,
            communication_s=self.communication_s((1.0 - hit) * input_tokens),
            kv_fetch_s=fetched / self.tiers.storage_read_bytes_s if fetched else 0.0,
            kv_fetch_over=STORAGE if fetched else "",
            fixed_s=self._fixed_s,
        )

    def decode_step(self, batch: int, context_tokens: float) -> PhaseTime:
        """One decode stage step of a replica at batch ``batch`` (sequences at
        ``context_tokens`` each): one micro-batch of batch / micro_batches(batch) sequences.
        The stage's weights (the routed experts in the fraction the micro-batch touches) and
        its sequences' KV cache are read from HBM, the share of the batch's KV cache beyond the
        free HBM first brought from host memory.

        With speculative decoding (``workload.speculative``, n drafts) the step verifies 1 + n
        tokens per sequence in one forward pass (FLOPs, dispatches and experts touched for
        (1 + n) x the tokens; the weights and the KV cache read once) after n draft passes of
        one MTP module each (a layer's share of a one-token step), and a sequence advances by
        ``tokens_per_step`` tokens: the parts returned are per token advanced (the step's
        divided by it), so TPOT, throughput and the bottleneck read them as without drafts."""
        spec = self.workload.speculative
        if spec is None:
            return self._decode_pass(batch, context_tokens, 1.0)
        verify = self._decode_pass(batch, context_tokens, 1.0 + spec.draft_tokens)
        draft = self._decode_pass(batch, context_tokens, 1.0)
        # n MTP modules of one layer each: n / layers of the replica's step, which is pp stage
        # steps, so n / layers of a stage step on each
        share = spec.draft_tokens / self.workload.model.layers
        per_token = 1.0 / spec.tokens_per_step
        return PhaseTime(
            compute_s=(verify.compute_s + share * draft.compute_s) * per_token,
            memory_s=(verify.memory_s + share * draft.memory_s) * per_token,
            communication_s=(verify.communication_s + share * draft.communication_s) * per_token,
            kv_fetch_s=verify.kv_fetch_s * per_token, kv_fetch_over=verify.kv_fetch_over,
            fixed_s=(verify.fixed_s + share * draft.fixed_s) * per_token)

    def _decode_pass(self, batch: int, context_tokens: float, tokens_per_sequence: float) -> PhaseTime:
        """One forward pass of a decode stage step with ``tokens_per_sequence`` query tokens per
        sequence (1, or 1 + the drafts a speculative step verifies)."""
        model, micro = self.workload.model, batch / self.micro_batches(batch)
        tokens = micro * tokens_per_sequence
        flops = tokens * (2.0 * self.shape.active_params + context_tokens * model.layers
                          * self.shape.decode_attention_flops_per_context_token * self._attention_slowdown)
        # the busiest EP rank's extra share of the routed experts' FLOPs
        routed = 2.0 * self.shape.routed_active_params * tokens * self._ep_imbalance(tokens)
        flops += routed - 2.0 * self.shape.routed_active_params * tokens
        touched = self.routed_bytes * self._experts_touched(tokens)
        weights = self.weights_bytes - self.routed_bytes + touched
        kv = batch * context_tokens * self.kv_bytes_per_token
        from_host = max(0.0, kv - max(0.0, self.hbm_free_bytes)) if self.tiers.host_bytes else 0.0
        from_host *= micro / batch
        efficiency = self.assumptions.decode_compute_efficiency
        compute_s, memory_s = self._serialise_experts(
            self._compute_s(flops, efficiency), (weights + kv * micro / batch) / self._hbm_bytes_s,
            self._compute_s(routed, efficiency), touched / self._hbm_bytes_s)
        return PhaseTime(
            compute_s=compute_s,
            memory_s=memory_s,
            communication_s=self.communication_s(tokens),
            kv_fetch_s=from_host / self.tiers.host_link_bytes_s if from_host else 0.0,
            kv_fetch_over=HOST_LINK if from_host else "",
            fixed_s=self._fixed_s,
        )

    def _serialise_experts(self, compute_s: float, memory_s: float, experts_compute_s: float,
                           experts_read_s: float) -> tuple[float, float]:
        """(compute, HBM) of a step whose totals are ``compute_s`` and ``memory_s``, of which the
        routed experts' grouped GEMMs take ``experts_compute_s`` of math and ``experts_read_s``
        of weight reads. Coarse experts overlap the two with the rest of the step, as every
        other layer does. Fine-grained experts (an expert FFN narrower than the hidden size,
        DeepSeekMoE's segmentation) do not: their GEMMs cost the weights' read plus the math,
        one after the other, added to whichever of the rest binds (so the bound stays the
        rest's and nothing is counted twice).

        Measured, not assumed (P: NVIDIA's TensorRT-LLM 1.3.0rc20 MoE op, isolated on silicon,
        ai-dynamo/aiconfigurator 0.12.0 systems/data/{h200_sxm,b200_sxm}/moe/trtllm/1.3.0rc20/
        moe_perf.parquet, balanced routing, 64-512 tokens per expert): DeepSeek-V3's experts
        (7,168 x 2,048, 32 per GPU at EP 8) take 0.86-1.00x (B200 FP8) and 0.92-1.31x (H200
        FP8-block) of read + math at this model's efficiency and HBM rate, 1.4-1.8x of the larger
        of them; the other fine-grained shapes of the same file (4,096 x 1,536, 4,096 x 2,048,
        6,144 x 2,048) 0.7-1.5x of the sum; Mixtral's coarse experts (4,096 x 14,336) 0.5-0.9x of
        the sum, 0.6-1.5x of the larger: overlapped.

        With FP4 weights the grouped GEMMs' math runs at the FP8 rate, not the FP4 one; only the
        read shrinks (P, same data: NVIDIA's best NVFP4 against its best FP8 MoE op on B200 and
        GB200, every fine-grained shape, balanced routing: 0.67-0.73x of the FP8 op's time at
        up to 4 tokens per expert, where the weights' read sets it, 0.96-1.03x from 64 tokens
        per expert on, where the math does; coarse shapes 0.78-0.90x at 1,024+ tokens): the
        narrow GEMMs do not turn the 4-bit tensor cores into speed."""
        if not self._fine_grained_experts:
            return compute_s, memory_s
        serial = experts_compute_s * self._fine_grained_fp4_math + experts_read_s
        rest_compute, rest_memory = compute_s - experts_compute_s, memory_s - experts_read_s
        if rest_compute >= rest_memory:
            return rest_compute + serial, rest_memory
        return rest_compute, rest_memory + serial

    @functools.cached_property
    def _fine_grained_fp4_math(self) -> float:
        """Time factor that puts fine-grained FP4 experts' math at the FP8 rate (1 at any
        other precision, or where the accelerator has no FP8 peak)."""
        accel = self.fabric.accelerator
        if self.workload.precision != "fp4" or not accel.tflops_dense.get("fp8"):
            return 1.0
        return self._weight_peak_tflops / accel.peak_tflops("fp8")

    @functools.cached_property
    def _fine_grained_experts(self) -> bool:
        """Routed experts whose FFN is narrower than the hidden size (DeepSeekMoE's fine-grained
        segmentation: DeepSeek-V3 2,048 of 7,168, Qwen3-MoE 1,536 of 4,096; Mixtral's 14,336
        of 4,096 is coarse)."""
        model = self.workload.model
        return model.moe.enabled and (model.moe.expert_ffn_hidden or model.ffn_hidden) < model.hidden

    def communication_s(self, tokens: float) -> float:
        """TP all-reduces (after attention and after the MLP) and EP dispatch + combine of one
        stage, for ``tokens`` tokens in flight on the replica; the dispatch and combine wait
        for the busiest EP rank (``_ep_imbalance``)."""
        if tokens <= 0:
            return 0.0
        tp_slope, tp_intercept, ep_slope, ep_intercept = self._communication_line
        seconds = tp_slope * tokens + tp_intercept
        if ep_slope or ep_intercept:
            seconds += (ep_slope * tokens * self._ep_imbalance(tokens) + ep_intercept)
        return seconds

    @functools.cached_property
    def _communication_line(self) -> tuple[float, float, float, float]:
        """(seconds per token, seconds) of the TP all-reduces, then of the EP dispatch +
        combine, at balanced routing. The collectives are affine in their bytes (a bandwidth
        term over the busiest link class plus a latency term; collectives.py without its
        size-aware efficiency, which serving does not use), so two evaluations give every
        batch's: the search and the curve ask for thousands (a level without bandwidth gives
        infinity at every batch)."""
        one, two = self._communication_exact(1.0), self._communication_exact(2.0)
        if not all(math.isfinite(x) for x in (*one, *two)):
            return math.inf, math.inf, math.inf, math.inf
        return (two[0] - one[0], 2.0 * one[0] - two[0], two[1] - one[1], 2.0 * one[1] - two[1])

    def _communication_exact(self, tokens: float) -> tuple[float, float]:
        """(TP all-reduces, EP dispatch + combine) seconds of one stage for ``tokens``."""
        model, layout, a = self.workload.model, self.layout, self.assumptions
        stage_layers = model.layers / layout.pp
        tp_bytes = tokens * model.hidden * a.activation_bytes
        tp_seconds = 2 * stage_layers * allreduce_time_s(self.fabric, tp_bytes, layout.tp)
        ep_seconds = 0.0
        if model.moe.enabled and layout.ep > 1:
            moe_layers = (model.layers - model.moe.dense_layers) / layout.pp
            # the EP group's tokens (its ep/tp replicas' worth, at least one replica's) spread
            # over its ep GPUs; each sends top_k copies of its tokens out and back
            tokens_per_rank = tokens * max(1.0, layout.ep / layout.tp) / layout.ep
            routed = tokens_per_rank * model.moe.top_k * model.hidden
            weight_bytes = PRECISION_BYTES[self.workload.precision]
            dispatch = alltoall_time_s(self.fabric, routed * min(weight_bytes, a.activation_bytes), layout.ep)
            combine = alltoall_time_s(self.fabric, routed * a.activation_bytes, layout.ep)
            ep_seconds = moe_layers * (dispatch + combine)
        return tp_seconds, ep_seconds

    def _ep_imbalance(self, tokens_per_replica: float) -> float:
        """Routed tokens on the busiest of the ep ranks over the mean, when each replica (micro-
        batch) brings ``tokens_per_replica`` tokens: the workload's ``load_imbalance`` if set
        (a measured or EPLB figure), else what uniform top-k routing gives by chance. The EP
        group's n = tokens x top_k routed copies fall on the ep ranks as balls into bins: each
        rank's count is binomial (mean n / ep, variance n (1 - 1/ep) / ep), and the busiest
        of ep is about z_ep standard deviations above the mean, z_ep the expected maximum of
        ep standard normals (Blom's approximation, Phi^-1((ep - 0.375) / (ep + 0.25)));
        Raab & Steger, "Balls into bins: a simple and tight analysis", RANDOM 1998 (R): for
        n >> ep log ep the maximum is n / ep + sqrt(2 (n / ep) log ep) to first order. At most
        ep (every copy on one rank)."""
        fixed, spread = self._imbalance_terms
        if fixed is not None:
            return fixed
        if tokens_per_replica <= 0:
            return 1.0
        return min(float(self.layout.ep), 1.0 + spread / math.sqrt(tokens_per_replica))

    @functools.cached_property
    def _imbalance_terms(self) -> tuple[float | None, float]:
        """(the fixed imbalance, or None; s such that the chance imbalance is 1 + s /
        sqrt(tokens per replica)): z_ep x sqrt((1 - 1/ep) ep / (top_k x replicas per EP
        group)), built once (the search and the curve ask for thousands of batches)."""
        moe, layout = self.workload.model.moe, self.layout
        if not moe.enabled or layout.ep <= 1:
            return 1.0, 0.0
        if self.workload.experts.load_imbalance is not None:
            return self.workload.experts.load_imbalance, 0.0
        ep = layout.ep
        copies_per_token = max(1.0, ep / layout.tp) * moe.top_k
        return None, _expected_max_normal(ep) * math.sqrt((1.0 - 1.0 / ep) * ep / copies_per_token)

    @property
    def _hbm_bytes_s(self) -> float:
        return float(self.fabric.accelerator.hbm_tbyte_s) * 1e12 * self.assumptions.hbm_efficiency

    def _compute_s(self, flops_at_weight_peak: float, efficiency: float) -> float:
        """One stage's share of ``flops_at_weight_peak`` on its tp GPUs."""
        peak = self._weight_peak_tflops * 1e12
        return (flops_at_weight_peak / self.layout.pp / self.layout.tp
                / (peak * efficiency * self._gemm_ceiling_share))

    @functools.cached_property
    def _gemm_ceiling_share(self) -> float:
        """This accelerator's measured GEMM ceiling over the calibration accelerator's (1 where
        none is measured): the compute efficiencies were fitted on H100 runs."""
        ceilings = self.assumptions.gemm_ceiling_by_accelerator
        reference = ceilings.get(CALIBRATION_ACCELERATOR)
        own = ceilings.get(self.fabric.accelerator.id)
        return own / reference if own and reference else 1.0

    @property
    def _attention_slowdown(self) -> float:
        """peak(weights' precision) / peak(attention's precision): attention FLOPs at the
        weights' peak (2 for FP4 weights with FP8 attention on Blackwell)."""
        accel = self.fabric.accelerator
        return self._weight_peak_tflops / accel.peak_tflops(self.attention_precision)

    @functools.cached_property
    def _weight_peak_tflops(self) -> float:
        """The dense peak the linear layers run at: an FP4 GEMM realises its measured share
        of the FP4 peak over the FP8 GEMM's (core/assumptions/kernels.py)."""
        accel = self.fabric.accelerator
        peak = accel.peak_tflops(self.workload.precision)
        if self.workload.precision == "fp4":
            peak *= self.assumptions.fp4_over_fp8_gemm_share_by_accelerator.get(accel.id, 1.0)
        return peak

    @property
    def _fixed_s(self) -> float:
        """The fixed cost of one stage step: its layers' kernel launches, tails and syncs."""
        return self.workload.model.layers / self.layout.pp * self.assumptions.fixed_us_per_layer * 1e-6

    def _experts_touched(self, tokens_per_replica: float) -> float:
        """Expected fraction of a GPU's routed experts one step reads when each replica (micro-
        batch) brings ``tokens_per_replica`` tokens: each of the EP group's tokens picks top_k
        of the experts (uniform routing assumed, E)."""
        moe = self.workload.model.moe
        if not moe.enabled:
            return 1.0
        tokens = tokens_per_replica * max(1.0, self.layout.ep / self.layout.tp)
        # with redundant copies a token visits one copy of each of its experts: a copy is hit
        # with chance top_k / (experts + redundant) per token (EPLB spreads the load)
        return 1.0 - (1.0 - moe.top_k / self.workload.expert_slots) ** tokens


def phase_model(fabric: FabricView, workload: InferenceWorkload, layout: PhaseLayout,
                assumptions: InferenceAssumptions, tiers: KvTiers) -> PhaseModel:
    """``layout`` of ``workload`` on ``fabric``: everything but the routed experts splits over
    the replica's tp x pp GPUs; the routed experts over ep GPUs per stage, tensor-split further
    when tp exceeds ep (vLLM's MoE without expert parallelism shards every expert over TP). The
    KV cache splits over pp stages and over the KV heads of a TP group (a GQA head is
    replicated when tp exceeds the KV heads; an MLA latent is replicated on every GPU)."""
    shape = model_shape(workload)
    weight_bytes = weight_bytes_per_param(workload.precision)
    # redundant expert copies (EPLB) add their weights to the EP ranks that hold them
    copies = workload.expert_slots / workload.model.moe.experts if workload.model.moe.enabled else 1.0
    routed = shape.routed_params * copies / (max(layout.ep, layout.tp) * layout.pp) * weight_bytes
    weights = (shape.total_params - shape.routed_params) / layout.replica_gpus * weight_bytes + routed
    kv_split = 1 if workload.mla is not None else min(layout.tp, workload.model.kv_heads_effective)
    usable = fabric.accelerator.hbm_capacity_gb * 1e9 * (1.0 - assumptions.activation_reserve_fraction)
    return PhaseModel(fabric, workload, layout, assumptions, shape, tiers, weights, routed,
                      shape.kv_bytes_per_token / layout.pp / kv_split, usable - weights,
                      attention_precision(workload, fabric.accelerator))


@functools.lru_cache(maxsize=256)
def _expected_max_normal(count: int) -> float:
    """Expected maximum of ``count`` independent standard normals (Blom's approximation,
    within ~1% from 2 on; 0 for one)."""
    if count <= 1:
        return 0.0
    return statistics.NormalDist().inv_cdf((count - 0.375) / (count + 0.25))


def unit_gpus(layout: PhaseLayout) -> int:
    """The fewest GPUs copies of ``layout`` come in: whole replicas that also make whole EP
    groups (lcm(tp, ep) GPUs per stage, times the pp stages)."""
    return math.lcm(layout.tp, layout.ep) * layout.pp
