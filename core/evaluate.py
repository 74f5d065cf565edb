"""Evaluate a design: its view, its partitions, every analysis in order, the evaluation JSON.

This is the one place that runs the analyses (docs/architecture.md). Each is a registered
unit of core/units.py (name, assumptions, inputs, run, to_json) over a pure function of
``core/analysis``; ``UNITS`` is their order:

1. the design as the analyses see it (core/design_view.py): flattened, its topology (switch
   tiers, GPU domains, the FabricView), placed on the floor (core/site), its inventory;
   and, for a design with several workloads (core/services.py), its partitions
   (core/partitions.py): each partition's cut-down design goes through the same first stage
   and the same power and cost units, which give its GPUs, fabric and own compute figures;
2. counts, network (bandwidth, latency)     <- topology
3. storage by I/O class                      <- the job's part of the design, workload
   DPUs: count, engines used, which binds    <- storage's DPU stages
4. reliability                               <- inventory, fabric, workload, storage's
                                                checkpoint bandwidth, single points of failure
   planes (multi-plane, rail-only)           <- bandwidth, latency
5. performance (the layout search for "auto") <- the job's fabric, workload, ETTR
6. power (and the run's energy)              <- inventory, days and GPUs of performance
7. cost (the run at its partition's rate)    <- inventory, prices, power, performance, ETTR
   partitions' shares of power and TCO       <- power, cost (core/analysis/cost.py)
8. inference (only for an inference workload; the deployment search for "auto")
                                             <- the job's fabric, power, cost's $/GPU-hour
                                                (its partition's), storage's bulk read per GPU
   bottleneck (training or serving) and what-ifs  <- performance or inference
   services (each served on its partition: core/service_results.py)  <- partitions
   site (the floor plan checked and summarised)  <- the placement of step 1
9. failure (only when units are failed or drained: the units run on the intact design and on
   the degraded one of core/degrade.py, which the result describes, except cost: what is
   owned is paid for, so capex and opex are the intact design's, the run the degraded one)

The main workload's storage, DPUs, reliability and performance run on its partition; the
design-wide units on the whole design. A job that cannot run on the design
(``Evaluation.cannot_run`` says why) has a performance result without run numbers, no
bottleneck and no run energy: absent, never computed as if it ran. The warnings of every
unit are merged (each code once) and sorted by severity.

``evaluation_to_json`` produces the evaluation JSON contract of DESIGN.md (format
``cluster-designer.evaluation/1``): every unit's sections, and the format, validity,
warnings, workload, assumptions and failure; every contract key is always present, with
``null`` where a value does not apply or cannot be computed.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from core.analysis.cost import analyze_cost, run_at_rate
from core.analysis.failure import OutOfServiceItem, analyze_failure, no_failure_json, run_figures
from core.analysis.inference import InferenceAnalysis
from core.analysis.performance import PerformanceResult, analyze_performance
from core.analysis.planes import plane_structure
from core.assumptions import Assumptions, assumptions_to_dict
from core.catalog import Catalog, default_catalog
from core.degrade import degraded_design, original_path, out_of_service
from core.design_view import design_gpus, placed_lengths, view_design
from core.diagnostics import Diagnostic, merge_diagnostics
from core.evaluation import Evaluation
from core.fabric import FabricView
from core.failure_paths import units_in_design
from core.inference_workload import InferenceWorkload, inference_workload_to_dict
from core.jsonable import to_jsonable
from core.model import Design
from core.operations import SetOutOfService
from core.partitions import CutEvaluation, PartitionView, has_partitions, resolve_partitions
from core.preset_fit import fit_to_design
from core.site.analysis import SITE_CODES
from core.site.failures import with_placed_link_rates
from core.topology import single_points_of_failure
from core.units import CUT_UNITS, SECTIONS, UNITS, Stage, run_units
from core.workload import Workload, workload_to_dict

EVALUATION_FORMAT = "cluster-designer.evaluation/1"


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
    return design_gpus(degraded_design(only_failed), catalog)


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
    ran = relayout or degraded.performance
    tokens = degraded.workload.training_tokens if degraded.workload is not None else None
    cost = analyze_cost(intact.inventory, intact.power, ran, catalog, degraded.assumptions.cost,
                        degraded.assumptions.power.electricity_usd_per_kwh, tokens,
                        degraded.reliability.ettr)
    cost = run_at_rate(cost, main.usd_per_gpu_hour if main is not None else None, ran, tokens)
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
    assumptions = design.assumptions or Assumptions()
    workload = workload if workload is not None else design.workload
    # An inference workload is served, not trained: the training units see no workload.
    serving = workload if isinstance(workload, InferenceWorkload) else None
    workload = None if serving is not None else workload
    whole = view_design(design, catalog, assumptions)

    def evaluate_cut(cut: Design) -> CutEvaluation:
        """A partition's cut-down design through the same first stage and power and cost
        units (the design itself when the partition's pool is all of it)."""
        view = whole if cut is design else view_design(cut, catalog, assumptions, on_floor=False)
        done = run_units(Stage(cut, catalog, assumptions, None, None, view), CUT_UNITS,
                         given={"performance": None, "reliability": None})
        return CutEvaluation(view, done["power"], done["cost"])

    # Several workloads on one design: the main workload runs on its partition only
    parts = (resolve_partitions(design, catalog, workload or serving, evaluate_cut)
             if has_partitions(design) else None)
    spof_units, spof_paths = single_points_of_failure(whole.flat, whole.topology.tiers)
    # reliability counts link failures by their placed media unless the site says "drawn"
    link_rates = (with_placed_link_rates(assumptions.reliability, whole.inventory, whole.placed.cables)
                  if placed_lengths(design) else assumptions.reliability)
    stage = Stage(design, catalog, assumptions, workload, serving, whole, parts, spof_units,
                  spof_paths, plane_structure(design, whole.flat), link_rates)
    results = run_units(stage, UNITS)

    cannot_run = _cannot_run(stage, results["performance"], results["inference"])
    warnings = [*whole.topology.diagnostics, *whole.inventory_warnings, *cannot_run]
    if workload is None and serving is None and not design.services:
        warnings.append(Diagnostic("NO_WORKLOAD", "no workload: performance and energy are not computed"))
    warnings += [d for unit in UNITS for d in unit.warnings(results[unit.name])]
    served = results.pop("inference")  # the deployment served, and the search that chose it
    return Evaluation(
        design_name=design.name, workload=workload, assumptions=assumptions,
        inventory=whole.inventory, topology=whole.topology, warnings=merge_diagnostics(warnings),
        elapsed_s=time.perf_counter() - start, spof_units=spof_units, cannot_run=cannot_run,
        inference=served.result if served is not None else None,
        inference_search=served.search if served is not None else None, **results)


def _cannot_run(stage: Stage, performance: PerformanceResult | None,
                served: InferenceAnalysis | None) -> tuple[Diagnostic, ...]:
    """Why the main workload cannot run: its result's reasons, or no GPUs for it."""
    main_workload = stage.workload or stage.serving
    if main_workload is not None and stage.job_fabric is None:
        return _no_fabric(main_workload, stage.main)
    if performance is not None:
        return performance.cannot_run
    return served.result.cannot_run if served is not None else ()


def _no_fabric(workload: Workload | InferenceWorkload, main: PartitionView | None) -> tuple[Diagnostic, ...]:
    """Why the main workload has no GPUs: the design has none, or its partition gives it none."""
    if main is not None and main.problems:
        return main.problems
    return (Diagnostic("NO_GPUS", f"the design has no GPUs: {workload.name} cannot run"),)


def evaluation_to_json(ev: Evaluation) -> dict[str, Any]:
    """The evaluation JSON: every unit's sections and the evaluation's own, in ``SECTIONS``
    order."""
    sections: dict[str, Any] = {
        "format": EVALUATION_FORMAT,
        "design": ev.design_name,
        # false when any warning is an error: no figure below is that of a buildable design
        "valid": ev.valid,
        "invalid_reasons": [{"code": w.code, "message": w.message} for w in ev.errors],
        "warnings": [w.to_json() for w in ev.warnings],
        "workload": (workload_to_dict(ev.workload) if ev.workload is not None
                     else inference_workload_to_dict(_served_workload(ev)) if ev.inference is not None
                     else None),
        "assumptions": assumptions_to_dict(ev.assumptions, only_changed=False),
        "failure": ev.failure.to_json() if ev.failure is not None else no_failure_json(),
        "evaluation_ms": ev.elapsed_s * 1000.0,
    }
    for unit in UNITS:
        sections.update(unit.to_json(ev))
    return to_jsonable({key: sections[key] for key in SECTIONS})


def _served_workload(ev: Evaluation) -> InferenceWorkload:
    """The inference workload as asked ("deployment": "auto" stays "auto")."""
    return ev.inference_search.workload if ev.inference_search is not None else ev.inference.workload
