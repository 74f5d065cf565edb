"""The analyses as registered units, in the order core/evaluate.py runs them.

A unit is a name (its field on ``Evaluation``), the assumptions it reads, its inputs (the
earlier units whose results it is given), ``run`` (the analysis on a ``Stage`` and those
results) and ``to_json`` (the evaluation JSON sections it writes, from the Evaluation). The
evaluation JSON is those sections, assembled by core/evaluate.py; adding an analysis is a
unit here, its field on Evaluation and its section in ``SECTIONS``.

A ``Stage`` is what every unit may read besides its inputs: the design as the analyses see
it (core/design_view.py), the workload, the assumptions, and the main workload's partition
(core/partitions.py). The main workload's storage path, DPUs, reliability and performance run
on that partition; the design-wide units (counts, bandwidth, latency, power, cost, site) on
the whole design. A partition's cut-down design goes through the same first stage and the
same power and cost units (``CUT_UNITS``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable

from core.analysis.bottleneck import explain_bottleneck
from core.analysis.cost import analyze_cost, run_at_rate
from core.analysis.dpu import analyze_dpus
from core.analysis.inference import InferenceAnalysis, analyze_inference_workload, inference_section_json
from core.analysis.inference_bottleneck import explain_inference_bottleneck
from core.analysis.network import analyze_bandwidth, analyze_latency
from core.analysis.performance import analyze_performance
from core.analysis.planes import PlaneStructure, analyze_planes
from core.analysis.power import analyze_power
from core.analysis.reliability import analyze_reliability
from core.analysis.storage import analyze_storage
from core.assumptions import (Assumptions, CostAssumptions, InferenceAssumptions, NetworkAssumptions,
                              PerformanceAssumptions, PowerAssumptions, ReliabilityAssumptions,
                              StorageAssumptions, assumptions_to_dict)
from core.catalog import Catalog
from core.design_view import DesignView
from core.diagnostics import Diagnostic
from core.evaluation import Counts, Evaluation
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload
from core.model import Design
from core.partitions import Partitions, PartitionView, share_of, with_shares
from core.service_results import named, on_what, serve_services, service_warnings
from core.site.analysis import analyze_site
from core.stacks import stack_status
from core.workload import Workload, parallelism_to_dict


@dataclass(frozen=True)
class Stage:
    """What every unit may read besides its inputs (a partition's cut: its design and view
    alone, without workload or partitions)."""

    design: Design
    catalog: Catalog
    assumptions: Assumptions
    workload: Workload | None          # a training main workload (None: none, or an inference one)
    serving: InferenceWorkload | None  # an inference main workload
    whole: DesignView                  # the design as the analyses see it
    partitions: Partitions | None = None  # resolved, before their shares of power and cost
    spof_units: int = 0                # switch units that are single points of failure
    spof_paths: tuple[str, ...] = ()
    plane_structure: PlaneStructure | None = None  # its planes or rails (core/analysis/planes.py)
    # the reliability assumptions with the placed links' failure rates by medium
    # (core/site/failures.py; the project's own when the site says "cable_lengths": "drawn")
    link_rates: ReliabilityAssumptions | None = None

    @property
    def main(self) -> PartitionView | None:
        return self.partitions.main if self.partitions is not None else None

    @property
    def job(self) -> DesignView:
        """The main workload's part of the design: its partition's cut (a GPU count's: the
        pool's), or the whole design."""
        main = self.main
        return main.analysed if main is not None and main.analysed is not None else self.whole

    @property
    def job_fabric(self) -> FabricView | None:
        return self.main.fabric if self.main is not None else self.whole.topology.fabric


def _diagnostics(result: Any) -> Iterable[Diagnostic]:
    return getattr(result, "diagnostics", ())


@dataclass(frozen=True)
class Unit:
    """One analysis in the pipeline. Its result is the Evaluation field of its name (the
    inference unit's is the served deployment with its search: ``inference`` and
    ``inference_search``)."""

    name: str                       # its field on Evaluation
    assumptions: type | None        # the assumptions group it reads (a field of Assumptions)
    inputs: tuple[str, ...]         # the earlier units it is given, in order
    run: Callable[..., Any]         # run(stage, *inputs) -> its result
    to_json: Callable[[Evaluation], dict[str, Any]]  # the evaluation JSON sections it writes
    warnings: Callable[[Any], Iterable[Diagnostic]] = _diagnostics


def run_units(stage: Stage, units: tuple[Unit, ...], given: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every unit's result by name, each run on the results of its inputs (``given``: results
    standing in for units not run)."""
    results = dict(given or {})
    for unit in units:
        results[unit.name] = unit.run(stage, *(results[name] for name in unit.inputs))
    return results


def _on_partition(result: Any, main: PartitionView | None) -> Any:
    """A performance or inference result whose diagnostics say which partition it ran on."""
    if main is None:
        return result
    where = on_what(main)
    return replace(result, cannot_run=named(result.cannot_run, where),
                   diagnostics=named(result.diagnostics, where))


# --- each analysis on the stage ----------------------------------------------------------------

def _counts(s: Stage) -> Counts:
    inventory, topology = s.whole.inventory, s.whole.topology
    by_tier: dict[str, int] = {name: 0 for name in topology.tier_order}
    for item in inventory.items:
        if item.kind == "switch" and item.powered:
            by_tier[item.role] = by_tier.get(item.role, 0) + item.count
    return Counts(
        gpus=inventory.gpus, servers=inventory.compute_nodes,
        switches=sum(n for tier, n in by_tier.items() if tier != "scale-up"),
        switches_by_tier=by_tier, scale_up_switches=inventory.count("scale-up"),
        nics=inventory.count("nic"), dpus=inventory.count("dpu"),
        storage_nodes=inventory.count("storage"), links=inventory.links,
        transceivers=inventory.count("transceiver"), cables=inventory.count("cable"))


def _bandwidth(s: Stage):
    return analyze_bandwidth(s.whole.topology, s.assumptions.network)


def _latency(s: Stage):
    return analyze_latency(s.whole.topology, s.assumptions.network)


def _storage(s: Stage):
    return analyze_storage(s.job.topology, s.workload, s.assumptions.storage, s.assumptions.network)


def _dpus(s: Stage, storage):
    return analyze_dpus(s.job.flat, storage.classes, storage.dpu_stages,
                        s.assumptions.storage.dpu_encrypt_storage)


def _reliability(s: Stage, storage):
    a = s.assumptions
    return analyze_reliability(
        s.job.inventory, s.job_fabric, s.workload,
        storage.classes["checkpoint_write"].job_gbyte_s or 0.0, s.spof_paths, s.link_rates,
        storage_read_gbyte_s=storage.classes["checkpoint_restore"].job_gbyte_s or 0.0,
        checkpoint_tiers=a.storage.checkpoint_tier_list(),
        plane_failover=s.plane_structure.failover(a.reliability.plane_failover))


def _planes(s: Stage, bandwidth, latency):
    w = s.whole
    return analyze_planes(s.plane_structure, w.flat, w.topology.tiers, bandwidth.per_gpu_scale_out_gbit_s,
                          bandwidth.bisection_tbit_s, latency.max_switch_hops, w.inventory,
                          w.topology.fabric, s.workload, s.link_rates)


def _performance(s: Stage, reliability):
    """The training run on the job's fabric (None: no training workload, or no GPUs for it)."""
    if s.workload is None or s.job_fabric is None:
        return None
    return _on_partition(analyze_performance(s.job_fabric, s.workload, s.assumptions.performance,
                                             reliability.ettr), s.main)


def _power(s: Stage, performance):
    ran = performance if performance is not None and performance.runs else None
    return analyze_power(s.whole.inventory, ran.training_days if ran is not None else None,
                         ran.job_gpus if ran is not None else None, s.assumptions.power)


def _cost(s: Stage, power, performance, reliability):
    """The design's cost; with partitions, the training run at its partition's $/GPU-hour."""
    a, tokens = s.assumptions, s.workload.training_tokens if s.workload is not None else None
    cost = analyze_cost(s.whole.inventory, power, performance, s.catalog, a.cost,
                        a.power.electricity_usd_per_kwh, tokens,
                        reliability.ettr if reliability is not None else None)
    if s.main is None:
        return cost
    rate = share_of(s.main, s.whole.inventory.gpus, power, cost).usd_per_gpu_hour
    return run_at_rate(cost, rate, performance, tokens)


def _partitions(s: Stage, power, cost):
    """Every partition with its share of the design's power and TCO."""
    return None if s.partitions is None else with_shares(s.partitions, s.whole.inventory.gpus, power, cost)


def _inference(s: Stage, storage, power, cost, partitions) -> InferenceAnalysis | None:
    """An inference main workload served on the job's fabric, at its partition's share of
    power and cost (None: a training workload or none, or no GPUs for it)."""
    if s.serving is None or s.job_fabric is None:
        return None
    main = partitions.main if partitions is not None else None
    facility_kw, usd_per_gpu_hour = power.facility_kw, cost.usd_per_gpu_hour
    if main is not None:
        facility_kw, usd_per_gpu_hour = main.facility_kw or 0.0, main.usd_per_gpu_hour
    # a remote prefix cache reads multi-MB KV chunks: the bulk-read class of every GPU
    served = analyze_inference_workload(
        s.job_fabric, s.serving, facility_kw, s.assumptions.inference, usd_per_gpu_hour=usd_per_gpu_hour,
        storage_read_gbyte_s_per_gpu=storage.classes["data_loading"].per_gpu_gbyte_s)
    return replace(served, result=_on_partition(served.result, s.main))


def _bottleneck(s: Stage, performance, inference):
    """What limits MFU (training) or each serving phase (inference), with the what-ifs."""
    if performance is not None:
        return explain_bottleneck(s.job_fabric, s.workload, s.assumptions.performance, performance)
    return explain_inference_bottleneck(inference) if inference is not None else None


def _services(s: Stage, partitions):
    return () if partitions is None else serve_services(s.design, partitions, s.assumptions, s.whole.topology)


def _site(s: Stage):
    w = s.whole
    return analyze_site(s.design, w.flat, w.topology.graph, s.design.site, s.assumptions.power,
                        _cables_by_family(w), w.placed, w.topology.tiers, w.topology.tier_order,
                        s.assumptions.reliability.link_per_1000_days)


def _cables_by_family(view: DesignView) -> dict[str, int]:
    """Cables bought per drawn medium ("copper", "fiber"): what the site shares over its media."""
    out: dict[str, int] = {}
    for item in view.inventory.by_role("cable"):
        medium = str(item.spec.medium)
        out[medium] = out.get(medium, 0) + item.count
    return out


# --- each analysis's sections of the evaluation JSON ------------------------------------------

def _fields(result: Any, leave_out: tuple[str, ...] = ("diagnostics",)) -> dict[str, Any]:
    """A result's fields as a section (the section's keys are the result's field names)."""
    return {f.name: getattr(result, f.name) for f in fields(result) if f.name not in leave_out}


def _bandwidth_json(ev: Evaluation) -> dict[str, Any]:
    # independent planes the GPUs' scale-out bandwidth is summed over (1: one fabric)
    return {"bandwidth": {**_fields(ev.bandwidth),
                          "planes": ev.planes.planes if ev.planes is not None else 1,
                          "per_plane": ev.planes.bandwidth_json() if ev.planes is not None else None}}


def _reliability_json(ev: Evaluation) -> dict[str, Any]:
    r = ev.reliability
    return {"reliability": {
        "interruptions_per_day": r.interruptions_per_day, "mtbi_hours": r.mtbi_hours,
        "checkpoint_size_gb": r.checkpoint_size_gb, "checkpoint_write_s": r.checkpoint_write_s,
        "checkpoint_restore_s": r.checkpoint_restore_s, "checkpoint_restore_from": r.checkpoint_restore_from,
        "checkpoint_blocking_s": r.checkpoint_blocking_s if r.checkpoint_size_gb else None,
        "checkpoint_recoverable_after_s": r.checkpoint_recoverable_after_s,
        "checkpoint_tiers_used": r.checkpoint_tiers_used,
        "checkpoint_interval_min": r.checkpoint_interval_min, "ettr": r.ettr,
        "single_points_of_failure": ev.spof_units, "spof_components": r.spof_components,
        "job_gpus": r.job_gpus, "rate_by_kind_per_day": r.rate_by_kind,
        "spares_for_target": r.spares_for_target,
        "planes": ev.planes.reliability_json() if ev.planes is not None else None}}


# the performance section: the contract's keys first (DESIGN.md), then the extras
_PERFORMANCE_KEYS = ("mfu", "tflops_per_gpu", "step_time_s", "tokens_per_s", "training_days",
                     "memory_per_gpu_gb", "fits_memory", "breakdown_s", "hfu", "job_gpus",
                     "microbatches", "runs", "cannot_run", "memory_gb", "parallelism", "stack",
                     "mfu_range", "training_days_range", "memory_by_recompute_gb")


def _performance_json(ev: Evaluation) -> dict[str, Any]:
    """The run (null where the job cannot run or there is none), whether it runs (``runs``:
    null without a workload) and why not (``cannot_run``), what stays real when it cannot:
    the layout, its GPUs, memory per GPU and breakdown, the uncalibrated bracket, and the
    software stack assumed (``stack``: preset id, name, whether values were changed); an MoE
    model's all-to-all per step (``alltoall_s``; its exposed part is breakdown ``ep_comm``)."""
    perf = ev.performance
    status = {"runs": None if ev.workload is None else not ev.cannot_run,
              "cannot_run": [d.to_json() for d in ev.cannot_run],
              "stack": stack_status(ev.assumptions.performance).to_json()}
    if perf is None:  # every figure null, then whether it runs and why not
        return {"performance": {**dict.fromkeys(k for k in _PERFORMANCE_KEYS if k not in status), **status}}
    # the result's own figures, the layout as a workload file writes it
    values = {**perf.to_json(), "parallelism": parallelism_to_dict(perf.parallelism), **status}
    keys = _PERFORMANCE_KEYS + (("alltoall_s",) if perf.moe else ())
    return {"performance": {key: values[key] for key in keys}}


def _cost_json(ev: Evaluation) -> dict[str, Any]:
    """Every figure (null where an unpriced component or a missing run leaves it unknown,
    with why in ``null_reasons``), the ids without a price and the assumptions used (the power
    assumptions' electricity price among them)."""
    a = ev.assumptions
    return {"cost": {**_fields(ev.cost, ("lines", "diagnostics")), "assumptions": {
        **assumptions_to_dict(a, only_changed=False)["cost"],
        "electricity_usd_per_kwh": a.power.electricity_usd_per_kwh}}}


def _inference_json(ev: Evaluation) -> dict[str, Any]:
    """The serving figures of an inference main workload; null for training or none."""
    return {"inference": (inference_section_json(ev.inference, ev.inference_search)
                          if ev.inference is not None else None)}


def _placed_latency_us(ev: Evaluation) -> float | None:
    """The longest GPU-to-GPU latency with the site's cable lengths instead of the drawn ones
    (under a failure what-if: the intact design's cables, which the failed units leave in place)."""
    longest = ev.latency.gpu_to_gpu_max_us
    if longest is None:
        return None
    outer = ev.topology.tier_order[-1] if ev.topology.tier_order else None
    return round(longest + ev.site.latency_delta_us.get(outer, 0.0), 4)


def _site_json(ev: Evaluation) -> dict[str, Any]:
    # the floor plan; its gpu_to_gpu_max_us is the latency section's with placed lengths
    return {"site": ({**ev.site.to_json(), "gpu_to_gpu_max_us": _placed_latency_us(ev)}
                     if ev.site is not None else None)}


def _power_json(ev: Evaluation) -> dict[str, Any]:
    # the per-GPU figures and the run's own inputs stay on the result (the reports read them)
    return {"power": _fields(ev.power, ("diagnostics", "compute_w_per_gpu", "it_w_per_gpu", "gpus",
                                        "job_gpus", "run_days", "job_it_kw"))}


def _partitions_json(ev: Evaluation) -> dict[str, Any]:
    # several workloads on one design: every partition; empty for one workload
    return {"partitions": [view.to_json() for view in ev.partitions.all] if ev.partitions is not None else []}


def _services_json(ev: Evaluation) -> dict[str, Any]:
    # each service's serving figures (its "inference" has the keys of the evaluation's own)
    return {"services": [service.to_json() for service in ev.services]}


def _own_json(name: str) -> Callable[[Evaluation], dict[str, Any]]:
    """The section ``name`` is the result's own ``to_json`` (null without a result)."""
    def to_json(ev: Evaluation) -> dict[str, Any]:
        result = getattr(ev, name)
        return {name: result.to_json() if result is not None else None}
    return to_json


def _as_is(name: str) -> Callable[[Evaluation], dict[str, Any]]:
    """The section ``name`` is the result's fields."""
    return lambda ev: {name: _fields(getattr(ev, name))}


def _nothing(ev: Evaluation) -> dict[str, Any]:
    return {}


def _no_warnings(result: Any) -> Iterable[Diagnostic]:
    return ()


def _served_warnings(served: InferenceAnalysis | None) -> Iterable[Diagnostic]:
    return served.result.diagnostics if served is not None else ()


POWER = Unit("power", PowerAssumptions, ("performance",), _power, _power_json)
COST = Unit("cost", CostAssumptions, ("power", "performance", "reliability"), _cost, _cost_json)

UNITS: tuple[Unit, ...] = (
    Unit("counts", None, (), _counts, _as_is("counts"), _no_warnings),
    Unit("bandwidth", NetworkAssumptions, (), _bandwidth, _bandwidth_json),
    Unit("latency", NetworkAssumptions, (), _latency, _as_is("latency"), _no_warnings),
    Unit("storage", StorageAssumptions, (), _storage, _own_json("storage")),
    Unit("dpus", StorageAssumptions, ("storage",), _dpus, _own_json("dpus")),
    Unit("reliability", ReliabilityAssumptions, ("storage",), _reliability, _reliability_json),
    # per-plane figures: written into the bandwidth and reliability sections
    Unit("planes", ReliabilityAssumptions, ("bandwidth", "latency"), _planes, _nothing, _no_warnings),
    Unit("performance", PerformanceAssumptions, ("reliability",), _performance, _performance_json),
    POWER,
    COST,
    Unit("partitions", None, ("power", "cost"), _partitions, _partitions_json),
    Unit("inference", InferenceAssumptions, ("storage", "power", "cost", "partitions"), _inference,
         _inference_json, _served_warnings),
    Unit("bottleneck", PerformanceAssumptions, ("performance", "inference"), _bottleneck,
         _own_json("bottleneck"), _no_warnings),
    Unit("services", InferenceAssumptions, ("partitions",), _services, _services_json, service_warnings),
    Unit("site", PowerAssumptions, (), _site, _site_json),
)

# A partition's cut-down design, after the first stage: its power and cost without a run.
CUT_UNITS = (POWER, COST)

# The evaluation JSON's sections, in the contract's order (DESIGN.md): the units' and
# core/evaluate.py's own (format, validity, warnings, workload, assumptions, failure, time).
SECTIONS = ("format", "design", "valid", "invalid_reasons", "counts", "bandwidth", "latency",
            "power", "reliability", "performance", "cost", "storage", "dpus", "bottleneck",
            "warnings", "inference", "workload", "assumptions", "failure", "partitions",
            "services", "site", "evaluation_ms")
