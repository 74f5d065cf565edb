"""What limits an inference deployment, phase by phase, and which single change would help most
(issue 15: "decode is HBM-bound; FP8 KV cache would give +38% tokens/s").

**Limiters.** Each phase's stage step as the roofline splits it (serving.py's PhaseTime): the
binding one of compute and HBM reads (the other overlaps it) and the communication added to
it, each with its share of the step and of a request's GPU time (its prefill, then its share of
the decode steps: the time output tokens per GPU are the inverse of). Decode's HBM bytes are
split into weights and KV cache by measurement, not re-derived: the same deployment at the same
batch with the KV cache at half the width (at twice the width for FP4) is served again and the
change in HBM time scaled to the whole KV cache (the roofline reads the KV cache in proportion to
its bytes).

**What-ifs**, each served again by serve_deployment (never extrapolated), one change at a time:
the KV cache in FP8 and the weights in FP8 or FP4 (where the accelerator has that precision), TP
doubled or halved (the replicas refilling the same GPUs), EP doubled (MoE), the batch doubled
(where the KV cache holds it), aggregated <-> disaggregated, and a host-memory KV cache.
Batches: for "auto" the batch is the search's to choose, so each variant is served at its own
best batch under the SLOs (serve_at_best_batch); a fixed deployment keeps its requests in
flight (the batch per replica scaled when the replicas change).

Each what-if reports its output tokens per second of the service against the deployment's
(``gain``) and whether it still meets both SLOs; the ones that meet them come first, most gain
first. The result has the training BottleneckResult's JSON shape (``bottleneck``: primary,
summary, limiters, what_ifs, best, layout_search; ``mfu`` null) with the serving figures added,
so the reports and the GUI's bottleneck paragraph read either.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.analysis.inference import InferenceAnalysis
from core.analysis.inference_ranking import phase_parts, request_gpu_seconds, slo_misses
from core.analysis.inference_search import fill_replicas, serve_at_best_batch, split_into_pools
from core.analysis.serving import InferenceResult, PhaseTime
from core.analysis.serving_context import ServedFigures, replace_batch, served_figures, with_deployment
from core.fabric import FabricView
from core.inference_workload import PRECISION_BYTES, Deployment, InferenceWorkload, KvCacheSpec

# What-ifs below this gain in output tokens per second (fraction) are "no material change".
MATERIAL_GAIN = 0.01
# Host memory per GPU the host-KV-cache what-if offers: the smaller of two common servers (P:
# NVIDIA DGX H100 datasheet, 2 TB of system memory for 8 GPUs = 256 GB; GB200 NVL72 datasheet,
# 480 GB of LPDDR5X per Grace CPU for its 2 GPUs = 240 GB).
WHAT_IF_HOST_GB_PER_GPU = 240.0
# The KV width the weights/KV split is measured with: half the bytes, twice for FP4.
_NARROWER_KV = {"bf16": "fp8", "fp16": "fp8", "fp8": "fp4", "int8": "fp4", "fp4": "fp8"}
_PART_NAMES = {"compute": "compute", "memory": "HBM reads", "kv_fetch": "KV-cache fetch",
               "communication": "communication", "fixed": "fixed per-layer costs"}


@dataclass(frozen=True)
class InferenceLimiter:
    """One part of a phase's stage step: ``share`` of the step, ``gpu_time_share`` of a
    request's GPU time."""

    key: str  # "decode_memory", "prefill_compute", "decode_communication"...
    name: str
    phase: str
    seconds: float  # per stage step
    share: float
    gpu_time_share: float
    text: str

    def to_json(self) -> dict:
        return {"key": self.key, "name": self.name, "phase": self.phase, "seconds": self.seconds,
                "share": self.share, "gpu_time_share": self.gpu_time_share,
                "mfu_if_removed": None, "text": self.text}


@dataclass(frozen=True)
class InferenceWhatIf(ServedFigures):
    """One change served again: its throughput against the deployment's (``gain``, a fraction;
    None when it cannot run) and whether it meets both SLOs."""

    key: str = ""
    description: str = ""
    kind: str = ""  # "precision", "layout", "batch", "mode", "kv_cache"
    gain: float | None = None
    weights_gb_per_gpu: float | None = None
    text: str = ""
    changes: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"key": self.key, "description": self.description, "kind": self.kind,
                "mfu": None, "mfu_gain": None, **super().to_json(),
                "step_time_s": self.tpot_ms / 1e3 if self.tpot_ms is not None else None,
                "tokens_per_s": self.output_tokens_per_s, "gain": self.gain,
                "fits_memory": self.runs, "memory_per_gpu_gb": self.weights_gb_per_gpu,
                "text": self.text, "changes": dict(self.changes)}


@dataclass(frozen=True)
class InferenceBottleneck:
    """What binds each phase and the what-ifs, as BottleneckResult has them for training."""

    output_tokens_per_s_per_gpu: float
    output_tokens_per_s: float  # the whole service
    primary: str  # name of the largest limiter
    summary: str
    limiters: tuple[InferenceLimiter, ...]  # largest share of a request's GPU time first
    what_ifs: tuple[InferenceWhatIf, ...]  # meeting the SLOs first, most gain first
    best: InferenceWhatIf | None  # the change that helps most within the SLOs (None: none does)
    kv_share_of_decode_bytes: float | None  # None when it could not be measured
    layout_search: tuple = ()  # "auto": the search's candidates, the winner first

    def to_json(self) -> dict:
        return {
            "kind": "inference",
            "layout_search": [c.to_json() for c in self.layout_search],
            "mfu": None, "step_time_s": None, "ideal_compute_s": None,
            "output_tokens_per_s_per_gpu": self.output_tokens_per_s_per_gpu,
            "output_tokens_per_s": self.output_tokens_per_s,
            "kv_share_of_decode_bytes": self.kv_share_of_decode_bytes,
            "primary": self.primary, "summary": self.summary,
            "limiters": [x.to_json() for x in self.limiters],
            "what_ifs": [x.to_json() for x in self.what_ifs],
            "best": self.best.to_json() if self.best is not None else None,
        }


# ------------------------------------------------------------------------------------------


class _Base:
    """The deployment served and how to serve a variant of it."""

    def __init__(self, analysis: InferenceAnalysis):
        self.context, self.fabric = analysis.context, analysis.context.fabric
        self.result = analysis.result
        self.workload = analysis.result.workload  # with the deployment served
        self.auto = analysis.search is not None
        self.gpus = analysis.search.available_gpus if analysis.search is not None else self.workload.deployment.gpus
        self.per_gpu = self.result.output_tokens_per_s_per_gpu
        self.service = self.per_gpu * self.workload.deployment.gpus

    def serve(self, workload: InferenceWorkload, batch_as_written: bool = False) -> InferenceResult:
        """The variant at the batch the base's rule gives it (module docstring)."""
        if self.auto and not batch_as_written:
            return serve_at_best_batch(self.context, workload)
        return self.context.serve(workload)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _supports(fabric: FabricView, precision: str) -> bool:
    return bool(fabric.accelerator.tflops_dense.get(precision))


def _kv_share(base: _Base) -> float | None:
    """The KV cache's share of decode's HBM time, measured (module docstring)."""
    w, decode = base.workload, base.result.decode
    narrower = _NARROWER_KV[w.kv_cache_precision]
    ratio = PRECISION_BYTES[narrower] / PRECISION_BYTES[w.kv_cache_precision]
    probe = base.context.serve(with_deployment(replace(w, kv_cache_precision=narrower),
                                               replace_batch(w.deployment, base.result.batch)))
    if not probe.runs or probe.batch != base.result.batch or decode.memory_s <= 0:
        return None
    kv_s = (decode.memory_s - probe.decode.memory_s) / (1.0 - ratio)
    share = kv_s / decode.memory_s
    return share if -1e-9 <= share <= 1.0 + 1e-9 else None


def _limiters(base: _Base, kv_share: float | None) -> list[InferenceLimiter]:
    r, dep = base.result, base.workload.deployment
    prefill_gpu_s, decode_gpu_s = request_gpu_seconds(r)
    total = prefill_gpu_s + decode_gpu_s
    out: list[InferenceLimiter] = []
    for phase, step, layout, weight in (("prefill", r.prefill, dep.prefill, prefill_gpu_s / total),
                                        ("decode", r.decode, dep.decode, decode_gpu_s / total)):
        stage = step.stage_s
        if stage <= 0:
            continue
        for part, seconds in phase_parts(step).items():
            if seconds > 0:
                out.append(InferenceLimiter(
                    f"{phase}_{part}", f"{phase} {_PART_NAMES[part]}", phase, seconds, seconds / stage,
                    seconds / stage * weight,
                    _limiter_text(phase, part, step, layout, r, kv_share if phase == "decode" else None,
                                  weight)))
    out.sort(key=lambda x: -x.gpu_time_share)
    return out


def _limiter_text(phase: str, part: str, step: PhaseTime, layout, r: InferenceResult,
                  kv_share: float | None, weight: float) -> str:
    bound_s = step.stage_s - step.communication_s - step.fixed_s
    ms = f"{bound_s * 1e3:,.2f} ms of the {step.stage_s * 1e3:,.2f} ms stage step"
    where = f" at batch {r.batch:,}" if phase == "decode" else ""
    context = f"{phase} takes {_pct(weight)} of a request's GPU time"
    if part == "communication":
        groups = [f"TP {layout.tp} all-reduces"] if layout.tp > 1 else []
        if layout.ep > 1:
            groups.append(f"EP {layout.ep} dispatch and combine")
        return (f"{' and '.join(groups) or 'collectives'} add {step.communication_s * 1e3:,.2f} ms to "
                f"the {step.stage_s * 1e3:,.2f} ms {phase} stage step (not overlapped); {context}")
    if part == "fixed":
        return (f"the layers' fixed costs (kernel launches, tails, syncs) add {step.fixed_s * 1e3:,.2f} ms "
                f"to the {step.stage_s * 1e3:,.2f} ms {phase} stage step{where}; {context}")
    if part == "memory":
        split = (f": weights {_pct(1 - kv_share)}, KV cache {_pct(kv_share)} of the bytes"
                 if kv_share is not None else "")
        return (f"{phase} is HBM-bound{split} ({ms}{where}; compute {step.compute_s * 1e3:,.2f} ms); "
                f"{context}")
    if part == "kv_fetch":
        return (f"{phase} waits for the KV cache from host memory or storage ({ms}{where}; HBM "
                f"{step.memory_s * 1e3:,.2f} ms, compute {step.compute_s * 1e3:,.2f} ms); {context}")
    return (f"{phase} is compute-bound ({ms}{where}; HBM reads {step.memory_s * 1e3:,.2f} ms); {context}")


# --- what-ifs ---------------------------------------------------------------------------------


def _variants(base: _Base) -> list[tuple[str, str, str, InferenceWorkload | None, dict]]:
    """(key, description, kind, variant workload, changes); the variant None when it is built
    by a search of its own (disaggregated)."""
    w, fabric = base.workload, base.fabric
    out: list[tuple[str, str, str, InferenceWorkload | None, dict]] = []
    kv = w.kv_cache_precision
    if PRECISION_BYTES[kv] > 1 and _supports(fabric, "fp8"):
        out.append(("kv_fp8", f"the KV cache in FP8 instead of {kv.upper()}", "precision",
                    replace(w, kv_cache_precision="fp8"), {"kv_cache_precision": "fp8"}))
    for precision in ("fp8", "fp4"):
        if PRECISION_BYTES[w.precision] > PRECISION_BYTES[precision] and _supports(fabric, precision):
            out.append((f"weights_{precision}", f"the weights in {precision.upper()} instead of "
                        f"{w.precision.upper()}", "precision", replace(w, precision=precision),
                        {"precision": precision}))
    out.extend(_layout_variants(base))
    batch = base.result.batch
    if 2 * batch <= (base.result.max_concurrency_per_replica or 0):
        out.append(("batch_x2", f"batch {2 * batch:,} per replica instead of {batch:,}", "batch",
                    with_deployment(w, replace_batch(w.deployment, 2 * batch)), {"batch": 2 * batch}))
    if w.deployment.disaggregated:
        d = w.deployment.decode
        dp = fill_replicas(base.gpus, d.tp, d.pp, d.ep)
        if dp >= 1:
            out.append(("aggregated", "aggregated serving (the decode layout prefilling too)", "mode",
                        with_deployment(w, Deployment.aggregated(d.tp, d.pp, d.ep, dp, d.batch)),
                        {"mode": "aggregated"}))
    elif w.deployment.gpus >= 2:
        out.append(("disaggregated", "disaggregated prefill and decode pools of the same layout",
                    "mode", None, {"mode": "disaggregated"}))
    if w.kv_cache.placement == "hbm":
        host = KvCacheSpec("host", WHAT_IF_HOST_GB_PER_GPU)
        out.append(("kv_host", f"the KV cache spilling to {WHAT_IF_HOST_GB_PER_GPU:g} GB of host memory "
                    "per GPU", "kv_cache", replace(w, kv_cache=host),
                    {"kv_cache": {"placement": "host", "host_gb_per_gpu": WHAT_IF_HOST_GB_PER_GPU}}))
    return out


def _layout_variants(base: _Base) -> list[tuple[str, str, str, InferenceWorkload, dict]]:
    """TP doubled and halved, EP doubled, on the decode layout (the whole replica when
    aggregated): "auto" refills the GPUs it was given (as the search does), a fixed deployment
    keeps its GPUs and its requests in flight."""
    w = base.workload
    dep, d, model = w.deployment, w.deployment.decode, w.model
    out = []

    def add(key: str, description: str, tp: int, ep: int) -> None:
        if model.heads % tp or (model.moe.enabled and w.expert_slots % ep):
            return
        if base.auto:  # the decode pool refills what the prefill pool leaves
            pool_gpus = base.gpus - (dep.prefill.gpus if dep.disaggregated else 0)
            dp, batch = fill_replicas(pool_gpus, tp, d.pp, ep), d.batch
        else:
            dp = d.tp * d.dp // tp if (d.tp * d.dp) % tp == 0 else 0
            dp = dp if dp and (tp * dp) % ep == 0 else 0
            batch = max(1, d.batch * d.dp // dp) if dp else d.batch
        if dp < 1:
            return
        layout = replace(d, tp=tp, ep=ep, dp=dp, batch=batch)
        deployment = (replace(dep, decode=layout) if dep.disaggregated
                      else Deployment("aggregated", layout, layout))
        out.append((key, description, "layout", with_deployment(w, deployment),
                    {"tp": tp, "ep": ep, "dp": dp}))

    add(f"tp{2 * d.tp}", f"TP {2 * d.tp} instead of {d.tp}", 2 * d.tp, d.ep)
    if d.tp > 1:
        add(f"tp{d.tp // 2}", f"TP {d.tp // 2} instead of {d.tp}", d.tp // 2, d.ep)
    if model.moe.enabled:
        add(f"ep{2 * d.ep}", f"EP {2 * d.ep} instead of {d.ep}", d.tp, 2 * d.ep)
    return out


def _what_if(base: _Base, key: str, description: str, kind: str, result: InferenceResult,
             changes: dict) -> InferenceWhatIf:
    figures = served_figures(result)
    common = dict(key=key, description=description, kind=kind,
                  weights_gb_per_gpu=result.weights_gb_per_gpu, changes=changes)
    if not result.runs:
        return InferenceWhatIf(**figures, **common,
                               text=f"{description}: cannot run ({result.cannot_run[0].message})")
    per_gpu, service = figures["output_tokens_per_s_per_gpu"], figures["output_tokens_per_s"]
    gain = service / base.service - 1.0 if base.service > 0 else None
    if gain is None or abs(gain) < MATERIAL_GAIN:
        effect = "leaves output tokens/s as they are"
    else:
        effect = f"would give {100 * gain:+.0f}% output tokens/s"
    batch = (f", batch {base.result.batch:,} -> {result.batch:,}"
             if result.batch != base.result.batch and kind != "batch" else "")
    verdict = "within the SLOs" if result.meets_slo else f"but misses the SLO: {slo_misses(result)}"
    text = f"{description} {effect} ({base.per_gpu:,.0f} -> {per_gpu:,.0f} per GPU{batch}), {verdict}"
    return InferenceWhatIf(**figures, **common, gain=gain, text=text)


def explain_inference_bottleneck(analysis: InferenceAnalysis) -> InferenceBottleneck | None:
    """What binds each phase of the deployment ``analysis`` served, and the what-ifs, each
    served again on what it was served on (pure). None when it cannot run: nothing limits
    figures that do not exist."""
    if not analysis.result.runs:
        return None
    base = _Base(analysis)
    kv_share = _kv_share(base)
    limiters = _limiters(base, kv_share)
    what_ifs: list[InferenceWhatIf] = []
    for key, description, kind, variant, changes in _variants(base):
        if variant is None:
            result = split_into_pools(base.context, base.workload, base.gpus)
            if result is None:
                continue
        else:
            result = base.serve(variant, batch_as_written=kind == "batch")
        what_ifs.append(_what_if(base, key, description, kind, result, changes))

    def order(x: InferenceWhatIf) -> tuple:
        return (not x.runs, not x.meets_slo, -(x.gain or 0.0))

    what_ifs.sort(key=order)
    meets = bool(base.result.meets_slo)
    best = next((x for x in what_ifs if x.runs and x.meets_slo and x.kind != "batch"
                 and (not meets or (x.gain or 0.0) >= MATERIAL_GAIN)), None)
    primary = limiters[0].name if limiters else "none"
    summary = f"{limiters[0].text[0].upper()}{limiters[0].text[1:]}." if limiters else ""
    if best is not None:
        summary += f" Most help: {best.text}."
    else:
        summary += " No single change tried raises output tokens/s by 1% within the SLOs."
    layout_search = analysis.search.candidates if analysis.search is not None else ()
    return InferenceBottleneck(base.per_gpu, base.service, primary, summary, tuple(limiters),
                               tuple(what_ifs), best, kv_share, tuple(layout_search))
