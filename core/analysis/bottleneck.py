"""What limits MFU for this design and workload, and which single change would help most.

A pure function of (fabric, workload, assumptions): it decomposes the step time of the
performance model into limiters (compute efficiency, recompute forced by memory, TP / CP / EP /
PP / DP traffic, pipeline bubble, stragglers, optimizer) with the MFU each one costs, and then
*re-evaluates* variants of the design and the layout with the same model (nothing is
extrapolated):

* fabric: every scale-out tier 1:1 (the FabricView rebuilt without oversubscription), twice
  the per-GPU scale-out bandwidth; where hashing (ECMP, flowlets) slows a collective, adaptive
  routing and more queue pairs per connection (the limiter is then named "... (ECMP
  collisions on the spine tier)"); in-network reduction (SHARP, NVLS) the switches have;
* layout (same GPUs, same global batch): interleaved stages, lighter recompute, the other ZeRO
  stage, TP halved or doubled (pipeline or data parallelism absorbing the difference), PP
  halved or doubled, micro-batch halved or doubled, context parallelism for long sequences;
* software: TP communication overlapped with GEMMs, DP reduction overlapped, pipeline p2p
  overlapped (where the project's assumptions say they are not);
* batch: twice the global batch (flagged: it changes the optimisation, not just the speed);
* mixture of experts (when the expert all-to-all costs time): EP halved or doubled, node-limited
  routing (or a tighter limit), per-node deduplicating dispatch kernels (DeepEP), the
  all-to-all overlapped with compute, and a 72-GPU scale-up domain (an NVL72-class rack)
  instead of the design's smaller one, so the EP group stays on NVLink.

Variants that cannot run (memory, a level without bandwidth: ``cannot_run_reasons``, the same
judgement as the analysis) are reported as such, with no MFU, and never chosen as the best; a
job that cannot run has no bottleneck at all (None). For "auto" workloads the search's
runners-up already explain the layout choice, so layout variants start from the chosen layout.

The result is typed (``BottleneckResult``: limiters and what-ifs with numbers and text) and has
a JSON form for the evaluation (``bottleneck`` key) and the reports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.analysis.collectives import group_span
from core.analysis.compute import dense_peak
from core.analysis.fabric_what_ifs import (MORE_QPS, collision_tiers, with_in_network_reduction,
                                           with_load_balancing)
from core.analysis.model_stats import model_flops_per_token
from core.analysis.parallelism_search import search_parallelism
from core.analysis.performance import PerformanceResult, cannot_run_reasons
from core.assumptions.performance import PerformanceAssumptions
from core.analysis.pipeline import ends_balanced
from core.analysis.step_time import job_fabric, layout_step_time
from core.analysis.uncalibrated import bracket_step
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.workload import RECOMPUTE, ModelSpec, Parallelism, Workload

# What-ifs below this MFU gain (fraction) are "no material change".
MATERIAL_GAIN = 0.005

_LIMITER_NAMES = {
    "compute": "compute efficiency",
    "recompute": "recompute (memory)",
    "tp_comm": "tensor-parallel traffic",
    "cp_comm": "context-parallel traffic",
    "ep_comm": "expert all-to-all",
    "pp_comm": "pipeline point-to-point",
    "dp_comm": "data-parallel traffic",
    "bubble": "pipeline bubble",
    "optimizer": "optimizer step",
    "straggler": "stragglers",
    "other": "fixed per-step overhead",
}


@dataclass(frozen=True)
class Limiter:
    key: str              # breakdown part ("compute" means the part above ideal compute)
    name: str
    seconds: float        # per step
    share: float          # of the step time
    mfu_if_removed: float  # MFU with this part gone (everything else unchanged)
    text: str

    def to_json(self) -> dict:
        return {"key": self.key, "name": self.name, "seconds": self.seconds, "share": self.share,
                "mfu_if_removed": self.mfu_if_removed, "text": self.text}


@dataclass(frozen=True)
class WhatIf:
    key: str
    description: str
    mfu: float | None           # None: the variant cannot run (``text`` says why)
    step_time_s: float | None
    tokens_per_s: float | None
    fits_memory: bool
    memory_per_gpu_gb: float
    mfu_gain: float | None      # mfu - base mfu (fraction of peak); None when it cannot run
    text: str
    kind: str             # "fabric", "layout", "software", "batch"
    changes: dict

    def to_json(self) -> dict:
        return {"key": self.key, "description": self.description, "kind": self.kind,
                "mfu": self.mfu, "mfu_gain": self.mfu_gain, "step_time_s": self.step_time_s,
                "tokens_per_s": self.tokens_per_s, "fits_memory": self.fits_memory,
                "memory_per_gpu_gb": self.memory_per_gpu_gb, "text": self.text,
                "changes": dict(self.changes)}


@dataclass(frozen=True)
class BottleneckResult:
    mfu: float
    step_time_s: float
    ideal_compute_s: float          # model FLOPs at dense peak
    primary: str                    # name of the largest limiter
    summary: str
    limiters: tuple[Limiter, ...]   # largest first
    what_ifs: tuple[WhatIf, ...]    # largest MFU gain first (non-fitting ones last)
    best: WhatIf | None             # the fitting what-if that helps most (None: nothing helps)
    # "auto" workloads: the search's winner and runners-up with why each loses
    layout_search: tuple = ()

    def to_json(self) -> dict:
        return {
            "layout_search": [c.to_json() for c in self.layout_search],
            "mfu": self.mfu,
            "step_time_s": self.step_time_s,
            "ideal_compute_s": self.ideal_compute_s,
            "primary": self.primary,
            "summary": self.summary,
            "limiters": [x.to_json() for x in self.limiters],
            "what_ifs": [x.to_json() for x in self.what_ifs],
            "best": self.best.to_json() if self.best is not None else None,
        }


# ------------------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


@dataclass
class _Eval:
    """One layout re-evaluated; the numbers of the run are None when it cannot run."""

    cannot_run: list[Diagnostic]
    mfu: float | None
    step: float | None
    tokens_per_s: float | None
    fits: bool
    memory_gb: float
    breakdown: dict
    bubble_fraction: float
    microbatches: int
    alltoall_s: float = 0.0


@dataclass(frozen=True)
class _Recipe:
    """What every variant keeps of the workload's run: the precision it runs at, that
    precision's dense peak, and its optimizer."""

    precision: str
    peak_tflops: float
    optimizer: str


def _run(fabric: FabricView, model: ModelSpec, par: Parallelism, a: PerformanceAssumptions,
         recipe: _Recipe) -> _Eval:
    """``par`` on ``fabric``, which connects its GPUs (the variants keep the base's GPUs)."""
    precision, peak_tflops = recipe.precision, recipe.peak_tflops
    view = job_fabric(fabric, par.gpus, None)
    core = layout_step_time(view, model, par, precision, a, peak_tflops, par.gpus,
                            recipe.optimizer)
    bracket = bracket_step(view, model, par, precision, a, peak_tflops, par.gpus, core,
                           recipe.optimizer)
    if bracket is not None:  # an uncalibrated accelerator: the step performance reports
        core = bracket.step
    reasons = cannot_run_reasons(fabric, par, core.memory, core.step_time_s)
    tokens = core.global_batch * model.seq_len
    step = core.step_time_s if not reasons else None
    mfu = (model_flops_per_token(model) * tokens / (par.gpus * peak_tflops * 1e12 * step)
           if step is not None else None)
    return _Eval(reasons, mfu, step, tokens / step if step is not None else None,
                 core.memory.fits, core.memory.total_gb, dict(core.breakdown_s),
                 core.bubble_fraction, core.microbatches, core.alltoall_s)


def _valid(model: ModelSpec, par: Parallelism, scale_up: int,
           balance_ends: bool = True) -> bool:
    if min(par.tp, par.pp, par.dp, par.cp, par.ep, par.micro_batch, par.virtual_stages) < 1:
        return False
    if model.heads % par.tp or model.kv_heads_effective % par.tp:
        return False
    if par.global_batch % (par.dp * par.micro_batch):
        return False
    if par.expert_tp:
        if (par.tp * par.dp * par.cp) % (par.expert_tp * par.ep):
            return False
    elif (par.dp * par.cp) % par.ep:
        return False
    if model.moe.enabled and model.moe.experts % par.ep:
        return False
    if model.layers < par.pp * par.virtual_stages:
        return False
    uneven = model.layers % (par.pp * par.virtual_stages) and not (
        balance_ends and ends_balanced(model.layers, par.pp, par.virtual_stages))
    if par.virtual_stages > 1 and (uneven or par.microbatches % par.pp):
        return False
    if par.tp > max(1, scale_up):
        return False
    return True


def _layout_variants(model: ModelSpec, par: Parallelism, a: PerformanceAssumptions,
                     scale_up: int) -> list[tuple[str, str, Parallelism]]:
    """(key, description, parallelism) for single changes that keep GPUs and global batch."""
    out: list[tuple[str, str, Parallelism]] = []

    def add(key: str, text: str, **changes) -> None:
        cand = replace(par, **changes)
        if cand != par and _valid(model, cand, scale_up, a.balance_pipeline_ends):
            out.append((key, text, cand))

    if par.pp > 1:
        for v in (2, 3, 4):
            if v != par.virtual_stages:
                add(f"interleave_v{v}", f"interleaving with {v} virtual stages per GPU",
                    virtual_stages=v)
    # lighter recompute modes, coarsest last: selective saves nothing with FlashAttention (the
    # score matrix is never stored); the module modes are tried for MoE and MLA models
    modules = model.moe.enabled or model.mla is not None
    order = [mode for mode in RECOMPUTE
             if (mode != "selective" or not a.flash_attention or par.recompute == "selective")
             and (modes_of_modules(mode) <= modules or par.recompute == mode)]
    if par.recompute in order:
        for lighter in order[: order.index(par.recompute)]:
            add(f"recompute_{lighter}", f"{'no' if lighter == 'none' else lighter} recompute "
                f"instead of {par.recompute}", recompute=lighter)
    if par.dp * par.cp > 1:
        other = 3 if par.zero_stage < 3 else 1
        add(f"zero{other}", f"ZeRO-{other} instead of ZeRO-{par.zero_stage}", zero_stage=other)
        if par.recompute != "none":
            add(f"zero{other}_no_recompute",
                f"ZeRO-{other} without recompute (instead of ZeRO-{par.zero_stage} with "
                f"{par.recompute})", zero_stage=other, recompute="none")
    if par.tp > 1:
        t = par.tp // 2
        add(f"tp{t}_pp{par.pp * 2}", f"TP {t} instead of {par.tp} (PP {par.pp * 2})",
            tp=t, pp=par.pp * 2)
        if par.global_batch % (par.dp * 2 * par.micro_batch) == 0:
            add(f"tp{t}_dp{par.dp * 2}", f"TP {t} instead of {par.tp} (DP {par.dp * 2})",
                tp=t, dp=par.dp * 2)
    if par.tp * 2 <= scale_up:
        t = par.tp * 2
        if par.pp % 2 == 0:
            add(f"tp{t}_pp{par.pp // 2}", f"TP {t} instead of {par.tp} (PP {par.pp // 2})",
                tp=t, pp=par.pp // 2)
        if par.dp % 2 == 0:
            add(f"tp{t}_dp{par.dp // 2}", f"TP {t} instead of {par.tp} (DP {par.dp // 2})",
                tp=t, dp=par.dp // 2)
    if par.dp % 2 == 0:
        add(f"pp{par.pp * 2}_dp{par.dp // 2}", f"PP {par.pp * 2} instead of {par.pp} "
            f"(DP {par.dp // 2})", pp=par.pp * 2, dp=par.dp // 2,
            ep=par.ep if (par.dp // 2 * par.cp) % par.ep == 0 else 1)
    if par.pp % 2 == 0 and par.global_batch % (par.dp * 2 * par.micro_batch) == 0:
        add(f"pp{par.pp // 2}_dp{par.dp * 2}", f"PP {par.pp // 2} instead of {par.pp} "
            f"(DP {par.dp * 2})", pp=par.pp // 2, dp=par.dp * 2)
    if par.global_batch % (par.dp * par.micro_batch * 2) == 0:
        add(f"mbs{par.micro_batch * 2}", f"micro-batch {par.micro_batch * 2} instead of "
            f"{par.micro_batch}", micro_batch=par.micro_batch * 2)
    if par.micro_batch > 1:
        add(f"mbs{par.micro_batch // 2}", f"micro-batch {par.micro_batch // 2} instead of "
            f"{par.micro_batch}", micro_batch=par.micro_batch // 2)
    if model.seq_len >= 16384 and par.dp % 2 == 0:
        add(f"cp{par.cp * 2}", f"context parallelism {par.cp * 2} instead of {par.cp} "
            f"(DP {par.dp // 2})", cp=par.cp * 2, dp=par.dp // 2)
    return out


def modes_of_modules(mode: str) -> bool:
    """True for the recompute modes that pick modules (norms, up-projections, experts)."""
    return mode in ("norms-up-proj", "moe-experts")


def _nonblocking(fabric: FabricView) -> tuple[FabricView, list[str]]:
    """The fabric with every network tier 1:1 (per-GPU bandwidth of the first tier)."""
    k = fabric.first_scale_out
    if k >= len(fabric.levels):
        return fabric, []
    first = fabric.levels[k]
    if first.per_gpu_gbyte_s <= 0:
        return fabric, []
    ratio = first.effective_gbyte_s / first.per_gpu_gbyte_s
    levels = list(fabric.levels)
    names = []
    for i in range(k + 1, len(levels)):
        lv = levels[i]
        if lv.per_gpu_gbyte_s < 0.99 * first.per_gpu_gbyte_s and lv.name != "unconnected":
            names.append(lv.name)
            # as many more equal-cost uplinks as the oversubscription removed: its flows
            # spread over more paths too
            behaviour = lv.behaviour
            if behaviour is not None and lv.per_gpu_gbyte_s > 0:
                behaviour = replace(behaviour, paths=max(1, round(
                    behaviour.paths * first.per_gpu_gbyte_s / lv.per_gpu_gbyte_s)))
            levels[i] = replace(lv, per_gpu_gbyte_s=first.per_gpu_gbyte_s,
                                effective_gbyte_s=first.per_gpu_gbyte_s * ratio,
                                behaviour=behaviour)
    return replace(fabric, levels=tuple(levels)), names


def _faster_network(fabric: FabricView, factor: float = 2.0) -> FabricView:
    k = fabric.first_scale_out
    levels = list(fabric.levels[:k]) + [
        replace(lv, per_gpu_gbyte_s=lv.per_gpu_gbyte_s * factor,
                effective_gbyte_s=lv.effective_gbyte_s * factor)
        for lv in fabric.levels[k:]
    ]
    return replace(fabric, levels=tuple(levels))


def _oversubscribed_levels(fabric: FabricView) -> list[tuple[str, float]]:
    k = fabric.first_scale_out
    if k >= len(fabric.levels) or fabric.levels[k].per_gpu_gbyte_s <= 0:
        return []
    b = fabric.levels[k].per_gpu_gbyte_s
    return [(lv.name, b / lv.per_gpu_gbyte_s) for lv in fabric.levels[k + 1:]
            if 0 < lv.per_gpu_gbyte_s < 0.99 * b]


def _dp_levels(fabric: FabricView, par: Parallelism) -> list[str]:
    n = par.dp * par.cp
    if n <= 1:
        return []
    span = group_span(fabric, n, par.tp)
    return [fabric.levels[i].name for i in span.levels]


def _limiter_text(key: str, seconds: float, base: _Eval, par: Parallelism, fabric: FabricView,
                  ideal: float, model: ModelSpec, optimizer: str) -> str:
    b = base.breakdown
    if key == "compute":
        achieved = ideal / b.get("compute", 1.0) if b.get("compute") else 0.0
        return (f"kernels run at {_pct(achieved)} of dense peak on average (GEMM efficiency "
                f"by size for {fabric.accelerator.id}, memory-bound norms and activations): "
                f"{seconds:.2f} s above the {ideal:.2f} s the model FLOPs need at peak")
    if key == "recompute":
        return (f"{par.recompute} recompute re-runs the forward to save memory: "
                f"{seconds:.2f} s per step")
    if key == "bubble":
        return (f"pp {par.pp}, {base.microbatches} micro-batches per pipeline, "
                f"{par.virtual_stages} virtual stage{'s' if par.virtual_stages != 1 else ''}: "
                f"the pipeline idles {_pct(base.bubble_fraction)} of the step")
    if key == "tp_comm":
        where = ("inside the scale-up domain" if par.tp * par.cp <= fabric.scale_up_domain_gpus
                 else "across the scale-out network")
        return (f"TP {par.tp} collectives {where}, exposed (not overlapped with GEMMs): "
                f"{seconds:.2f} s per step")
    if key == "dp_comm":
        levels = _dp_levels(fabric, par)
        over = dict(_oversubscribed_levels(fabric))
        crossed = [lv for lv in levels if lv in over]
        extra = (f"; it crosses the {', '.join(crossed)} tier oversubscribed "
                 f"{', '.join(f'{over[c]:g}:1' for c in crossed)}" if crossed else "")
        return (f"gradient reduction over {par.dp * par.cp} data-parallel ranks "
                f"({' -> '.join(levels) or 'scale-up'}) left exposed: {seconds:.2f} s{extra}")
    if key == "pp_comm":
        return f"pipeline sends between stages on the critical path: {seconds:.2f} s"
    if key == "ep_comm":
        span = group_span(fabric, par.ep, par.ep_stride)
        nodes = max(1, par.ep * par.ep_stride // max(1, fabric.scale_up_domain_gpus))
        where = ("inside one scale-up domain" if max(span.levels) < fabric.first_scale_out
                 else f"across {nodes} scale-up domains over the NIC")
        share = (f"; {base.alltoall_s:.2f} s in all, {_pct(base.alltoall_s / base.step)} of "
                 f"the step before overlap" if base.alltoall_s and base.step else "")
        return (f"EP {par.ep} all-to-all (dispatch + combine) {where}, exposed or stealing "
                f"compute while hidden: {seconds:.2f} s{share}")
    if key == "cp_comm":
        return f"CP {par.cp} K/V ring exchange not hidden behind attention: {seconds:.2f} s"
    if key == "straggler":
        return f"slow ranks at this scale (a few %): {seconds:.2f} s"
    if key == "optimizer":
        if optimizer == "muon":
            return (f"optimizer step (Muon: Newton-Schulz iterations on every weight matrix, "
                    f"then the update): {seconds:.2f} s")
        return f"optimizer step (memory-bound Adam update): {seconds:.2f} s"
    return f"{seconds:.2f} s"


def explain_bottleneck(
    fabric: FabricView,
    workload: Workload,
    assumptions: PerformanceAssumptions = PerformanceAssumptions(),
    performance: PerformanceResult | None = None,
) -> BottleneckResult | None:
    """Limiters of MFU and re-evaluated what-ifs for ``workload`` on ``fabric`` (pure).

    ``performance`` (the result of ``analyze_performance`` for the same inputs) supplies the
    resolved parallelism of "auto" workloads; without it an auto workload is searched again.
    Returns None when the job cannot run (nothing limits an MFU that does not exist).
    """
    a = assumptions
    model = workload.model
    if performance is not None and not performance.runs:
        return None
    if isinstance(workload.parallelism, Parallelism):
        par = workload.parallelism
    elif performance is not None:
        par = performance.parallelism
    else:
        par = search_parallelism(fabric, workload, a).best
    if par.gpus > fabric.connected_gpus:
        return None
    peak_tflops, precision = dense_peak(fabric.accelerator, workload.precision, None)
    recipe = _Recipe(precision, peak_tflops, workload.optimizer)
    base = _run(fabric, model, par, a, recipe)
    if base.mfu is None or base.step is None:
        return None
    base_mfu, base_step = base.mfu, base.step
    ideal = model_flops_per_token(model) * par.global_batch * model.seq_len / (
        par.gpus * peak_tflops * 1e12)

    # --- limiters ---------------------------------------------------------------------------
    parts = dict(base.breakdown)
    parts["compute"] = max(0.0, parts.get("compute", 0.0) - ideal)
    limiters = []
    for key, seconds in parts.items():
        if seconds <= 0:
            continue
        remaining = base_step - seconds
        mfu_removed = base_mfu * base_step / remaining if remaining > 0 else base_mfu
        name = _LIMITER_NAMES.get(key, key)
        text = _limiter_text(key, seconds, base, par, fabric, ideal, model, recipe.optimizer)
        collisions = collision_tiers(fabric, par, key)
        if collisions:
            tiers = " and ".join(t for t, _ in collisions)
            name += f" (ECMP collisions on the {tiers} tier{'s' if len(collisions) > 1 else ''})"
            text += "; hashing leaves it " + ", ".join(
                f"{f:.0%} of line rate on the {t} tier" for t, f in collisions)
        limiters.append(Limiter(key, name, seconds, seconds / base_step, mfu_removed, text))
    limiters.sort(key=lambda x: -x.seconds)

    # --- what-ifs ---------------------------------------------------------------------------
    what_ifs: list[WhatIf] = []

    def record(key: str, description: str, kind: str, ev: _Eval, changes: dict,
               note: str = "") -> None:
        mfu, gain = ev.mfu, None
        if mfu is None:
            text = f"{description}: does not fit ({ev.cannot_run[0].message})"
        else:
            gain = mfu - base_mfu
            if abs(gain) < MATERIAL_GAIN:
                text = f"{description}: MFU stays at {_pct(mfu)}"
            else:
                verb = "raises" if gain > 0 else "lowers"
                text = f"{description} {verb} MFU from {_pct(base_mfu)} to {_pct(mfu)}"
            if note:
                text += f" ({note})"
        what_ifs.append(WhatIf(key, description, ev.mfu, ev.step, ev.tokens_per_s, ev.fits,
                               ev.memory_gb, gain, text, kind, changes))

    flat, names = _nonblocking(fabric)
    if names:
        ev = _run(flat, model, par, a, recipe)
        tiers = " and ".join(names)
        record("nonblocking", f"a 1:1 {tiers} tier{'s' if len(names) > 1 else ''} "
               f"(oversubscription removed)", "fabric", ev, {"fabric": f"{tiers} 1:1"})
    network_comm = sum(base.breakdown.get(k, 0.0) for k in ("dp_comm", "pp_comm", "ep_comm"))
    if par.tp * par.cp > fabric.scale_up_domain_gpus:
        network_comm += base.breakdown.get("tp_comm", 0.0) + base.breakdown.get("cp_comm", 0.0)
    if len(fabric.levels) > fabric.first_scale_out and network_comm > 0.01 * base_step:
        ev = _run(_faster_network(fabric), model, par, a, recipe)
        first = fabric.levels[fabric.first_scale_out]
        record("network_x2", "twice the per-GPU scale-out bandwidth (e.g. "
               f"{2 * first.per_gpu_gbit_s:g}G instead of {first.per_gpu_gbit_s:g}G per GPU)",
               "fabric", ev,
               {"fabric": "scale-out bandwidth x2"})

    slowed = [k for k in ("ep_comm", "dp_comm", "pp_comm", "tp_comm", "cp_comm")
              if base.breakdown.get(k, 0.0) > 0.01 * base_step and collision_tiers(fabric, par, k)]
    if slowed:
        ev = _run(with_load_balancing(fabric, "adaptive"), model, par, a, recipe)
        record("adaptive_routing", "adaptive routing / packet spraying on the scale-out tiers "
               "(InfiniBand AR, Spectrum-X with SuperNICs, Ultra Ethernet NICs)", "fabric", ev,
               {"network.load_balancing": "adaptive"})
        mode = next(lv.behaviour.mode for lv in fabric.levels if lv.behaviour is not None)
        if mode in ("ecmp", "ecmp-qp"):
            ev = _run(with_load_balancing(fabric, "ecmp-qp", MORE_QPS), model, par, a, recipe)
            record("more_qps", f"{MORE_QPS} queue pairs per connection with queue-pair-aware "
                   "hashing (Meta's enhanced ECMP)", "fabric", ev,
                   {"network.load_balancing": "ecmp-qp",
                    "network.qps_per_connection": MORE_QPS})
    reduced = with_in_network_reduction(fabric)
    if reduced is not None and base.breakdown.get("dp_comm", 0.0) > 0.01 * base_step:
        ev = _run(reduced[0], model, par, a, recipe)
        record("in_network_reduction", f"{reduced[1]} for the all-reduce (NCCL with in-network "
               "reduction)", "fabric", ev, {"network.in_network_reduction": "auto"})

    for key, description, cand in _layout_variants(model, par, a, fabric.scale_up_domain_gpus):
        ev = _run(fabric, model, cand, a, recipe)
        note = ""
        if key.startswith("interleave"):
            note = f"bubble {_pct(base.bubble_fraction)} -> {_pct(ev.bubble_fraction)} of the step"
        elif key.startswith("recompute") or "no_recompute" in key:
            note = f"{ev.memory_gb:.0f} GB per GPU"
        record(key, description, "layout", ev, _changes(par, cand), note)

    if a.tp_overlap < 1.0 and par.tp > 1 and base.breakdown.get("tp_comm", 0.0) > 0.02 * base_step:
        # what NVIDIA's NeMo H100 recipes run (ub_tp_comm_overlap; the default stack)
        ev = _run(fabric, model, par, replace(a, tp_overlap=1.0), recipe)
        record("tp_overlap", "overlapping TP communication with the GEMMs (Transformer "
               "Engine comm-GEMM overlap, as in NVIDIA's NeMo recipes)", "software", ev,
               {"tp_overlap": 1.0})
    if not a.dp_overlap and base.breakdown.get("dp_comm", 0.0) > 0.01 * base_step:
        ev = _run(fabric, model, par, replace(a, dp_overlap=True), recipe)
        record("dp_overlap", "overlapping the gradient reduction with the backward pass",
               "software", ev, {"dp_overlap": True})
    if a.pp_overlap < 1.0 and par.pp > 1 and base.breakdown.get("pp_comm", 0.0) > 0.01 * base_step:
        ev = _run(fabric, model, par, replace(a, pp_overlap=1.0), recipe)
        record("pp_overlap", "overlapping pipeline sends with compute", "software", ev,
               {"pp_overlap": 1.0})
    if par.pp > 1 and base.bubble_fraction > 0.05:
        cand = replace(par, global_batch=par.global_batch * 2)
        if _valid(model, cand, fabric.scale_up_domain_gpus, a.balance_pipeline_ends):
            ev = _run(fabric, model, cand, a, recipe)
            record("batch_x2", f"a global batch of {cand.global_batch} sequences instead of "
                   f"{par.global_batch}", "batch", ev, {"global_batch": cand.global_batch},
                   "changes the optimisation, not only the speed")

    if model.moe.enabled and base.alltoall_s > 0.01 * base_step:
        for key, description, kind, ev, changes, note in _moe_what_ifs(
                fabric, model, par, a, recipe):
            record(key, description, kind, ev, changes, note)

    # the ones that run, most help first; then the ones that cannot, in the order tried
    running = sorted((w for w in what_ifs if w.mfu_gain is not None),
                     key=lambda w: -(w.mfu_gain or 0.0))
    ordered = tuple(running + [w for w in what_ifs if w.mfu_gain is None])
    best = next((w for w in running if (w.mfu_gain or 0.0) >= MATERIAL_GAIN
                 and w.kind != "batch"), None)

    # --- summary ----------------------------------------------------------------------------
    top = limiters[:3]
    primary = limiters[0].name if limiters else "none"
    head = (f"MFU {_pct(base_mfu)} ({base_step:.2f} s per step; the model FLOPs need "
            f"{ideal:.2f} s at peak). ")
    head += "Largest losses: " + "; ".join(
        f"{x.name} {_pct(x.share)} of the step" for x in top) + "."
    if best is not None:
        head += f" Most help: {best.text}."
    else:
        head += " No single change tried raises MFU by half a point or more."
    search = getattr(performance, "search", None) if performance is not None else None
    return BottleneckResult(base_mfu, base_step, ideal, primary, head, tuple(limiters),
                            ordered, best, tuple(search.candidates) if search is not None else ())


def _moe_what_ifs(fabric: FabricView, model: ModelSpec, par: Parallelism,
                  a: PerformanceAssumptions, recipe: _Recipe) -> list[tuple]:
    """(key, description, kind, evaluation, changes, note) of the MoE what-ifs: EP size, the
    routing limit, the dispatch kernels, overlap, and a 72-GPU scale-up domain."""
    out: list[tuple] = []
    scale_up = fabric.scale_up_domain_gpus
    for ep in (par.ep // 2, par.ep * 2):
        cand = replace(par, ep=ep)
        if ep >= 1 and ep != par.ep and _valid(model, cand, scale_up, a.balance_pipeline_ends):
            out.append((f"ep{ep}", f"EP {ep} instead of {par.ep}", "layout",
                        _run(fabric, model, cand, a, recipe), {"ep": ep},
                        "experts per GPU and the all-to-all's span change"))
    crosses = par.ep * par.ep_stride > scale_up
    if crosses:
        nodes = model.moe.route_nodes
        limit = 4 if not nodes else max(1, nodes // 2)
        if limit < par.ep * par.ep_stride // max(1, scale_up):
            routed = replace(model, moe=replace(model.moe, route_nodes=limit))
            kernels = replace(a, ep_dispatch="deepep")
            out.append((f"route_nodes{limit}", f"routing limited to {limit} nodes per token"
                        + (" with per-node dispatch kernels (DeepEP)" if a.ep_dispatch != "deepep"
                           else ""), "software",
                        _run(fabric, routed, par, kernels, recipe),
                        {"route_nodes": limit, "ep_dispatch": "deepep"},
                        "changes the model's routing, as DeepSeek-V3 trains it"))
        if a.ep_dispatch != "deepep":
            out.append(("deepep", "per-node deduplicating dispatch kernels (DeepEP)", "software",
                        _run(fabric, model, par, replace(a, ep_dispatch="deepep"), recipe),
                        {"ep_dispatch": "deepep"}, ""))
    if a.ep_overlap < 0.8:
        out.append(("ep_overlap", "the all-to-all overlapped with expert compute "
                    "(Megatron-Core EP overlap, 0.8 hidden)", "software",
                    _run(fabric, model, par, replace(a, ep_overlap=0.8), recipe),
                    {"ep_overlap": 0.8}, ""))
    if crosses and scale_up < 72 and len(fabric.levels) > fabric.first_scale_out:
        out.append(("nvl72", f"a 72-GPU scale-up domain (NVL72-class rack) instead of "
                    f"{scale_up}-GPU nodes, at this GPU's NVLink bandwidth", "fabric",
                    _run(_wider_scale_up(fabric, 72), model, par, a, recipe),
                    {"fabric": "scale-up domain 72 GPUs"},
                    "the EP group's traffic stays on NVLink"))
    return out


def _wider_scale_up(fabric: FabricView, gpus: int) -> FabricView:
    """``fabric`` with its scale-up domain grown to ``gpus`` (same per-GPU scale-up bandwidth;
    the outer levels keep theirs, and at least that domain)."""
    up = fabric.first_scale_out - 1
    levels = list(fabric.levels)
    levels[up] = replace(levels[up], domain_gpus=min(gpus, fabric.gpus))
    for i in range(up + 1, len(levels)):
        levels[i] = replace(levels[i], domain_gpus=max(levels[i].domain_gpus, levels[up].domain_gpus))
    return replace(fabric, levels=tuple(levels))


def _changes(before: Parallelism, after: Parallelism) -> dict:
    out = {}
    for name in ("tp", "pp", "dp", "cp", "ep", "expert_tp", "micro_batch", "global_batch",
                 "virtual_stages", "zero_stage", "recompute"):
        if getattr(before, name) != getattr(after, name):
            out[name] = getattr(after, name)
    return out
