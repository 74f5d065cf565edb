"""Serving ONE deployment of an inference workload on a design: roofline time per step of
prefill and decode, TP and EP communication over the design's own domains, KV-cache capacity,
TTFT / TPOT, tokens per second per GPU and per MW, and the throughput-latency curve (the same
deployment at every batch up to what the KV cache holds). ``core/analysis/inference.py`` is the
analysis that calls it (and the deployment search, for "auto").

Model (every simplification is stated because it moves a number):

* A replica is tp x pp GPUs (core/inference_workload.py). Its pp stages run one after another for
  a token (no micro-batch interleaving across stages), so a step takes pp x the stage time.
* Per stage and step: compute time = FLOPs / (GPUs x dense peak of the serving precision x
  efficiency); memory time = HBM bytes read / (HBM bandwidth x efficiency); communication (TP
  all-reduces, EP dispatch + combine) is added, not overlapped. The larger of compute and
  memory is the bound of the phase; communication is named when it is the largest part.
* FLOPs per token = 2 x active parameters + attention over the context (causal prefill: half
  the score matrix). Decode reads the GPU's weights once per step (shared by the batch; the
  routed experts only in the expected fraction the step's tokens touch) and every sequence's
  KV cache.
* Prefill (TTFT) is one request alone on its replica; queueing is not modelled.
* KV capacity per GPU = HBM - weights - an activation reserve; the batch is capped by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.analysis.collectives import allreduce_time_s, alltoall_time_s
from core.analysis.inference_assumptions import InferenceAssumptions
from core.analysis.model_stats import parameter_count
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inference_workload import PRECISION_BYTES, InferenceWorkload, PhaseLayout

@dataclass(frozen=True)
class PhaseTime:
    """Seconds of one step of a phase on one pipeline stage, by part, and what binds."""

    compute_s: float
    memory_s: float
    communication_s: float

    @property
    def stage_s(self) -> float:
        return max(self.compute_s, self.memory_s) + self.communication_s

    @property
    def bound(self) -> str:
        if self.communication_s > max(self.compute_s, self.memory_s):
            return "communication"
        return "compute" if self.compute_s >= self.memory_s else "memory"

    def to_json(self) -> dict:
        return {"compute_s": self.compute_s, "memory_s": self.memory_s,
                "communication_s": self.communication_s, "bound": self.bound}


@dataclass(frozen=True)
class InferenceResult:
    workload: InferenceWorkload
    runs: bool
    cannot_run: tuple[Diagnostic, ...]
    diagnostics: tuple[Diagnostic, ...]
    total_params: float
    active_params: float
    weights_gb_per_gpu: float | None
    kv_bytes_per_token: float  # whole model, one token of context
    kv_cache_gb_per_gpu: float | None  # HBM left for the KV cache (None: the weights do not fit)
    max_concurrency_per_replica: int | None
    batch: int | None  # concurrent requests per replica actually served (capped by the KV cache)
    prefill: PhaseTime | None = None
    decode: PhaseTime | None = None
    prefill_tokens_per_s_per_gpu: float | None = None
    decode_tokens_per_s_per_gpu: float | None = None
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    tokens_per_s_per_mw: float | None = None
    meets_slo: bool | None = None
    # GPU time of a request (its prefill alone, then its share of the batch's decode steps)
    # priced at the cost analysis's $/GPU-hour, per million output tokens
    usd_per_million_output_tokens: float | None = None
    assumptions: InferenceAssumptions = field(default_factory=InferenceAssumptions)
    # the deployment at every batch up to what the KV cache holds (empty when it cannot run)
    curve: tuple["CurvePoint", ...] = ()

    def to_json(self) -> dict:
        return {
            "prefill_tokens_per_s_per_gpu": self.prefill_tokens_per_s_per_gpu,
            "decode_tokens_per_s_per_gpu": self.decode_tokens_per_s_per_gpu,
            "ttft_ms": self.ttft_ms, "tpot_ms": self.tpot_ms,
            "tokens_per_s_per_mw": self.tokens_per_s_per_mw,
            "meets_slo": self.meets_slo, "runs": self.runs,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "cannot_run": [d.to_json() for d in self.cannot_run],
            "gpus": (self.workload.deployment.gpus if not self.workload.auto else None),
            "total_params": self.total_params, "active_params": self.active_params,
            "weights_gb_per_gpu": self.weights_gb_per_gpu,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_cache_gb_per_gpu": self.kv_cache_gb_per_gpu,
            "max_concurrency_per_replica": self.max_concurrency_per_replica,
            "batch": self.batch,
            "prefill": self.prefill.to_json() if self.prefill is not None else None,
            "decode": self.decode.to_json() if self.decode is not None else None,
            "curve": [point.to_json() for point in self.curve],
        }


@dataclass(frozen=True)
class _Shape:
    """What the roofline needs of the model, with MLA counted as MLA."""

    total_params: float
    active_params: float
    routed_params: float  # all routed experts' weights (0 for a dense model)
    routed_active_params: float  # the top-k experts a token visits
    kv_bytes_per_token: float
    attention_flops_per_context_token: float  # per layer, per query token, per key position


def model_shape(workload: InferenceWorkload) -> _Shape:
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
    return _Shape(total, active, routed, routed_active, float(kv_per_token), attn)


def kv_bytes_per_token(workload: InferenceWorkload) -> float:
    """KV-cache bytes one token of context takes over all layers."""
    return model_shape(workload).kv_bytes_per_token


def _kv_split(workload: InferenceWorkload, layout: PhaseLayout) -> int:
    """GPUs of a TP group the KV cache is divided over: the KV heads split across TP (a GQA
    head is replicated when tp exceeds the KV heads); an MLA latent is replicated on each."""
    if workload.mla is not None:
        return 1
    return min(layout.tp, workload.model.kv_heads_effective)


def serve_deployment(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                     assumptions: InferenceAssumptions | None = None,
                     usd_per_gpu_hour: float | None = None) -> InferenceResult:
    """Serve ``workload`` (its deployment as written, never "auto") on ``fabric`` (the design's
    GPUs and network as the training model sees them); ``facility_kw`` is the design's facility
    power, for tokens per second per MW; ``usd_per_gpu_hour`` (the cost analysis's, None when
    unpriced) prices the output tokens."""
    a = assumptions or InferenceAssumptions()
    model = workload.model
    unmodelled = not_modelled_yet(workload)
    if unmodelled is not None:
        shape = model_shape(workload)
        return InferenceResult(workload=workload, runs=False, cannot_run=(unmodelled,), diagnostics=(),
                               total_params=shape.total_params, active_params=shape.active_params,
                               weights_gb_per_gpu=None, kv_bytes_per_token=shape.kv_bytes_per_token,
                               kv_cache_gb_per_gpu=None, max_concurrency_per_replica=None, batch=None,
                               assumptions=a)
    dep = workload.deployment.decode
    accel = fabric.accelerator
    shape = model_shape(workload)
    weight_bytes = PRECISION_BYTES[workload.precision]
    # everything but the routed experts splits over the replica's tp x pp GPUs; the routed
    # experts over ep GPUs per stage, tensor-split further when tp exceeds ep (vLLM's MoE
    # without expert parallelism shards every expert over TP)
    expert_split = max(dep.ep, dep.tp) * dep.pp
    weights_per_gpu = ((shape.total_params - shape.routed_params) / dep.replica_gpus
                       + shape.routed_params / expert_split) * weight_bytes
    base = dict(workload=workload, total_params=shape.total_params, active_params=shape.active_params,
                weights_gb_per_gpu=weights_per_gpu / 1e9, kv_bytes_per_token=shape.kv_bytes_per_token,
                assumptions=a)
    blocked = _cannot_run(fabric, workload, weights_per_gpu, a)
    hbm_bytes = float(accel["hbm_gb"]) * 1e9
    free_bytes = hbm_bytes * (1.0 - a.activation_reserve_fraction) - weights_per_gpu
    if blocked:
        return InferenceResult(runs=False, cannot_run=blocked, diagnostics=(),
                               kv_cache_gb_per_gpu=free_bytes / 1e9 if free_bytes > 0 else None,
                               max_concurrency_per_replica=None, batch=None, **base)
    context = workload.requests.mean_input_tokens + workload.requests.mean_output_tokens
    kv_per_gpu_per_token = shape.kv_bytes_per_token / dep.pp / _kv_split(workload, dep)
    max_concurrency = int(free_bytes // (kv_per_gpu_per_token * context))
    if max_concurrency < 1:
        reason = Diagnostic("DOES_NOT_FIT_MEMORY",
                            f"inference: the KV cache of one {context:,}-token request "
                            f"({kv_per_gpu_per_token * context / 1e9:.1f} GB per GPU) does not fit "
                            f"in the {free_bytes / 1e9:.1f} GB the weights leave on {accel.id}")
        return InferenceResult(runs=False, cannot_run=(reason,), diagnostics=(),
                               kv_cache_gb_per_gpu=free_bytes / 1e9, max_concurrency_per_replica=0,
                               batch=None, **base)
    batch = min(dep.batch, max_concurrency)
    diagnostics: list[Diagnostic] = []
    if batch < dep.batch:
        diagnostics.append(Diagnostic(
            "KV_CACHE_LIMITS_BATCH",
            f"inference.deployment.batch: the KV cache holds {max_concurrency:,} requests of "
            f"{context:,} tokens per replica, not {dep.batch:,}: decode runs at batch {batch:,}"))

    peak_flops = accel.peak_tflops(workload.precision) * 1e12
    hbm_bytes_s = float(accel["hbm_tbyte_s"]) * 1e12 * a.hbm_efficiency
    stage_layers = model.layers / dep.pp
    moe_layers = (model.layers - model.moe.dense_layers) / dep.pp if model.moe.enabled else 0.0

    def communication_s(tokens_per_replica: float) -> float:
        """TP all-reduces (after attention and after the MLP) and EP dispatch + combine of one
        stage, for ``tokens_per_replica`` tokens in flight."""
        tp_bytes = tokens_per_replica * model.hidden * a.activation_bytes
        seconds = 2 * stage_layers * allreduce_time_s(fabric, tp_bytes, dep.tp)
        if moe_layers and dep.ep > 1:
            # the EP group's tokens (its ep/tp replicas' worth, at least one replica's) spread
            # over its ep GPUs; each sends top_k copies of its tokens out and back
            tokens_per_rank = tokens_per_replica * max(1.0, dep.ep / dep.tp) / dep.ep
            routed = tokens_per_rank * model.moe.top_k * model.hidden
            dispatch = alltoall_time_s(fabric, routed * min(weight_bytes, a.activation_bytes), dep.ep)
            combine = alltoall_time_s(fabric, routed * a.activation_bytes, dep.ep)
            seconds += moe_layers * (dispatch + combine)
        return seconds

    # --- prefill: one request of input_tokens alone on its replica ---------------------------
    s_in = workload.requests.mean_input_tokens
    prefill_flops = s_in * (2.0 * shape.active_params
                            + 0.5 * s_in * model.layers * shape.attention_flops_per_context_token)
    prefill = PhaseTime(
        compute_s=prefill_flops / dep.pp / dep.replica_gpus / (peak_flops * a.prefill_compute_efficiency),
        memory_s=weights_per_gpu / hbm_bytes_s,  # the weights, read once for the whole prompt
        communication_s=communication_s(s_in),
    )
    # --- decode: batch sequences, one token each per step, at the mean context -------------
    mean_context = workload.requests.mean_input_tokens + workload.requests.mean_output_tokens / 2.0
    routed_per_gpu = shape.routed_params / expert_split * weight_bytes

    def decode_at(batch: int) -> PhaseTime:
        decode_flops = batch * (2.0 * shape.active_params
                                + mean_context * model.layers * shape.attention_flops_per_context_token)
        touched = _experts_touched(workload, batch)
        decode_weight_bytes = weights_per_gpu - routed_per_gpu * (1.0 - touched)
        decode_kv_bytes = batch * mean_context * kv_per_gpu_per_token
        return PhaseTime(
            compute_s=decode_flops / dep.pp / dep.replica_gpus / (peak_flops * a.decode_compute_efficiency),
            memory_s=(decode_weight_bytes + decode_kv_bytes) / hbm_bytes_s,
            communication_s=communication_s(batch),
        )

    decode = decode_at(batch)
    ttft_s = dep.pp * prefill.stage_s
    tpot_s = dep.pp * decode.stage_s
    decode_per_gpu = batch / tpot_s / dep.replica_gpus
    per_mw = (decode_per_gpu * fabric.gpus / (facility_kw / 1000.0)) if facility_kw > 0 else None
    out_tokens = workload.requests.mean_output_tokens
    request_gpu_s = (ttft_s + out_tokens * tpot_s / batch) * dep.replica_gpus
    usd_per_million = (usd_per_gpu_hour / 3600.0 * request_gpu_s / out_tokens * 1e6
                       if usd_per_gpu_hour is not None else None)
    meets = ttft_s * 1e3 <= workload.slo.ttft_ms and tpot_s * 1e3 <= workload.slo.tpot_ms
    if not meets:
        diagnostics.append(Diagnostic(
            "SLO_MISSED",
            f"inference.slo: TTFT {ttft_s * 1e3:,.0f} ms (target {workload.slo.ttft_ms:,.0f}), "
            f"TPOT {tpot_s * 1e3:,.1f} ms (target {workload.slo.tpot_ms:,.1f}) at batch {batch:,}"))
    ttft_ms = ttft_s * 1e3
    curve = tuple(_curve_point(b, ttft_ms, dep.pp * decode_at(b).stage_s, dep.replica_gpus, out_tokens,
                               workload)
                  for b in _curve_batches(batch, max_concurrency))
    return InferenceResult(
        runs=True, cannot_run=(), diagnostics=tuple(diagnostics), curve=curve,
        kv_cache_gb_per_gpu=free_bytes / 1e9, max_concurrency_per_replica=max_concurrency,
        batch=batch, prefill=prefill, decode=decode,
        prefill_tokens_per_s_per_gpu=s_in / ttft_s / dep.replica_gpus,
        decode_tokens_per_s_per_gpu=decode_per_gpu, ttft_ms=ttft_s * 1e3, tpot_ms=tpot_s * 1e3,
        tokens_per_s_per_mw=per_mw, meets_slo=meets, usd_per_million_output_tokens=usd_per_million,
        **base)


@dataclass(frozen=True)
class CurvePoint:
    """The deployment at one decode batch: latency and throughput, and whether both SLOs hold."""

    batch: int
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_user: float  # 1000 / TPOT: how fast one answer streams
    decode_tokens_per_s_per_gpu: float
    output_tokens_per_s_per_gpu: float  # with each request's prefill counted on the same GPUs
    meets_slo: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _curve_batches(batch: int, max_concurrency: int) -> list[int]:
    """Powers of two up to what the KV cache holds, the chosen batch and the largest one."""
    sizes = {batch, max_concurrency}
    size = 1
    while size < max_concurrency:
        sizes.add(size)
        size *= 2
    return sorted(sizes)


def _curve_point(batch: int, ttft_ms: float, tpot_s: float, replica_gpus: int, out_tokens: float,
                 workload: InferenceWorkload) -> CurvePoint:
    request_gpu_s = (ttft_ms / 1e3 + out_tokens * tpot_s / batch) * replica_gpus
    return CurvePoint(batch, ttft_ms, tpot_s * 1e3, 1.0 / tpot_s, batch / tpot_s / replica_gpus,
                      out_tokens / request_gpu_s,
                      ttft_ms <= workload.slo.ttft_ms and tpot_s * 1e3 <= workload.slo.tpot_ms)


def _experts_touched(workload: InferenceWorkload, batch: int) -> float:
    """Expected fraction of a GPU's routed experts one decode step reads: each of the EP group's
    tokens picks top_k of the experts (uniform routing assumed, E)."""
    moe, dep = workload.model.moe, workload.deployment.decode
    if not moe.enabled:
        return 1.0
    tokens = batch * max(1.0, dep.ep / dep.tp)
    return 1.0 - (1.0 - moe.top_k / moe.experts) ** tokens


def not_modelled_yet(workload: InferenceWorkload) -> Diagnostic | None:
    """What the serving model does not cover yet, said instead of computed."""
    if workload.deployment.disaggregated:
        what = "disaggregated prefill/decode"
    elif workload.kv_cache.placement != "hbm":
        what = f"a KV cache in {workload.kv_cache.placement} memory"
    else:
        return None
    return Diagnostic("INFERENCE_NOT_MODELLED", f"inference: {what} is not modelled yet")


def _cannot_run(fabric: FabricView, workload: InferenceWorkload, weights_per_gpu: float,
                a: InferenceAssumptions) -> tuple[Diagnostic, ...]:
    accel, dep = fabric.accelerator, workload.deployment.decode
    reasons: list[Diagnostic] = []
    table = accel["tflops_dense"]
    if not table.get(workload.precision):
        reasons.append(Diagnostic(
            "SERVING_PRECISION_UNSUPPORTED",
            f"inference.precision: {accel.id} has no dense {workload.precision} TFLOPs in the "
            f"catalog (it has {', '.join(p for p, v in table.items() if v)})"))
    if dep.gpus > fabric.gpus:
        reasons.append(Diagnostic(
            "PARALLELISM_EXCEEDS_GPUS",
            f"inference.deployment: tp x pp x dp = {dep.gpus:,} GPUs, the design connects "
            f"{fabric.gpus:,}"))
    usable = float(accel["hbm_gb"]) * 1e9 * (1.0 - a.activation_reserve_fraction)
    if weights_per_gpu > usable:
        reasons.append(Diagnostic(
            "DOES_NOT_FIT_MEMORY",
            f"inference.deployment: {weights_per_gpu / 1e9:,.1f} GB of {workload.precision} "
            f"weights per GPU exceed the {usable / 1e9:,.1f} GB {accel.id} leaves after its "
            f"{a.activation_reserve_fraction:.0%} activation reserve"))
    return tuple(reasons)

