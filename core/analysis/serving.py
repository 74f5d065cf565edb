"""Serving ONE deployment of an inference workload on a design (every form of the workload
schema but "auto", which ``core/analysis/inference.py`` gives to the deployment search): its
weights and KV cache per GPU, prefill and decode step times, TTFT and TPOT at the chosen load,
tokens per second per GPU, per MW of the design filled with copies of the layout, cost per
million output tokens, and the throughput-latency curve (the same deployment at every decode
batch up to what the KV cache holds). docs/reference/serving-model.md derives the model and
gives the sources of every outside figure.

Model (every simplification that moves a number is stated):

* Step times (``serving_phase.py``): per pipeline stage, compute = FLOPs / (tp GPUs x dense
  peak x efficiency), the linear layers at the weights' precision and attention at the KV
  cache's; HBM = bytes read / (bandwidth x efficiency), KV fetch = KV bytes brought from host
  memory or a remote prefix cache over their link; the three overlap (the largest binds), TP
  all-reduces, EP dispatch + combine and a fixed cost per layer are added. A replica keeps one
  micro-batch per pipeline stage in flight: a decode stage step is batch / pp sequences, a
  token pp stage steps apart; a prompt reaches its first token after pp prefill stage steps
  and occupies the replica for one.
* FLOPs per token = 2 x active parameters + attention over the context (causal prefill: half
  the score matrix; multi-head latent attention decodes in the absorbed form). Decode reads the
  GPU's weights (4-bit ones with their block scales) once per step (the routed experts in the
  expected fraction the step's tokens touch, uniform routing) and every sequence's KV cache.
* The load (``serving_load.py``): the decode batch B (the workload's, capped by the KV cache);
  a request is o decode steps (the mix's mean output, the first token counted as one).
  Aggregated replicas interleave whole-prompt prefills with decode steps (continuous batching,
  no chunked prefill): TPOT at load = d + B p / o, TTFT = the prompt's prefill + an
  M/G/1-with-vacations wait (Poisson arrivals). Disaggregated pools: TTFT = the wait for the
  prefill step in progress + the step + the KV hand-over (no queueing beyond one step), TPOT =
  the decode step, throughput = the smaller pool's requests/s x o; the pool that does not limit
  is taken at its full batch (its latency an upper bound). The unloaded TTFT (a prompt alone on
  an idle replica) is kept beside it.
* A request mix: prefill and TTFT per class; decode at the occupancy-weighted mean context;
  ``ttft_ms`` is the share-weighted mean over the classes, and the SLO holds only if every class
  meets the TTFT target (and TPOT its target).
* KV capacity per GPU = HBM x (1 - reserve) - weights (+ host memory per GPU, placement
  "host"); the requests a replica holds are at the occupancy-weighted mean full context (room
  for each to finish: no preemption), and the mix's longest request must fit alone.
  Host-resident KV (the batch's KV beyond the free HBM) is read over the host link every decode
  step, overlapped with the HBM reads. A remote prefix cache serves ``prefix_hit_rate`` of each
  prompt: prefill computes the rest and reads the served KV over the storage path, at the
  per-GPU read bandwidth the storage analysis gives when every GPU reads (its first-byte latency,
  ~0.1 ms, is left out).
* Disaggregated: the prefill pool's GPUs then the decode pool's, one after the other on the
  design's GPU numbering; the KV hand-over crosses the innermost fabric level that holds both, at
  its effective per-GPU bandwidth x ``kv_transfer_efficiency`` (the prefill GPUs all send at
  once, so a step's prompts share their links).
* Per MW and cost: the design filled with whole copies of the layout (lcm(tp, ep) x pp GPUs,
  or both pools of a disaggregated deployment); leftover GPUs serve nothing but draw power and
  cost money, so $/M output tokens = $/GPU-hour x the design's GPUs / its output tokens.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from core.analysis.collectives import p2p_time_s
from core.assumptions.inference import InferenceAssumptions
from core.analysis.serving_load import (LoadPoint, MixShape, PrefillPool, aggregated_load,
                                        disaggregated_load, mix_shape)
from core.analysis.serving_phase import (KvTiers, PhaseModel, PhaseTime, kv_bytes_per_token,
                                         model_shape, phase_model, unit_gpus)
from core.catalog import ComponentSpec
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload, KvCacheSpec, PhaseLayout

# kept importable from here: the analysis and its callers take the model's shape from serving
__all__ = ["InferenceResult", "CurvePoint", "ClassFigures", "PoolFigures", "Disaggregation",
           "KvPlacement", "PhaseTime", "serve_deployment", "model_shape", "kv_bytes_per_token"]


@dataclass(frozen=True)
class ClassFigures:
    """One class of the request mix at the chosen load."""

    input_tokens: int
    output_tokens: int
    share: float
    kv_gb_per_request: float  # the whole model's KV cache at the request's full context
    ttft_unloaded_ms: float  # its prompt alone on an idle replica (pool)
    ttft_ms: float  # at the chosen load
    meets_ttft_slo: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PoolFigures:
    """One pool of a disaggregated deployment at the chosen load."""

    gpus: int
    batch: int  # prefill: prompts per step; decode: sequences in flight per replica
    max_batch: int  # what its KV cache holds per replica
    weights_gb_per_gpu: float
    kv_cache_gb_per_gpu: float  # HBM left for the KV cache
    step_ms: float  # one step at its batch (prefill: the mean prompt mix)
    requests_per_s: float  # what the pool alone could serve
    utilisation: float  # the deployment's requests/s over the pool's

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Disaggregation:
    """How the two pools of a disaggregated deployment meet."""

    prefill: PoolFigures
    decode: PoolFigures
    limited_by: str  # "prefill" or "decode": the pool with the fewer requests/s
    # prefill GPUs per decode GPU at which both pools serve the same requests/s (same layouts)
    balanced_prefill_per_decode_gpu: float
    kv_transfer_ms: float  # the hand-over of a prefill step's KV cache, mean over the classes
    kv_transfer_level: str  # the fabric level both pools span

    def to_json(self) -> dict:
        return {"prefill": self.prefill.to_json(), "decode": self.decode.to_json(),
                "limited_by": self.limited_by,
                "balanced_prefill_per_decode_gpu": self.balanced_prefill_per_decode_gpu,
                "kv_transfer_ms": self.kv_transfer_ms, "kv_transfer_level": self.kv_transfer_level}


@dataclass(frozen=True)
class KvPlacement:
    """Where the KV cache lives and what that costs at the chosen load."""

    placement: str  # "hbm", "host" or "remote"
    host_gb_per_gpu: float = 0.0
    host_link_gbyte_s: float | None = None  # the link's rate per direction (before efficiency)
    host_kv_gb_per_gpu: float = 0.0  # the decode batch's KV beyond the free HBM, read every step
    prefix_hit_rate: float = 0.0
    storage_read_gbyte_s_per_gpu: float | None = None  # rated, every GPU reading

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class CurvePoint:
    """The deployment at one decode batch: latency and throughput at that load, and whether
    every class meets both SLOs."""

    batch: int
    ttft_ms: float  # at load, share-weighted mean over the classes
    tpot_ms: float  # at load (aggregated: with the prefills interleaved)
    tokens_per_s_per_user: float  # 1000 / TPOT: how fast one answer streams
    decode_tokens_per_s_per_gpu: float  # decode steps only, per GPU of the (decode) replica
    output_tokens_per_s_per_gpu: float  # served output tokens, prefill counted, all GPUs
    meets_slo: bool
    ttft_max_ms: float  # the slowest class's TTFT

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class InferenceResult:
    workload: InferenceWorkload
    runs: bool
    cannot_run: tuple[Diagnostic, ...]
    diagnostics: tuple[Diagnostic, ...]
    total_params: float
    active_params: float
    weights_gb_per_gpu: float | None  # the decode replica's (disaggregated: see ``disaggregated``)
    kv_bytes_per_token: float  # whole model, one token of context
    kv_cache_gb_per_gpu: float | None  # HBM left for the KV cache (None: the weights do not fit)
    max_concurrency_per_replica: int | None
    batch: int | None  # concurrent requests per (decode) replica actually served
    prefill: PhaseTime | None = None  # one stage step: a mean prompt (disaggregated: a mean step)
    decode: PhaseTime | None = None  # one stage step at ``batch``: one micro-batch of batch / pp
    prefill_tokens_per_s_per_gpu: float | None = None  # prompt tokens per second of prefill
    decode_tokens_per_s_per_gpu: float | None = None  # decode steps only (no prefill counted)
    ttft_ms: float | None = None  # at the chosen load, share-weighted mean over the classes
    tpot_ms: float | None = None  # at the chosen load
    tokens_per_s_per_mw: float | None = None  # output tokens, the design filled with the layout
    meets_slo: bool | None = None  # every class within the TTFT target, and TPOT within its own
    usd_per_million_output_tokens: float | None = None
    assumptions: InferenceAssumptions = field(default_factory=InferenceAssumptions)
    # the deployment at every batch up to what the KV cache holds (empty when it cannot run)
    curve: tuple[CurvePoint, ...] = ()
    ttft_unloaded_ms: float | None = None  # a prompt alone on an idle replica, mean over classes
    decode_step_ms: float | None = None  # one decode step at ``batch``, no prefill interleaved
    output_tokens_per_s_per_gpu: float | None = None  # served, prefill counted, every GPU
    prefill_time_fraction: float | None = None  # aggregated: share of replica time in prefill
    serving_gpus_in_design: int | None = None  # GPUs of the whole copies of the layout that fit
    design_output_tokens_per_s: float | None = None
    classes: tuple[ClassFigures, ...] = ()
    kv_placement: KvPlacement | None = None
    disaggregated: Disaggregation | None = None

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
            "ttft_unloaded_ms": self.ttft_unloaded_ms,
            "ttft_ms_by_class": [c.ttft_ms for c in self.classes] if self.classes else None,
            "classes": [c.to_json() for c in self.classes],
            "decode_step_ms": self.decode_step_ms,
            "output_tokens_per_s_per_gpu": self.output_tokens_per_s_per_gpu,
            "prefill_time_fraction": self.prefill_time_fraction,
            "serving_gpus_in_design": self.serving_gpus_in_design,
            "design_output_tokens_per_s": self.design_output_tokens_per_s,
            "kv_placement": self.kv_placement.to_json() if self.kv_placement is not None else None,
            "disaggregated": self.disaggregated.to_json() if self.disaggregated is not None else None,
        }


def serve_deployment(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                     assumptions: InferenceAssumptions | None = None,
                     usd_per_gpu_hour: float | None = None, *,
                     storage_read_gbyte_s_per_gpu: float | None = None,
                     curve: bool = True) -> InferenceResult:
    """Serve ``workload`` (its deployment as written, never "auto") on ``fabric`` (the design's
    GPUs and network as the training model sees them); ``facility_kw`` is the design's facility
    power, for tokens per second per MW; ``usd_per_gpu_hour`` (the cost analysis's, None when
    unpriced) prices the output tokens; ``storage_read_gbyte_s_per_gpu`` (the storage
    analysis's bulk read per GPU, None without storage) feeds a remote prefix cache.
    ``curve=False`` leaves out the throughput-latency curve (empty): the deployment search's
    probes of one batch read only the figures at it, and the curve is half a call's time."""
    a = assumptions or InferenceAssumptions()
    dep = workload.deployment
    tiers, placement, tier_reasons = _kv_tiers(fabric.accelerator, workload.kv_cache, a,
                                               storage_read_gbyte_s_per_gpu)
    decode = phase_model(fabric, workload, dep.decode, a, tiers)
    prefill = phase_model(fabric, workload, dep.prefill, a, tiers) if dep.disaggregated else decode
    base = dict(workload=workload, total_params=decode.shape.total_params,
                active_params=decode.shape.active_params, weights_gb_per_gpu=decode.weights_bytes / 1e9,
                kv_bytes_per_token=decode.shape.kv_bytes_per_token, assumptions=a,
                kv_cache_gb_per_gpu=decode.hbm_free_bytes / 1e9 if decode.hbm_free_bytes > 0 else None)
    mix = mix_shape(workload.requests)
    blocked = (*_cannot_run(fabric, workload, prefill, decode, a), *tier_reasons)
    if not blocked:
        blocked = _kv_does_not_fit(workload, mix, prefill, decode)
    if blocked:
        return InferenceResult(runs=False, cannot_run=blocked, diagnostics=(),
                               max_concurrency_per_replica=None, batch=None, **base)

    diagnostics: list[Diagnostic] = []
    held = decode.requests_held(mix.held_context_tokens)
    batch = _capped(dep.decode.batch, held, "inference.deployment.decode.batch" if dep.disaggregated
                    else "inference.deployment.batch",
                    f"requests of {mix.held_context_tokens:,.0f} tokens per replica", diagnostics)
    plan = (_disaggregated_plan(fabric, workload, mix, prefill, decode, a, diagnostics)
            if dep.disaggregated else _aggregated_plan(workload, mix, decode))
    load = plan.load_at(batch)
    slo = workload.slo
    ttft_ms = tuple(t * 1e3 for t in load.ttft_s_by_class)
    meets = max(ttft_ms) <= slo.ttft_ms and load.tpot_s * 1e3 <= slo.tpot_ms
    if not meets:
        diagnostics.append(_slo_missed(workload, mix, load, ttft_ms))
    output_per_gpu = load.output_tokens_per_s / dep.gpus
    unit = dep.gpus if dep.disaggregated else unit_gpus(dep.decode)
    serving_gpus = fabric.gpus // unit * unit
    design_tokens_s = output_per_gpu * serving_gpus
    classes = tuple(
        ClassFigures(i, o, w, decode.shape.kv_bytes_per_token * (i + o) / 1e9, u * 1e3, t,
                     t <= slo.ttft_ms)
        for i, o, w, u, t in zip(mix.input_tokens, mix.output_tokens, mix.shares, plan.unloaded_s, ttft_ms))
    disaggregation = None
    if plan.pool is not None:
        disaggregation = _disaggregation(workload, mix, prefill, decode, plan, load, held, diagnostics)
    return InferenceResult(
        runs=True, cannot_run=(), diagnostics=tuple(diagnostics),
        curve=tuple(_curve_point(plan.load_at(b), workload, decode, dep.gpus)
                    for b in _curve_batches(batch, held)) if curve else (),
        max_concurrency_per_replica=held, batch=batch, prefill=plan.prefill_phase,
        decode=decode.decode_step(batch, mix.decode_context_tokens),
        prefill_tokens_per_s_per_gpu=plan.prefill_tokens_per_s / dep.prefill.replica_gpus,
        decode_tokens_per_s_per_gpu=batch / load.decode_step_s / dep.decode.replica_gpus,
        ttft_ms=load.ttft_s * 1e3, tpot_ms=load.tpot_s * 1e3,
        tokens_per_s_per_mw=design_tokens_s / (facility_kw / 1000.0) if facility_kw > 0 else None,
        meets_slo=meets,
        usd_per_million_output_tokens=(usd_per_gpu_hour / 3600.0 * fabric.gpus / design_tokens_s * 1e6
                                       if usd_per_gpu_hour is not None else None),
        ttft_unloaded_ms=mix.mean(plan.unloaded_s) * 1e3, decode_step_ms=load.decode_step_s * 1e3,
        output_tokens_per_s_per_gpu=output_per_gpu, prefill_time_fraction=load.prefill_time_fraction,
        serving_gpus_in_design=serving_gpus, design_output_tokens_per_s=design_tokens_s,
        classes=classes, disaggregated=disaggregation,
        kv_placement=_placement_at(placement, decode, batch, mix),
        **base)


@dataclass(frozen=True)
class _Plan:
    """What the load model needs of the deployment, built once: the load at any decode batch,
    each class's TTFT alone, the mean prefill step, and the prompt tokens a prefill replica
    processes per second of prefill (the pool and its hand-over level when disaggregated)."""

    load_at: Callable[[int], LoadPoint]
    unloaded_s: tuple[float, ...]
    prefill_phase: PhaseTime
    prefill_tokens_per_s: float
    pool: PrefillPool | None = None
    handover_level: str = ""


def _aggregated_plan(workload: InferenceWorkload, mix: MixShape, replica: PhaseModel) -> _Plan:
    """Each replica prefills one prompt at a time between its decode steps."""
    alone = tuple(replica.step_s(replica.prefill_step(replica.prompt_flops_at_weight_peak(i), i))
                  for i in mix.input_tokens)
    stages = replica.layout.pp
    coupled = coupled_ranks(workload, replica.layout)

    def load_at(batch: int) -> LoadPoint:
        return aggregated_load(mix, batch, _decode_s(replica, mix, batch), alone,
                               workload.deployment.decode.dp, stages, coupled)

    # the prefill rate: a prompt occupies the replica for one stage step (pipelined)
    return _Plan(load_at, alone, _mean_prefill(replica, mix, 1),
                 mix.mean_input_tokens * stages / mix.mean(alone))


def _disaggregated_plan(fabric: FabricView, workload: InferenceWorkload, mix: MixShape,
                        prefill: PhaseModel, decode: PhaseModel, a: InferenceAssumptions,
                        diagnostics: list[Diagnostic]) -> _Plan:
    """The prefill pool at its batch (capped by the prompts' KV it holds until handed over),
    its hand-over to the decode pool, and the decode pool at any batch."""
    layout = workload.deployment.prefill
    prompts = _capped(layout.batch, prefill.requests_held(mix.mean_input_tokens),
                      "inference.deployment.prefill.batch",
                      f"prompts of {mix.mean_input_tokens:,.0f} tokens per prefill replica", diagnostics)
    flops = tuple(prefill.prompt_flops_at_weight_peak(i) for i in mix.input_tokens)
    others_flops, others_tokens = (prompts - 1) * mix.mean(flops), (prompts - 1) * mix.mean_input_tokens
    steps = tuple(prefill.step_s(prefill.prefill_step(f + others_flops, i + others_tokens))
                  for f, i in zip(flops, mix.input_tokens))
    transfers = tuple(_handover_s(fabric, prefill, decode, i + others_tokens, i, a)
                      for i in mix.input_tokens)
    mean_step = _mean_prefill(prefill, mix, prompts)
    pool = PrefillPool(layout.dp, prompts, steps, prefill.step_s(mean_step), transfers, layout.pp)
    alone = tuple(prefill.step_s(prefill.prefill_step(f, i)) + _handover_s(fabric, prefill, decode, i, i, a)
                  for f, i in zip(flops, mix.input_tokens))

    def load_at(batch: int) -> LoadPoint:
        return disaggregated_load(mix, batch, _decode_s(decode, mix, batch), workload.deployment.decode.dp,
                                  pool)

    level = fabric.levels[fabric.level_for_span(workload.deployment.gpus)].name
    return _Plan(load_at, alone, mean_step, prompts * mix.mean_input_tokens / pool.interval_s, pool, level)


def coupled_ranks(workload: InferenceWorkload, layout: PhaseLayout) -> int:
    """Replicas that step together because they share one EP group (attention data
    parallelism: ep / tp of them) and whose prefills the engine does not align
    (``attention_dp_balance``): 1 when each replica steps on its own."""
    if workload.attention_dp_balance or not workload.model.moe.enabled or layout.ep <= layout.tp:
        return 1
    return max(1, layout.ep // layout.tp)


def _decode_s(decode: PhaseModel, mix: MixShape, batch: int) -> float:
    return decode.step_s(decode.decode_step(batch, mix.decode_context_tokens))


def _mean_prefill(prefill: PhaseModel, mix: MixShape, prompts: int) -> PhaseTime:
    """A prefill step of ``prompts`` prompts of the mix's mean (FLOPs and tokens)."""
    flops = mix.mean(tuple(prefill.prompt_flops_at_weight_peak(i) for i in mix.input_tokens))
    return prefill.prefill_step(prompts * flops, prompts * mix.mean_input_tokens)


def _capped(asked: int, held: int, where: str, unit: str, diagnostics: list[Diagnostic]) -> int:
    """``asked``, or what the KV cache holds when that is fewer (and a warning saying so)."""
    if held >= asked:
        return asked
    diagnostics.append(Diagnostic(
        "KV_CACHE_LIMITS_BATCH",
        f"{where}: the KV cache holds {held:,} {unit}, not {asked:,}: the batch is {held:,}"))
    return held


def _handover_s(fabric: FabricView, prefill: PhaseModel, decode: PhaseModel, step_tokens: float,
                prompt_tokens: float, a: InferenceAssumptions) -> float:
    """The KV cache of a prefill step (``step_tokens`` of prompts) leaving the prefill GPUs,
    each sending its layers' and heads' share, while a decode GPU takes its share of one
    prompt (``prompt_tokens``); the slower side sets the time, over the innermost fabric level
    that holds both pools (the pools one after the other on the GPU numbering)."""
    per_gpu = max(step_tokens * prefill.kv_bytes_per_token, prompt_tokens * decode.kv_bytes_per_token)
    span = prefill.layout.gpus + decode.layout.gpus
    return p2p_time_s(fabric, per_gpu, span - 1, efficiency=a.kv_transfer_efficiency)


def _disaggregation(workload: InferenceWorkload, mix: MixShape, prefill: PhaseModel,
                    decode: PhaseModel, plan: _Plan, load: LoadPoint, held: int,
                    diagnostics: list[Diagnostic]) -> Disaggregation:
    dep, pool = workload.deployment, plan.pool
    prefill_rate, decode_rate = load.prefill_requests_per_s, load.decode_requests_per_s
    balanced = (decode_rate / dep.decode.gpus) / (prefill_rate / dep.prefill.gpus)
    limited_by = load.limited_by
    other_busy = min(load.requests_per_s / prefill_rate, load.requests_per_s / decode_rate)
    if other_busy < 0.9:
        other = "decode" if limited_by == "prefill" else "prefill"
        diagnostics.append(Diagnostic(
            "DISAGGREGATED_POOLS_UNBALANCED",
            f"inference.deployment: the {limited_by} pool limits ({min(prefill_rate, decode_rate):,.1f} "
            f"requests/s; the {other} pool could serve {max(prefill_rate, decode_rate):,.1f}): "
            f"{balanced:.2f} prefill GPUs per decode GPU would balance them "
            f"(this deployment has {dep.prefill.gpus / dep.decode.gpus:.2f})"))
    prefill_pool = PoolFigures(
        dep.prefill.gpus, pool.prompts_per_step, prefill.requests_held(mix.mean_input_tokens),
        prefill.weights_bytes / 1e9, max(0.0, prefill.hbm_free_bytes) / 1e9, pool.mean_step_s * 1e3,
        prefill_rate, load.requests_per_s / prefill_rate)
    decode_pool = PoolFigures(
        dep.decode.gpus, load.batch, held, decode.weights_bytes / 1e9, max(0.0, decode.hbm_free_bytes) / 1e9,
        load.decode_step_s * 1e3, decode_rate, load.requests_per_s / decode_rate)
    return Disaggregation(prefill_pool, decode_pool, limited_by, balanced,
                          mix.mean(pool.transfer_s_by_class) * 1e3, plan.handover_level)


def _slo_missed(workload: InferenceWorkload, mix: MixShape, load: LoadPoint,
                ttft_ms: tuple[float, ...]) -> Diagnostic:
    slo = workload.slo
    worst = max(range(len(ttft_ms)), key=ttft_ms.__getitem__)
    which = "" if len(ttft_ms) == 1 else (
        f" ({ttft_ms[worst]:,.0f} ms for the {mix.input_tokens[worst]:,}-in, "
        f"{mix.output_tokens[worst]:,}-out class)")
    return Diagnostic(
        "SLO_MISSED",
        f"inference.slo: TTFT {load.ttft_s * 1e3:,.0f} ms{which} (target {slo.ttft_ms:,.0f}), "
        f"TPOT {load.tpot_s * 1e3:,.1f} ms (target {slo.tpot_ms:,.1f}) at batch {load.batch:,}")


def _kv_tiers(accel: ComponentSpec, kv: KvCacheSpec, a: InferenceAssumptions,
              storage_read_gbyte_s_per_gpu: float | None
              ) -> tuple[KvTiers, KvPlacement, tuple[Diagnostic, ...]]:
    """The KV tiers of ``kv`` on ``accel``'s servers and the design's storage, or why not."""
    if kv.placement == "host":
        link = kv.host_link_gbyte_s if kv.host_link_gbyte_s is not None else accel.host_link_gbyte_s
        placement = KvPlacement("host", kv.host_gb_per_gpu, link)
        if link is None:
            return KvTiers(), placement, (Diagnostic(
                "HOST_LINK_UNKNOWN",
                f"inference.kv_cache.host_link_gbyte_s: the KV cache is in host memory but neither "
                f"the workload nor {accel.id}'s catalog entry gives the host link's GB/s per "
                "direction (set kv_cache.host_link_gbyte_s)"),)
        return (KvTiers(host_bytes=kv.host_gb_per_gpu * 1e9,
                        host_link_bytes_s=float(link) * 1e9 * a.host_link_efficiency), placement, ())
    if kv.placement == "remote":
        placement = KvPlacement("remote", prefix_hit_rate=kv.prefix_hit_rate,
                               storage_read_gbyte_s_per_gpu=storage_read_gbyte_s_per_gpu)
        if not storage_read_gbyte_s_per_gpu:
            return KvTiers(), placement, (Diagnostic(
                "NO_KV_STORAGE",
                "inference.kv_cache.placement: a remote prefix cache needs a storage tier the GPUs "
                "read from, and the storage analysis finds no storage read bandwidth for them (no "
                "storage in the design, or none it reaches)"),)
        return (KvTiers(prefix_hit_rate=kv.prefix_hit_rate,
                        storage_read_bytes_s=storage_read_gbyte_s_per_gpu * 1e9
                        * a.prefix_cache_read_efficiency), placement, ())
    return KvTiers(), KvPlacement("hbm"), ()


def _placement_at(placement: KvPlacement, decode: PhaseModel, batch: int, mix: MixShape) -> KvPlacement:
    """``placement`` with the host-resident KV of the decode batch (read every step)."""
    if placement.placement != "host":
        return placement
    kv = batch * mix.decode_context_tokens * decode.kv_bytes_per_token
    return replace(placement, host_kv_gb_per_gpu=max(0.0, kv - max(0.0, decode.hbm_free_bytes)) / 1e9)


def _curve_batches(batch: int, max_concurrency: int) -> list[int]:
    """Powers of two up to what the KV cache holds, the chosen batch and the largest one."""
    sizes = {batch, max_concurrency}
    size = 1
    while size < max_concurrency:
        sizes.add(size)
        size *= 2
    return sorted(sizes)


def _curve_point(load: LoadPoint, workload: InferenceWorkload, decode: PhaseModel,
                 gpus: int) -> CurvePoint:
    ttft_max = max(load.ttft_s_by_class)
    return CurvePoint(
        load.batch, load.ttft_s * 1e3, load.tpot_s * 1e3, 1.0 / load.tpot_s,
        load.batch / load.decode_step_s / decode.layout.replica_gpus, load.output_tokens_per_s / gpus,
        ttft_max * 1e3 <= workload.slo.ttft_ms and load.tpot_s * 1e3 <= workload.slo.tpot_ms,
        ttft_max * 1e3)


def _kv_does_not_fit(workload: InferenceWorkload, mix: MixShape, prefill: PhaseModel,
                     decode: PhaseModel) -> tuple[Diagnostic, ...]:
    """The longest request's KV cache (a prefill pool: its longest prompt's) must fit a GPU."""
    checks = [(decode, max(mix.input_tokens[i] + mix.output_tokens[i] for i in range(len(mix.shares))),
               "request")]
    if workload.deployment.disaggregated:
        checks.append((prefill, max(mix.input_tokens), "prompt (prefill pool)"))
    reasons = []
    for model, tokens, what in checks:
        need = model.kv_bytes_per_token * tokens
        if need > model.kv_capacity_bytes:
            host = " with its host memory" if model.tiers.host_bytes else ""
            reasons.append(Diagnostic(
                "DOES_NOT_FIT_MEMORY",
                f"inference: the KV cache of one {tokens:,}-token {what} ({need / 1e9:.1f} GB per "
                f"GPU) does not fit in the {model.kv_capacity_bytes / 1e9:.1f} GB the weights leave "
                f"on {model.fabric.accelerator.id}{host}"))
    return tuple(reasons)


def _cannot_run(fabric: FabricView, workload: InferenceWorkload, prefill: PhaseModel,
                decode: PhaseModel, a: InferenceAssumptions) -> tuple[Diagnostic, ...]:
    accel, dep = fabric.accelerator, workload.deployment
    reasons: list[Diagnostic] = []
    table = accel.tflops_dense
    if not table.get(workload.precision):
        reasons.append(Diagnostic(
            "SERVING_PRECISION_UNSUPPORTED",
            f"inference.precision: {accel.id} has no dense {workload.precision} TFLOPs in the "
            f"catalog (it has {', '.join(p for p, v in table.items() if v)})"))
    if dep.gpus > fabric.gpus:
        what = "prefill + decode pools" if dep.disaggregated else "tp x pp x dp"
        reasons.append(Diagnostic(
            "PARALLELISM_EXCEEDS_GPUS",
            f"inference.deployment: {what} = {dep.gpus:,} GPUs, the design connects {fabric.gpus:,}"))
    elif dep.disaggregated and fabric.levels[fabric.level_for_span(dep.gpus)].effective_gbyte_s <= 0:
        level = fabric.levels[fabric.level_for_span(dep.gpus)]
        reasons.append(Diagnostic(
            "NO_NETWORK_BANDWIDTH",
            f"inference.deployment: the prefill and decode pools ({dep.gpus:,} GPUs, one after the "
            f"other) span the {level.name} level, which has no bandwidth: the KV cache cannot be "
            "handed over"))
    usable = accel.hbm_capacity_gb * 1e9 * (1.0 - a.activation_reserve_fraction)
    pools = (("inference.deployment.prefill", prefill), ("inference.deployment.decode", decode)) \
        if dep.disaggregated else (("inference.deployment", decode),)
    for where, model in pools:
        if model.weights_bytes > usable:
            reasons.append(Diagnostic(
                "DOES_NOT_FIT_MEMORY",
                f"{where}: {model.weights_bytes / 1e9:,.1f} GB of {workload.precision} "
                f"weights per GPU exceed the {usable / 1e9:,.1f} GB {accel.id} leaves after its "
                f"{a.activation_reserve_fraction:.0%} activation reserve"))
        if dep.gpus <= fabric.gpus and not math.isfinite(model.communication_s(1.0)):
            layout = model.layout
            reasons.append(Diagnostic(
                "NO_NETWORK_BANDWIDTH",
                f"{where}: a network level the TP all-reduces or EP all-to-alls of TP {layout.tp}, "
                f"EP {layout.ep} cross has no bandwidth: the step cannot complete"))
    return tuple(reasons)
