"""Evaluate a design: flatten it, derive its topology, run every analysis, assemble the results.

This is the one place that orders the analyses (docs/architecture.md). Each analysis is a pure
function in ``core/analysis`` of what the steps before it produced:

1. ``flatten`` the design, derive its ``topology`` (switch tiers, GPU domains, the FabricView
   the analyses see) and its ``inventory`` (counts, cables, optics);
2. network: bandwidth and latency            <- topology
3. storage by I/O class                      <- topology, workload (the job's share of its
                                                storage path; the DPUs it goes through)
   DPUs: count, engines used, which binds, cores  <- flattened design, storage's DPU stages
   freed
4. reliability                               <- inventory, fabric, workload, the job's
                                                checkpoint write and restore bandwidth of
                                                storage, single points of failure
   (and the per-plane figures of a multi-plane design: core/analysis/planes.py)
5. performance                               <- fabric, workload, ETTR of reliability
   (the parallelism search runs inside it when the workload asks for ``"auto"``)
6. bottleneck                                <- fabric, workload, performance
7. power (and the run's energy)              <- inventory, days and GPUs of performance
8. cost                                      <- inventory, catalog prices, power, performance
   inference (only for an inference workload, which the training steps 3-6 do not see)
                                             <- fabric, power, cost's $/GPU-hour, storage's
                                                bulk read per GPU (a remote prefix cache)
   (the deployment search runs inside it when the workload asks for ``"deployment": "auto"``;
   its bottleneck and what-ifs then fill ``bottleneck``)
   services (only for a design with several workloads: core/services.py). Right after step 1
   the partitions are resolved (core/partitions.py: each one's GPUs and the fabric its own
   GPUs see); the main workload's storage, DPUs, reliability and performance (3-6) run on its
   partition; after cost each partition gets its share of power and TCO and every service is
   served on its own (core/service_results.py)  <- partitions, power, cost
9. failure (only when units are failed or drained: steps 1-8 run on the intact design and on
   the degraded one of core/degrade.py, which the result describes, except cost: what is
   owned is paid for, so capex and opex are the intact design's, the run the degraded one)
                                             <- both evaluations, the search on what is left

A job that cannot run on the design (``Evaluation.cannot_run`` says why) has a performance
result without run numbers, no bottleneck and no run energy: absent, never computed as if it
ran. The warnings of every step are merged (each code once) and sorted by severity.

``evaluation_to_json`` produces the evaluation JSON contract of DESIGN.md
(format ``cluster-designer.evaluation/1``); every contract key is always present, with ``null``
where a value does not apply or cannot be computed (no workload, no GPUs, a job that cannot
run).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any

from core.analysis.bottleneck import BottleneckResult, explain_bottleneck
from core.analysis.inference import InferenceResult, analyze_inference_workload, inference_section_json
from core.analysis.inference_bottleneck import InferenceBottleneck, explain_inference_bottleneck
from core.analysis.inference_search import DeploymentSearch
from core.analysis.failure import (FailureResult, OutOfServiceItem, analyze_failure,
                                   no_failure_json, run_figures)
from core.analysis.cost import CostResult, analyze_cost, per_million_tokens
from core.analysis.dpu import DpuResult, analyze_dpus
from core.analysis.network import BandwidthResult, LatencyResult, analyze_bandwidth, analyze_latency
from core.analysis.performance import PerformanceResult, analyze_performance
from core.analysis.planes import PlanesResult, analyze_planes, plane_structure
from core.analysis.power import PowerResult, analyze_power
from core.analysis.reliability import ReliabilityResult, analyze_reliability
from core.analysis.storage import StorageResult, analyze_storage
from core.assumptions import Assumptions, assumptions_to_dict
from core.catalog import Catalog, default_catalog
from core.diagnostics import Diagnostic, merge_diagnostics
from core.degrade import degraded_design, original_path, out_of_service
from core.failure_paths import units_in_design
from core.fabric import FabricView
from core.flatten import FlatDesign, flatten
from core.inventory import Inventory, build_inventory
from core.jsonable import to_jsonable
from core.preset_fit import fit_to_design
from core.site.analysis import SITE_CODES, Placed, SiteResult, analyze_site, place_design
from core.site.bought import bought_at_placed_lengths
from core.site.failures import with_placed_link_rates
from core.model import Design
from core.operations import SetOutOfService
from core.partitions import Partitions, PartitionView, has_partitions, resolve_partitions, with_shares
from core.service_results import ServiceResult, named, on_what, serve_services, service_warnings
from core.stacks import stack_status
from core.topology import Topology, analyze_topology, single_points_of_failure
from core.inference_workload import InferenceWorkload, inference_workload_to_dict
from core.workload import Workload, parallelism_to_dict, workload_to_dict

EVALUATION_FORMAT = "cluster-designer.evaluation/1"


@dataclass(frozen=True)
class Counts:
    gpus: int
    servers: int
    switches: int
    switches_by_tier: dict[str, int]
    scale_up_switches: int
    nics: int
    dpus: int
    storage_nodes: int
    links: int
    transceivers: int
    cables: int = 0  # what is bought: a splitter serves several links


@dataclass(frozen=True)
class Evaluation:
    design_name: str
    counts: Counts
    bandwidth: BandwidthResult
    latency: LatencyResult
    power: PowerResult
    reliability: ReliabilityResult
    performance: PerformanceResult | None
    workload: Workload | None
    assumptions: Assumptions
    inventory: Inventory
    topology: Topology
    warnings: tuple[Diagnostic, ...]
    elapsed_s: float
    spof_units: int = 0  # switch units that are single points of failure
    # what limits MFU (training) or each serving phase (inference), and the what-if that helps most
    bottleneck: BottleneckResult | InferenceBottleneck | None = None
    # why the workload cannot run on the design (errors; empty when it runs or there is none)
    cannot_run: tuple[Diagnostic, ...] = ()
    cost: CostResult | None = None  # None only for an Evaluation built without it
    storage: StorageResult | None = None  # None only for an Evaluation built without it
    dpus: DpuResult | None = None  # what the DPUs do (None only for an Evaluation built without it)
    # failed/drained units: what they cost (every other field describes the degraded design)
    failure: FailureResult | None = None
    planes: PlanesResult | None = None  # per-plane figures of a multi-plane or rail-only design
    inference: InferenceResult | None = None  # serving figures of an inference workload
    # the deployment search of an inference workload with "deployment": "auto" (its result is
    # ``inference``, whose workload carries the chosen deployment)
    inference_search: DeploymentSearch | None = None
    # Several workloads on one design (core/services.py): the partitions resolved (None when the
    # design carries no services and no workload partition) and every service served on its own.
    # The main workload's figures above are then those on its partition (partitions.main).
    partitions: Partitions | None = None
    services: tuple[ServiceResult, ...] = ()
    # the design placed on the floor: racks, rows, halls, real cable lengths (core/site)
    site: SiteResult | None = None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The error-severity warnings: what makes the design invalid as drawn (or its job
        unable to run); every output says so at the top."""
        return tuple(w for w in self.warnings if w.severity == "error")

    @property
    def valid(self) -> bool:
        """No error-severity warning: the design can be built as drawn and its figures read
        as those of a buildable design."""
        return not self.errors

    @property
    def job_fabric(self) -> FabricView | None:
        """The fabric the main workload runs on: its partition's when the design carries
        several workloads, else the design's."""
        if self.partitions is not None and self.partitions.main is not None:
            return self.partitions.main.fabric
        return self.topology.fabric


def _counts(inventory: Inventory, topology: Topology) -> Counts:
    by_tier: dict[str, int] = {}
    for name in topology.tier_order:
        by_tier[name] = 0
    for item in inventory.items:
        if item.kind == "switch" and item.powered:
            by_tier[item.role] = by_tier.get(item.role, 0) + item.count
    switches = sum(n for tier, n in by_tier.items() if tier != "scale-up")
    return Counts(
        gpus=inventory.gpus,
        servers=inventory.compute_nodes,
        switches=switches,
        switches_by_tier=by_tier,
        scale_up_switches=inventory.count("scale-up"),
        nics=inventory.count("nic"),
        dpus=inventory.count("dpu"),
        storage_nodes=inventory.count("storage"),
        links=inventory.links,
        transceivers=inventory.count("transceiver"),
        cables=inventory.count("cable"),
    )


def evaluate(
    design: Design,
    catalog: Catalog | None = None,
    workload: Workload | InferenceWorkload | None = None,
) -> Evaluation:
    """Run every analysis on ``design`` (with ``workload`` overriding the embedded one).

    When units are failed or drained (core/degrade.py), the analyses describe the degraded
    design, and ``failure`` compares it with the intact one (core/analysis/failure.py)."""
    start = time.perf_counter()
    catalog = catalog or default_catalog()
    items = out_of_service(design)
    if not items:
        return _evaluate(design, catalog, workload, start)
    intact = _evaluate(design, catalog, workload, start)  # flatten ignores the failure fields
    degraded = _evaluate(degraded_design(design), catalog, workload, start)
    return _with_failure(design, catalog, items, intact, degraded, start)


def _gpus_left_by_failures(design: Design, catalog: Catalog, items: list,
                           degraded: Evaluation) -> int:
    """The GPUs left when only the failed units are out (drained ones count apart): the
    degraded design's own when nothing is drained, else the design without its drains."""
    if not any(drained for *_, drained in items):
        return degraded.topology.flat.gpus
    only_failed = design.snapshot()
    for path, link_id, failed, drained in items:
        if drained:
            only_failed.apply(SetOutOfService(path, failed, 0, link_id))
    return flatten(degraded_design(only_failed), catalog).gpus


def _with_failure(design: Design, catalog: Catalog, items: list, intact: Evaluation,
                  degraded: Evaluation, start: float) -> Evaluation:
    """``degraded`` with the failure section: the GPUs each state takes, the workload's best
    layout on what is left when its own does not run there, the comparison."""
    gpus_failed = intact.counts.gpus - _gpus_left_by_failures(design, catalog, items, degraded)
    relayout = relayout_ettr = None
    main = degraded.partitions.main if degraded.partitions is not None else None
    fabric = main.fabric if main is not None else degraded.topology.fabric
    usable = fabric.connected_gpus if main is not None and fabric is not None else degraded.topology.connected_gpus
    if degraded.workload is not None and degraded.cannot_run and fabric is not None:
        relayout = _relayout(degraded.workload, fabric, usable,
                             degraded.assumptions, degraded.reliability.ettr)
        relayout_ettr = degraded.reliability.ettr
    failure = analyze_failure(
        tuple(OutOfServiceItem(path, link_id, failed, drained, units_in_design(design, path, link_id))
              for path, link_id, failed, drained in items),
        intact.topology.flat, degraded.topology.flat,
        intact.topology.connected_gpus, degraded.topology.connected_gpus, gpus_failed,
        intact.bandwidth, degraded.bandwidth,
        run_figures(intact.performance, intact.reliability.ettr),
        run_figures(degraded.performance, degraded.reliability.ettr),
        relayout, relayout_ettr)
    # What is owned is paid for, failed or not: capex, opex and $/GPU-hour stay the intact
    # design's; the training run is the one on what is left (laid out again if it had to be).
    workload = degraded.workload
    cost = analyze_cost(intact.inventory, intact.power, relayout or degraded.performance, catalog,
                        degraded.assumptions.cost, degraded.assumptions.power.electricity_usd_per_kwh,
                        workload.training_tokens if workload is not None else None,
                        degraded.reliability.ettr)
    cost = _run_on_partition(cost, main, relayout or degraded.performance, workload)
    # warnings name the design's own components (a run "pod.degraded" is pod's first instances)
    warnings = [replace(w, components=tuple(dict.fromkeys(map(original_path, w.components))))
                for w in degraded.warnings if w.code not in SITE_CODES]
    site_warnings = intact.site.diagnostics if intact.site is not None else ()
    return replace(degraded, design_name=design.name, cost=cost,
                   warnings=merge_diagnostics([*warnings, *failure.diagnostics, *site_warnings]),
                   elapsed_s=time.perf_counter() - start, failure=failure,
                   # failed and drained units still sit in their racks: the intact design's site
                   site=intact.site)


def _relayout(workload: Workload, fabric: FabricView, usable_gpus: int, assumptions: Assumptions,
              ettr: float) -> PerformanceResult:
    """The job on what is left when its own layout does not run there: first as operators
    restart it, with fewer data-parallel replicas and the model split kept (core/preset_fit.py),
    so the comparison with the intact run is like for like; when no replica fits, the best
    layout of the parallelism search on the usable GPUs."""
    fitted, _ = fit_to_design(workload, usable_gpus)
    if fitted is not workload:
        result = analyze_performance(fabric, fitted, assumptions.performance, ettr)
        if result.runs:
            return result
    auto = replace(workload, parallelism="auto", preset_fit=None)
    return analyze_performance(fabric, auto, assumptions.performance, ettr)


def _evaluate(design: Design, catalog: Catalog, workload: Workload | InferenceWorkload | None,
              start: float) -> Evaluation:
    assumptions: Assumptions = design.assumptions or Assumptions()
    workload = workload if workload is not None else design.workload
    # An inference workload is served, not trained: the training steps see no workload.
    serving = workload if isinstance(workload, InferenceWorkload) else None
    workload = None if serving is not None else workload

    # 1. what the design is, as the analyses see it
    flat = flatten(design, catalog)
    topology = analyze_topology(flat, assumptions.network)
    # the floor plan: racks, rows, halls, every cable's length (core/site); the inventory buys
    # cables and optics for the placed lengths, and reliability counts failures by their media,
    # unless the project's site says "cable_lengths": "drawn"
    placed = place_design(design, flat, topology.graph, design.site, assumptions.power)
    inventory, inventory_warnings = build_inventory(_bought_for(flat, design, placed),
                                                    topology.tiers)
    link_rates = (with_placed_link_rates(assumptions.reliability, inventory, placed.cables)
                  if _placed_lengths(design) else assumptions.reliability)
    spof_units, spof_paths = single_points_of_failure(flat, topology.tiers)
    fabric = topology.fabric
    structure = plane_structure(design, flat)

    # Several workloads on one design: the main workload runs on its partition only: its
    # fabric, and the storage path, DPUs and failures of its part of the design.
    parts = (resolve_partitions(design, catalog, flat, topology, inventory, assumptions, workload or serving)
             if has_partitions(design) else None)
    main = parts.main if parts is not None else None
    job_flat, job_topology, job_inventory = (main.analysed if main is not None and main.analysed
                                             else (flat, topology, inventory))
    job_fabric = main.fabric if main is not None else fabric

    # 2.-8. the analyses, each fed by the steps before it
    bandwidth = analyze_bandwidth(topology, assumptions.network)
    latency = analyze_latency(topology, assumptions.network)
    storage = analyze_storage(job_topology, workload, assumptions.storage, assumptions.network)
    dpus = analyze_dpus(job_flat, storage.classes, storage.dpu_stages,
                        assumptions.storage.dpu_encrypt_storage)
    reliability = analyze_reliability(
        job_inventory, job_fabric, workload,
        storage.classes["checkpoint_write"].job_gbyte_s or 0.0, spof_paths,
        link_rates,
        storage_read_gbyte_s=storage.classes["checkpoint_restore"].job_gbyte_s or 0.0,
        checkpoint_tiers=assumptions.storage.checkpoint_tier_list(),
        plane_failover=structure.failover(assumptions.reliability.plane_failover),
    )
    planes = analyze_planes(structure, flat, topology.tiers, bandwidth.per_gpu_scale_out_gbit_s,
                            bandwidth.bisection_tbit_s, latency.max_switch_hops, inventory, fabric,
                            workload, link_rates)
    fabric = job_fabric
    performance = None
    bottleneck = None
    cannot_run: tuple[Diagnostic, ...] = ()
    if workload is not None and fabric is None:
        cannot_run = _no_fabric(workload, main)
    elif workload is not None and fabric is not None:
        performance = _on_partition(analyze_performance(fabric, workload, assumptions.performance,
                                                        reliability.ettr), main)
        cannot_run = performance.cannot_run
        bottleneck = explain_bottleneck(fabric, workload, assumptions.performance, performance)
    ran = performance if performance is not None and performance.runs else None
    power = analyze_power(inventory, ran.training_days if ran is not None else None,
                          ran.job_gpus if ran is not None else None, assumptions.power)
    cost = analyze_cost(inventory, power, performance, catalog, assumptions.cost,
                        assumptions.power.electricity_usd_per_kwh,
                        workload.training_tokens if workload is not None else None,
                        reliability.ettr)
    facility_kw, usd_per_gpu_hour = power.facility_kw, cost.usd_per_gpu_hour
    if parts is not None:
        parts = with_shares(parts, inventory.gpus, power, cost)
        main = parts.main
        cost = _run_on_partition(cost, main, performance, workload)
        if main is not None:
            facility_kw, usd_per_gpu_hour = main.facility_kw or 0.0, main.usd_per_gpu_hour

    inference = inference_search = None
    if serving is not None and fabric is None:
        cannot_run = _no_fabric(serving, main)
    elif serving is not None:
        # a remote prefix cache reads multi-MB KV chunks: the bulk-read class of every GPU
        served = analyze_inference_workload(
            fabric, serving, facility_kw, assumptions.inference, usd_per_gpu_hour=usd_per_gpu_hour,
            storage_read_gbyte_s_per_gpu=storage.classes["data_loading"].per_gpu_gbyte_s)
        inference, inference_search = _on_partition(served.result, main), served.search
        cannot_run = inference.cannot_run
        bottleneck = explain_inference_bottleneck(served)
    services = serve_services(design, parts, assumptions, topology) if parts is not None else ()
    site = analyze_site(design, flat, topology.graph, design.site, assumptions.power,
                        _cables_by_family(inventory), placed, topology.tiers, topology.tier_order,
                        assumptions.reliability.link_per_1000_days)

    warnings: list[Diagnostic] = [*topology.diagnostics, *inventory_warnings,
                                  *bandwidth.diagnostics, *cannot_run]
    if performance is not None:
        warnings.extend(performance.diagnostics)
    elif inference is not None:
        warnings.extend(inference.diagnostics)
    elif workload is None and serving is None and not services:
        warnings.append(Diagnostic("NO_WORKLOAD", "no workload: performance and energy are not computed"))
    if parts is not None:
        warnings += [*parts.diagnostics, *service_warnings(services)]
    warnings.extend(storage.diagnostics)
    warnings.extend(dpus.diagnostics)
    warnings.extend(reliability.diagnostics)
    warnings.extend(power.diagnostics)
    warnings.extend(cost.diagnostics)
    warnings.extend(site.diagnostics)
    counts = _counts(inventory, topology)
    return Evaluation(
        design.name, counts, bandwidth, latency, power, reliability, performance, workload,
        assumptions, inventory, topology, merge_diagnostics(warnings),
        time.perf_counter() - start, spof_units, bottleneck, cannot_run, cost, storage, dpus,
        planes=planes, inference=inference, inference_search=inference_search, partitions=parts,
        services=services, site=site,
    )


def _placed_lengths(design: Design) -> bool:
    """Cost, power and reliability follow the placed lengths unless the site says "drawn"."""
    return design.site is None or design.site.placed_lengths


def _bought_for(flat: FlatDesign, design: Design, placed: Placed) -> FlatDesign:
    """The flattened design the inventory counts: every bundle split by the reach its placed
    runs need (core/site/bought.py), or as drawn when the site says "cable_lengths": "drawn"."""
    return bought_at_placed_lengths(flat, placed.cables) if _placed_lengths(design) else flat


def _placed_latency_us(ev: Evaluation) -> float | None:
    """The longest GPU-to-GPU latency with the site's cable lengths instead of the drawn ones
    (under a failure what-if: the intact design's cables, which the failed units leave in place)."""
    l = ev.latency
    if ev.site is None or l.gpu_to_gpu_max_us is None:
        return None if ev.site is None else l.gpu_to_gpu_max_us
    delta = ev.site.latency_delta_us
    outer = ev.topology.tier_order[-1] if ev.topology.tier_order else None
    return round(l.gpu_to_gpu_max_us + delta.get(outer, 0.0), 4)


def _cables_by_family(inventory: Inventory) -> dict[str, int]:
    """Cables bought per drawn medium ("copper", "fiber"): what the site shares over its media."""
    out: dict[str, int] = {}
    for item in inventory.by_role("cable"):
        medium = str(item.spec.medium)
        out[medium] = out.get(medium, 0) + item.count
    return out


def _no_fabric(workload: Workload | InferenceWorkload, main: PartitionView | None) -> tuple[Diagnostic, ...]:
    """Why the main workload has no GPUs: the design has none, or its partition gives it none."""
    if main is not None and main.problems:
        return main.problems
    return (Diagnostic("NO_GPUS", f"the design has no GPUs: {workload.name} cannot run"),)


def _on_partition(result: Any, main: PartitionView | None) -> Any:
    """A performance or inference result whose diagnostics say which partition it ran on."""
    if main is None:
        return result
    where = on_what(main)
    return replace(result, cannot_run=named(result.cannot_run, where),
                   diagnostics=named(result.diagnostics, where))


def _run_on_partition(cost: CostResult, main: PartitionView | None, performance: PerformanceResult | None,
                      workload: Workload | None) -> CostResult:
    """``cost`` with the training run priced at its partition's $/GPU-hour (cost.py's run at
    the design's average rate: the same whenever the partitions hold one kind of hardware)."""
    ran = performance if performance is not None and performance.runs else None
    if main is None or ran is None or ran.training_days is None or main.usd_per_gpu_hour is None:
        return cost
    reasons = dict(cost.null_reasons)
    reasons.pop("training_run_usd", None)
    reasons.pop("usd_per_million_tokens_trained", None)
    run = main.usd_per_gpu_hour * ran.job_gpus * ran.training_days * 24.0
    if not math.isfinite(run):
        reasons["training_run_usd"] = "training_run_usd is not a finite number"
        run = None
    tokens = workload.training_tokens if workload is not None else None
    return replace(cost, training_run_usd=run,
                   usd_per_million_tokens_trained=per_million_tokens(run, tokens, reasons),
                   null_reasons=reasons)


def evaluation_to_json(ev: Evaluation) -> dict[str, Any]:
    c, b, l, p, r = ev.counts, ev.bandwidth, ev.latency, ev.power, ev.reliability
    out = {
        "format": EVALUATION_FORMAT,
        "design": ev.design_name,
        # false when any warning is an error: no figure below is that of a buildable design
        "valid": ev.valid,
        "invalid_reasons": [{"code": w.code, "message": w.message} for w in ev.errors],
        "counts": {
            "gpus": c.gpus, "servers": c.servers, "switches": c.switches,
            "switches_by_tier": c.switches_by_tier, "scale_up_switches": c.scale_up_switches,
            "nics": c.nics, "dpus": c.dpus, "storage_nodes": c.storage_nodes, "links": c.links,
            "transceivers": c.transceivers, "cables": c.cables,
        },
        "bandwidth": {
            "scale_up_domain_gpus": b.scale_up_domain_gpus,
            "per_gpu_scale_up_gbyte_s": b.per_gpu_scale_up_gbyte_s,
            "per_gpu_scale_out_gbit_s": b.per_gpu_scale_out_gbit_s,
            "bisection_tbit_s": b.bisection_tbit_s,
            "bisection_method": b.bisection_method,
            "oversubscription_by_tier": b.oversubscription_by_tier,
            "allreduce_busbw_gbyte_s": b.allreduce_busbw_gbyte_s,
            "alltoall_per_gpu_gbyte_s": b.alltoall_per_gpu_gbyte_s,
            "storage_read_gbyte_s": b.storage_read_gbyte_s,
            "storage_write_gbyte_s": b.storage_write_gbyte_s,
            "per_gpu_by_level_gbit_s": b.per_gpu_by_level_gbit_s,
            # how the scale-out tiers spread traffic (core/analysis/load_balance.py)
            "load_balancing": b.load_balancing,
            "effective_fraction_by_tier": b.effective_fraction_by_tier,
            "effective_by_tier_gbit_s": b.effective_by_tier_gbit_s,
            "in_network_reduction": b.in_network_reduction,
            # independent planes the GPUs' scale-out bandwidth is summed over (1: one fabric)
            "planes": ev.planes.planes if ev.planes is not None else 1,
            "per_plane": ev.planes.bandwidth_json() if ev.planes is not None else None,
        },
        "latency": {
            "max_switch_hops": l.max_switch_hops,
            "gpu_to_gpu_max_us": l.gpu_to_gpu_max_us,
            "gpu_to_gpu_mean_us": l.gpu_to_gpu_mean_us,
            "allreduce_small_us": l.allreduce_small_us,
            "by_level_us": l.by_level_us,
        },
        "power": {
            "it_kw": p.it_kw, "typical_kw": p.typical_kw, "facility_kw": p.facility_kw, "pue": p.pue,
            "by_kind_kw": dict(p.by_kind_kw), "max_rack_kw": p.max_rack_kw,
            "cooling": {kind: to_jsonable(racks) for kind, racks in p.cooling.items()},
            "network_kw": p.network_kw, "network_share": p.network_share,
            "energy_mwh_it": p.energy_mwh_it, "energy_mwh_facility": p.energy_mwh_facility,
            "energy_cost_usd": p.energy_cost_usd, "co2_t": p.co2_t, "gpu_hours": p.gpu_hours,
        },
        "reliability": {
            "interruptions_per_day": r.interruptions_per_day,
            "mtbi_hours": r.mtbi_hours,
            "checkpoint_size_gb": r.checkpoint_size_gb,
            "checkpoint_write_s": r.checkpoint_write_s,
            "checkpoint_restore_s": r.checkpoint_restore_s,
            "checkpoint_restore_from": r.checkpoint_restore_from,
            "checkpoint_blocking_s": r.checkpoint_blocking_s if r.checkpoint_size_gb else None,
            "checkpoint_recoverable_after_s": r.checkpoint_recoverable_after_s,
            "checkpoint_tiers_used": list(r.checkpoint_tiers_used),
            "checkpoint_interval_min": r.checkpoint_interval_min,
            "ettr": r.ettr,
            "single_points_of_failure": ev.spof_units,
            "spof_components": list(r.spof_components),
            "job_gpus": r.job_gpus,
            "rate_by_kind_per_day": dict(r.rate_by_kind),
            "spares_for_target": r.spares_for_target,
            "planes": ev.planes.reliability_json() if ev.planes is not None else None,
        },
        "performance": _performance_json(ev),
        "cost": _cost_json(ev),
        "storage": ev.storage.to_json() if ev.storage is not None else None,
        "dpus": ev.dpus.to_json() if ev.dpus is not None else None,
        "bottleneck": ev.bottleneck.to_json() if ev.bottleneck is not None else None,
        "warnings": [w.to_json() for w in ev.warnings],
        "inference": _inference_json(ev),
        "workload": (workload_to_dict(ev.workload) if ev.workload is not None
                     else inference_workload_to_dict(_served_workload(ev)) if ev.inference is not None
                     else None),
        "assumptions": assumptions_to_dict(ev.assumptions, only_changed=False),
        "failure": ev.failure.to_json() if ev.failure is not None else no_failure_json(),
        # several workloads on one design: every partition, and each service's serving figures
        # (its "inference" has the keys of the evaluation's own); empty for one workload
        "partitions": [view.to_json() for view in ev.partitions.all] if ev.partitions is not None else [],
        "services": [service.to_json() for service in ev.services],
        # the floor plan; its gpu_to_gpu_max_us is the latency section's with placed lengths
        "site": ({**ev.site.to_json(), "gpu_to_gpu_max_us": _placed_latency_us(ev)}
                 if ev.site is not None else None),
        "evaluation_ms": ev.elapsed_s * 1000.0,
    }
    return to_jsonable(out)


PERFORMANCE_KEYS = ("mfu", "tflops_per_gpu", "step_time_s", "tokens_per_s", "training_days",
                    "memory_per_gpu_gb", "fits_memory", "breakdown_s")
PERFORMANCE_EXTRA_KEYS = ("hfu", "job_gpus", "microbatches", "memory_gb", "parallelism",
                          "mfu_range", "training_days_range")


def _performance_json(ev: Evaluation) -> dict[str, Any]:
    """The contract keys (null where the job cannot run or there is none), whether it runs
    (``runs``: null without a workload) and why not (``cannot_run``: code, severity, message),
    what stays real when it cannot: the layout, its GPUs, memory per GPU and breakdown, and
    the software stack assumed (``stack``: preset id, name, whether values were changed)."""
    perf = ev.performance
    runs = None if ev.workload is None else not ev.cannot_run
    reasons = [d.to_json() for d in ev.cannot_run]
    stack = stack_status(ev.assumptions.performance).to_json()
    if perf is None:
        return {**{key: None for key in (*PERFORMANCE_KEYS, *PERFORMANCE_EXTRA_KEYS)},
                "runs": runs, "cannot_run": reasons, "stack": stack}
    out = {key: getattr(perf, key) for key in PERFORMANCE_KEYS}
    out["breakdown_s"] = dict(perf.breakdown_s) if perf.breakdown_s is not None else None
    out.update(hfu=perf.hfu, job_gpus=perf.job_gpus, microbatches=perf.microbatches, runs=runs,
               cannot_run=reasons, memory_gb=perf.memory.to_json(),
               parallelism=parallelism_to_dict(perf.parallelism), stack=stack)
    # an uncalibrated accelerator's bracket, conservative and optimistic (null when calibrated)
    bracket = perf.to_json()
    out.update(mfu_range=bracket["mfu_range"], training_days_range=bracket["training_days_range"])
    if perf.moe:  # the expert all-to-all per step, hidden or not (exposed: breakdown ep_comm)
        out["alltoall_s"] = perf.alltoall_s
    return out


COST_KEYS = ("hardware_capex_usd", "facility_capex_usd", "capex_usd", "capex_by_kind_usd",
             "opex_usd_per_year", "tco_usd_per_year", "usd_per_gpu_hour", "training_run_usd",
             "usd_per_million_tokens_trained")
COST_METHOD_KEYS = ("usd_per_delivered_gpu_hour", "utilization", "hardware_depreciation_years",
                    "facility_depreciation_years", "wacc", "depreciation_usd_per_year_by_part")
COST_EXTRA_KEYS = ("capex_usd_per_gpu", "energy_usd_per_year", "maintenance_usd_per_year",
                   "colocation_usd_per_year", "depreciation_usd_per_year", "facility",
                   "network_depreciation_years", "ettr", "capex_by_part_usd")


def _cost_json(ev: Evaluation) -> dict[str, Any]:
    """The contract keys (null where an unpriced component or a missing run leaves them
    unknown), the opex parts, the ids without a price and the assumptions the figures used
    (the power assumptions' electricity price among them)."""
    cost = ev.cost
    keys = (*COST_KEYS, *COST_METHOD_KEYS, *COST_EXTRA_KEYS)
    if cost is None:
        return {key: None for key in keys}
    out: dict[str, Any] = {key: getattr(cost, key) for key in keys}
    for key in ("capex_by_kind_usd", "capex_by_part_usd", "depreciation_usd_per_year_by_part"):
        out[key] = dict(getattr(cost, key))
    # why each null figure is null (an unpriced part, no GPUs, no run, a vanishing token count)
    out["null_reasons"] = dict(cost.null_reasons)
    out["unpriced_ids"] = list(cost.unpriced_ids)
    out["assumptions"] = {
        **assumptions_to_dict(ev.assumptions, only_changed=False)["cost"],
        "electricity_usd_per_kwh": ev.assumptions.power.electricity_usd_per_kwh,
    }
    return out


def _served_workload(ev: Evaluation) -> InferenceWorkload:
    """The inference workload as asked ("deployment": "auto" stays "auto")."""
    return ev.inference_search.workload if ev.inference_search is not None else ev.inference.workload


def _inference_json(ev: Evaluation) -> dict[str, Any] | None:
    """The serving figures of an inference main workload (core.analysis.inference's
    ``inference_section_json``); null for a training workload or none."""
    if ev.inference is None:
        return None
    return inference_section_json(ev.inference, ev.inference_search)
