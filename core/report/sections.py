"""The table model every report format renders: titled sections of labelled rows, one section
per analysis, plus the bill of materials and the assumptions, as text.

A new analysis adds its section here (a ``_<name>_rows`` function and one line in
``report_sections``); Markdown, HTML and CSV pick it up unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.analysis.bottleneck import BottleneckResult
from core.analysis.inference_bottleneck import InferenceBottleneck
from core.analysis.inference_search import DeploymentSearch
from core.analysis.memory import MemoryBreakdown
from core.analysis.reliability import ReliabilityResult
from core.analysis.serving import Disaggregation, KvPlacement, PoolFigures
from core.analysis.storage import IO_CLASS_TITLES
from core.dpu_engines import ENGINE_TITLES
from core.assumptions import assumptions_to_dict
from core.analysis.inference import InferenceResult
from core.evaluate import Evaluation
from core.report.site_rows import site_rows
from core.service_results import ServiceResult
from core.stacks import stack_status


# A GPU-to-GPU latency of a fabric in parts: some GPUs have no path to the others.
UNREACHABLE = "no path between some GPUs (fabric in parts)"


@dataclass(frozen=True)
class Row:
    label: str
    value: str
    key: str  # stable machine key (section.key), used by CSV


def _num(value: float | None, digits: int = 1, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and value != value:  # NaN
        return "n/a"
    if value == float("inf"):
        return "∞"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def report_sections(ev: Evaluation) -> list[tuple[str, list[Row]]]:
    """(title, rows) of every section, in report order; Performance when there is a workload
    (saying "does not fit" and why when it cannot run), Bottleneck when there is one."""
    sections = [] if ev.failure is None else [("Failure what-if", _failure_rows(ev))]
    sections += [
        ("Counts", _counts_rows(ev)),
        ("Bandwidth", _bandwidth_rows(ev)),
        ("Latency", _latency_rows(ev)),
        ("Power", _power_rows(ev)),
        ("Reliability", _reliability_rows(ev)),
    ]
    if ev.storage is not None:
        sections.append(("Storage by I/O class", storage_rows(ev)))
    if ev.dpus is not None and ev.dpus.models:
        sections.append(("DPUs", dpu_rows(ev)))
    if ev.workload is not None:
        sections.append(("Performance", _performance_rows(ev)))
    if ev.inference is not None:
        sections.append(("Inference", inference_rows(ev)))
    if ev.partitions is not None:
        sections.append(("Partitions", partition_rows(ev)))
    sections += [(f"Service {service.name}", service_rows(service)) for service in ev.services]
    if isinstance(ev.bottleneck, InferenceBottleneck):
        sections.append(("Bottleneck", inference_bottleneck_rows(ev.bottleneck)))
    elif ev.bottleneck is not None:
        sections.append(("Bottleneck", _bottleneck_rows(ev.bottleneck)))
    if ev.cost is not None:
        sections.append(("Cost", _cost_rows(ev)))
    if ev.site is not None:
        sections.append(("Site", [Row(*row) for row in site_rows(ev)]))
    return sections


def _counts_rows(ev: Evaluation) -> list[Row]:
    c = ev.counts
    tiers = ", ".join(f"{t} {n:,}" for t, n in c.switches_by_tier.items()) or "none"
    return [
        Row("GPUs", f"{c.gpus:,}", "counts.gpus"),
        Row("Servers / super-nodes", f"{c.servers:,}", "counts.servers"),
        Row("Scale-out switches", f"{c.switches:,} ({tiers})", "counts.switches"),
        Row("Scale-up switch chips", f"{c.scale_up_switches:,}", "counts.scale_up_switches"),
        Row("NICs / DPUs", f"{c.nics:,} / {c.dpus:,}", "counts.nics"),
        Row("Storage nodes", f"{c.storage_nodes:,}", "counts.storage_nodes"),
        Row("Links / cables / transceivers",
            f"{c.links:,} / {c.cables:,} / {c.transceivers:,}", "counts.links"),
    ]


def _bandwidth_rows(ev: Evaluation) -> list[Row]:
    b = ev.bandwidth
    over = ", ".join(f"{t} {v:g}:1" for t, v in b.oversubscription_by_tier.items()) or "none"
    return [
        Row("Scale-up domain", f"{b.scale_up_domain_gpus:,} GPUs", "bandwidth.scale_up_domain_gpus"),
        Row("Per-GPU scale-up", _num(b.per_gpu_scale_up_gbyte_s, 0, "GB/s per direction"),
            "bandwidth.per_gpu_scale_up_gbyte_s"),
        Row("Per-GPU scale-out", _num(b.per_gpu_scale_out_gbit_s, 0, "Gb/s"),
            "bandwidth.per_gpu_scale_out_gbit_s"),
        Row("Bisection", f"{_num(b.bisection_tbit_s, 1, 'Tb/s')} ({b.bisection_method})",
            "bandwidth.bisection_tbit_s"),
        Row("Oversubscription", over, "bandwidth.oversubscription_by_tier"),
        Row("All-reduce bus bandwidth (all GPUs)", _num(b.allreduce_busbw_gbyte_s, 0, "GB/s"),
            "bandwidth.allreduce_busbw_gbyte_s"),
        Row("All-to-all per GPU", _num(b.alltoall_per_gpu_gbyte_s, 1, "GB/s"),
            "bandwidth.alltoall_per_gpu_gbyte_s"),
        Row("Storage read reachable", _num(b.storage_read_gbyte_s, 0, "GB/s"),
            "bandwidth.storage_read_gbyte_s"),
        *_fabric_behaviour_rows(b),
        *([Row("Rails" if ev.planes.rails else "Planes", ev.planes.bandwidth_summary(),
               "bandwidth.per_plane")] if ev.planes is not None else []),
    ]


def _fabric_behaviour_rows(b) -> list[Row]:
    """Load balancing, in-network reduction and each scale-out tier's fraction of line rate
    per collective pattern (docs/guide/fabrics.md)."""
    if not b.effective_fraction_by_tier:
        return []
    rows = [Row("Load balancing", b.load_balancing or "n/a", "bandwidth.load_balancing"),
            Row("In-network reduction", b.in_network_reduction, "bandwidth.in_network_reduction")]
    for tier, fractions in b.effective_fraction_by_tier.items():
        rows.append(Row(f"{tier.capitalize()}: fraction of line rate",
                        ", ".join(f"{p} {v:.0%}" for p, v in fractions.items()),
                        f"bandwidth.effective_fraction_by_tier.{tier}"))
    return rows


def _latency_rows(ev: Evaluation) -> list[Row]:
    lat = ev.latency
    return [
        Row("Max switch hops", f"{lat.max_switch_hops}", "latency.max_switch_hops"),
        Row("GPU-to-GPU max", _latency(lat.gpu_to_gpu_max_us), "latency.gpu_to_gpu_max_us"),
        Row("GPU-to-GPU mean", _latency(lat.gpu_to_gpu_mean_us), "latency.gpu_to_gpu_mean_us"),
        Row("Small all-reduce (8 B, all GPUs)", _num(lat.allreduce_small_us, 1, "µs"),
            "latency.allreduce_small_us"),
    ]


def _latency(us: float | None) -> str:
    return _num(us, 2, "µs") if us is not None else UNREACHABLE


def _power_rows(ev: Evaluation) -> list[Row]:
    p = ev.power
    return [
        Row("IT (provisioned, nameplate)", _num(p.it_kw, 0, "kW"), "power.it_kw"),
        Row("IT (typical in training)", _num(p.typical_kw, 0, "kW"), "power.typical_kw"),
        Row("PUE", _num(p.pue, 2), "power.pue"),
        Row("Facility", _num(p.facility_kw, 0, "kW"), "power.facility_kw"),
        Row("Max rack", _num(p.max_rack_kw, 1, "kW"), "power.max_rack_kw"),
        Row("Network share of IT", _pct(p.network_share), "power.network_share"),
        *[Row(f"  {kind} cooling: racks (max kW of limit, PUE)",
              f"{racks.racks:,} ({_num(racks.max_rack_kw, 1, 'kW')} of {_num(racks.rack_limit_kw, 0, 'kW')}, "
              f"PUE {_num(racks.pue, 2)})"
              + (f", {racks.over_limit_racks:,} over the limit" if racks.over_limit_racks else ""),
              f"power.cooling.{kind}") for kind, racks in p.cooling.items()],
        *[Row(f"  {kind}", _num(kw, 1, "kW"), f"power.by_kind_kw.{kind}") for kind, kw in p.by_kind_kw.items()],
        Row("Training-run energy (facility)", _run_value(ev, _num(p.energy_mwh_facility, 0, "MWh")),
            "power.energy_mwh_facility"),
        Row("Training-run electricity cost", _run_value(ev, _num(p.energy_cost_usd, 0, "USD")),
            "power.energy_cost_usd"),
    ]


def does_not_fit(ev: Evaluation) -> str:
    """"does not fit: <reason>; <reason>" for a workload that cannot run on the design, else ""."""
    return _does_not_fit(ev.cannot_run)


def _does_not_fit(reasons: tuple) -> str:
    return "does not fit: " + "; ".join(d.message for d in reasons) if reasons else ""


def _run_value(ev: Evaluation, value: str) -> str:
    """A number of the training run, or why there is none."""
    if ev.inference is not None:
        return "n/a (inference workload: see Inference)"
    if ev.cannot_run:
        return "does not fit (see Performance)"
    return value if ev.workload is not None else "n/a (no workload)"


def unpriced_text(ids: tuple[str, ...]) -> str:
    """"not computable: no price for A, B": why a cost figure is absent."""
    return "not computable: no price for " + ", ".join(ids)


def _cost_rows(ev: Evaluation) -> list[Row]:
    """Capex (by kind), opex and its parts, TCO, $/GPU-hour and the run; "not computable" and
    the unpriced ids where a missing price leaves a figure unknown."""
    c = ev.cost
    missing = "not computable (no price)"

    def usd(value: float | None, digits: int = 0) -> str:
        return _num(value, digits, "USD") if value is not None else missing

    run = usd(c.training_run_usd)
    per_token = usd(c.usd_per_million_tokens_trained, 2)
    if c.usd_per_gpu_hour is not None and c.training_run_usd is None:
        run = per_token = _run_value(ev, "n/a")
    rows = [Row("Result", unpriced_text(c.unpriced_ids), "cost.unpriced_ids")] if c.unpriced_ids else []
    return rows + [
        Row("Hardware capex", usd(c.hardware_capex_usd), "cost.hardware_capex_usd"),
        *[Row(f"  {kind}", usd(value), f"cost.capex_by_kind_usd.{kind}")
          for kind, value in c.capex_by_kind_usd.items()],
        Row("Facility capex", usd(c.facility_capex_usd), "cost.facility_capex_usd"),
        Row("Capex", usd(c.capex_usd), "cost.capex_usd"),
        Row("Capex per GPU", usd(c.capex_usd_per_gpu), "cost.capex_usd_per_gpu"),
        Row("Energy per year", usd(c.energy_usd_per_year), "cost.energy_usd_per_year"),
        Row("Maintenance per year", usd(c.maintenance_usd_per_year), "cost.maintenance_usd_per_year"),
        Row("Colocation per year", usd(c.colocation_usd_per_year), "cost.colocation_usd_per_year"),
        Row("Opex per year", usd(c.opex_usd_per_year), "cost.opex_usd_per_year"),
        Row("TCO per year", usd(c.tco_usd_per_year), "cost.tco_usd_per_year"),
        Row("Cost per GPU-hour (owning, fully allocated)", usd(c.usd_per_gpu_hour, 2), "cost.usd_per_gpu_hour"),
        Row("Cost per delivered GPU-hour", _delivered_text(c, usd), "cost.usd_per_delivered_gpu_hour"),
        *_method_rows(c),
        Row("Training run", run, "cost.training_run_usd"),
        Row("Cost per million tokens trained", per_token, "cost.usd_per_million_tokens_trained"),
    ]


def _delivered_text(c, usd) -> str:
    """The delivered GPU-hour with what it divides by, or why there is none."""
    if c.usd_per_delivered_gpu_hour is None:
        why = c.null_reasons.get("usd_per_delivered_gpu_hour", "")
        return usd(None) if c.unpriced_ids else f"n/a ({why})" if why else "n/a"
    ettr = f" x ETTR {_pct(c.ettr)}" if c.ettr is not None else ""
    return f"{usd(c.usd_per_delivered_gpu_hour, 2)} (at {_pct(c.utilization)} utilisation{ettr})"


_PART_LABELS = {"servers": "servers and GPUs", "network": "network",
                "building_shell": "building shell", "power_cooling_plant": "power and cooling plant"}


def _method_rows(c) -> list[Row]:
    """How the owning cost was reached: the facility, the lives, the WACC, each part's yearly
    capital charge."""
    method = "annuity at WACC " + _pct(c.wacc) if c.wacc > 0 else "straight line (WACC 0)"
    facility = (f"colocation ({_num(c.colocation_usd_per_year, 0, 'USD')} per year)"
                if c.facility == "colocation" else
                f"built, written off over {_num(c.facility_depreciation_years, 1, 'years')} (shell and plant)"
                if c.facility_depreciation_years is not None else "built (no facility capex)")
    rows = [Row("Facility", facility, "cost.facility"),
            Row("Lives: servers / network", f"{_num(c.hardware_depreciation_years, 1)} / "
                f"{_num(c.network_depreciation_years, 1)} years", "cost.hardware_depreciation_years"),
            Row("Capital charge", method, "cost.wacc")]
    for part, value in c.depreciation_usd_per_year_by_part.items():
        if value or value is None:
            rows.append(Row(f"  {_PART_LABELS.get(part, part)} per year",
                            _num(value, 0, "USD") if value is not None else "not computable (no price)",
                            f"cost.depreciation_usd_per_year_by_part.{part}"))
    return rows


def _failure_rows(ev: Evaluation) -> list[Row]:
    """What is out of service and what it costs; first, since every other section describes
    the degraded design."""
    f = ev.failure
    items = ", ".join(
        " + ".join(part for part in (f"{item.failed:,} failed" if item.failed else "",
                                     f"{item.drained:,} drained" if item.drained else "") if part)
        + f" of {item.units:,} {item.to_json()['target']}" for item in f.items)
    intact, left = f.intact, f.degraded

    def run(figures, value: str) -> str:
        return value if figures.runs else "does not run" if figures.runs is False else "no workload"

    relayout = ""
    if f.relayout is not None:
        par = f.relayout["parallelism"]
        relayout = (f"TP {par['tp']} PP {par['pp']} DP {par['dp']}"
                    + (f" CP {par['cp']}" if par["cp"] > 1 else "") + (f" EP {par['ep']}" if par["ep"] > 1 else "")
                    + f" ({f.relayout['method']})")
    rows = [
        Row("Out of service", items, "failure.out_of_service"),
        Row("GPUs failed / drained / stranded", f"{f.gpus_failed:,} / {f.gpus_drained:,} / {f.gpus_stranded:,}",
            "failure.gpus_failed"),
        Row("GPUs usable (intact)", f"{f.gpus_usable:,} ({f.gpus_intact:,})", "failure.gpus_usable"),
        Row("Bisection lost", f"{_pct(f.lost_bisection_fraction)} ({_num(f.bisection_tbit_s, 1)} of "
            f"{_num(f.bisection_tbit_s_intact, 1, 'Tb/s')} left)", "failure.lost_bisection_fraction"),
        Row("Scale-out injection lost", _pct(f.lost_scale_out_fraction), "failure.lost_scale_out_fraction"),
    ]
    if f.fits is not None:
        rows += [
            Row("Workload fits as written", "yes" if f.fits else "no", "failure.fits"),
            Row("Laid out again", relayout or "not needed", "failure.relayout"),
            Row("MFU (intact)", f"{run(left, _pct(left.mfu))} ({run(intact, _pct(intact.mfu))})", "failure.mfu"),
            Row("Time to train (intact)", f"{run(left, _num(left.training_days, 1, 'days'))} "
                f"({run(intact, _num(intact.training_days, 1, 'days'))})", "failure.training_days"),
            Row("ETTR (intact)", f"{_pct(left.ettr)} ({_pct(intact.ettr)})", "failure.ettr"),
        ]
    rows.append(Row("GPU-hours lost per day", _num(f.gpu_hours_lost_per_day, 0), "failure.gpu_hours_lost_per_day"))
    return rows


def _reliability_rows(ev: Evaluation) -> list[Row]:
    r = ev.reliability
    return [
        Row("Job GPUs", f"{r.job_gpus:,}", "reliability.job_gpus"),
        Row("Interruptions per day", _num(r.interruptions_per_day, 2), "reliability.interruptions_per_day"),
        Row("Mean time between interruptions", _num(r.mtbi_hours, 1, "h") if r.mtbi_hours is not None
            else "nothing can fail", "reliability.mtbi_hours"),
        Row("Checkpoint size", _num(r.checkpoint_size_gb, 0, "GB") if r.checkpoint_size_gb is not None
            else "no workload", "reliability.checkpoint_size_gb"),
        Row("Checkpoint write", r.checkpoint_missing or _num(r.checkpoint_write_s, 1, "s"),
            "reliability.checkpoint_write_s"),
        Row("Checkpoint blocking", _num(r.checkpoint_blocking_s, 2, "s")
            if r.checkpoint_size_gb is not None else "no workload", "reliability.checkpoint_blocking_s"),
        Row("Checkpoint restore", _restore_text(r), "reliability.checkpoint_restore_s"),
        Row("Checkpoint interval (Daly)", _num(r.checkpoint_interval_min, 1, "min")
            if r.checkpoint_interval_min is not None
            else "no workload" if r.checkpoint_size_gb is None else "no checkpoints needed",
            "reliability.checkpoint_interval_min"),
        Row("Effective training time ratio", _pct(r.ettr), "reliability.ettr"),
        Row("Single points of failure", f"{ev.spof_units:,}", "reliability.single_points_of_failure"),
        *([Row("Plane failures", ev.planes.reliability_summary(),
               "reliability.planes.degraded_events_per_day")]
          if ev.planes is not None and ev.planes.planes > 1 else []),
    ]


def _restore_text(r: ReliabilityResult) -> str:
    if r.checkpoint_size_gb is None:
        return "no workload"
    if r.checkpoint_restore_s is None:
        return "no storage"
    return f"{_num(r.checkpoint_restore_s, 2, 's')} from {r.checkpoint_restore_from}"


def storage_rows(ev: Evaluation) -> list[Row]:
    """One row per I/O class (the job's bandwidth, per GPU, latency and bottleneck), then the
    path each class takes (once per distinct path)."""
    rows: list[Row] = []
    paths: dict[str, list[str]] = {}
    for io_class, entry in ev.storage.classes.items():
        title = IO_CLASS_TITLES[io_class]
        if entry.job_gbyte_s is None:
            value = entry.path
        else:
            value = (f"{_num(entry.job_gbyte_s, 1, 'GB/s')} for the job "
                     f"({_num(entry.per_gpu_gbyte_s, 3, 'GB/s')} per GPU), "
                     f"{_num(entry.latency_us, 1, 'µs')}; limited by {entry.bottleneck}")
        rows.append(Row(title, value, f"storage.{io_class}.job_gbyte_s"))
        paths.setdefault(entry.path, []).append(io_class)
    if ev.storage.fabric is not None:
        for path, classes in paths.items():
            label = "Path" if len(paths) == 1 else f"Path ({', '.join(classes)})"
            rows.append(Row(label, path, f"storage.{classes[0]}.path"))
    return rows


def dpu_rows(ev: Evaluation) -> list[Row]:
    """One row per DPU model: how many, the engines at work, the one that limits storage I/O
    and the host CPU cores their offload frees (core/analysis/dpu.py)."""
    rows = []
    for model, m in ev.dpus.models.items():
        used = ", ".join(ENGINE_TITLES[e].lower() for e in m.engines_used) or "none listed"
        binds = (f"; its {ENGINE_TITLES[m.binding_engine].lower()} engine limits "
                 f"{', '.join(c.replace('_', ' ') for c in m.binding_io_classes)}"
                 if m.binding_engine else "")
        freed = ("" if m.cores_freed_total is None else
                 f"; frees {m.cores_freed_total:,.0f} host cores ({m.cores_freed_per_dpu:g} per DPU)")
        rows.append(Row(model, f"{m.count:,} x, engines used: {used}{binds}{freed}",
                        f"dpus.by_model.{model}"))
    if ev.dpus.encrypt_storage:
        rows.append(Row("Storage encryption", "IPsec on the DPUs' security engines",
                        "dpus.encrypt_storage"))
    return rows


def mfu_range_text(perf) -> str:
    """An uncalibrated accelerator's bracket: "32.5% conservative - 60.1% optimistic (training
    49.7 - 26.8 days)"."""
    low, high = perf.mfu_range
    text = f"{_pct(low)} conservative – {_pct(high)} optimistic"
    if perf.training_days_range is not None:
        slow, fast = perf.training_days_range
        text += f" (training {_num(slow, 1)} – {_num(fast, 1)} days)"
    return text


def _performance_rows(ev: Evaluation) -> list[Row]:
    """The run's numbers; for a job that cannot run, "does not fit" and why, then what is still
    real (its layout, GPUs and memory per GPU with the breakdown that shows why)."""
    perf, workload = ev.performance, ev.workload
    rows = [Row("Workload", workload.name if workload else "", "performance.workload"),
            Row("Software stack", stack_status(ev.assumptions.performance).label, "performance.stack")]
    if ev.partitions is not None and ev.partitions.main is not None:
        rows.append(Row("Partition", f"{ev.partitions.main.name}: {ev.partitions.main.describe()}",
                        "performance.partition"))
    if workload is not None and workload.preset_fit is not None:
        rows.append(Row("Preset fitted to the design", workload.preset_fit.note, "performance.preset_fit"))
    if ev.cannot_run:
        rows.append(Row("Result", does_not_fit(ev), "performance.cannot_run"))
    if perf is None:
        return rows
    par = perf.parallelism
    rows += [
        Row("Parallelism", f"TP {par.tp}, PP {par.pp}, DP {par.dp}, CP {par.cp}, EP {par.ep}",
            "performance.parallelism"),
        Row("Job GPUs", f"{perf.job_gpus:,}", "performance.job_gpus"),
    ]
    if perf.runs:
        rows += [
            Row("MFU", _pct(perf.mfu), "performance.mfu"),
            *([Row("MFU range (uncalibrated accelerator)", mfu_range_text(perf),
                   "performance.mfu_range")] if perf.mfu_range is not None else []),
            Row("Achieved TFLOP/s per GPU", _num(perf.tflops_per_gpu, 0), "performance.tflops_per_gpu"),
            Row("Step time", _num(perf.step_time_s, 2, "s"), "performance.step_time_s"),
            Row("Tokens per second", _num(perf.tokens_per_s, 0), "performance.tokens_per_s"),
            Row("Training time (incl. ETTR)", _num(perf.training_days, 1, "days"),
                "performance.training_days"),
        ]
    rows.append(Row("Memory per GPU", _num(perf.memory_per_gpu_gb, 1, "GB")
                    + ("" if perf.fits_memory else " — does not fit"), "performance.memory_per_gpu_gb"))
    if perf.breakdown_s is not None:
        breakdown = ", ".join(f"{k} {v:.3g} s" for k, v in perf.breakdown_s.items() if v)
        rows.append(Row("Step breakdown", breakdown, "performance.breakdown_s"))
    if perf.moe and perf.alltoall_s is not None:
        rows.append(Row("All-to-all per step", f"{perf.alltoall_s:.3g} s (dispatch + combine, hidden "
                        f"or not; {perf.breakdown_s.get('ep_comm', 0.0):.3g} s exposed); experts "
                        f"hold {perf.memory.expert_states_gb:.1f} GB of model states and "
                        f"{perf.memory.expert_activations_gb:.1f} GB of activations",
                        "performance.alltoall_s"))
    else:
        rows.append(Row("Memory breakdown", memory_breakdown_text(perf.memory), "performance.memory_gb"))
    return rows


def inference_rows(ev: Evaluation) -> list[Row]:
    """The serving figures of the main workload when it is an inference service, with its
    partition when the design carries several workloads."""
    main = ev.partitions.main if ev.partitions is not None else None
    rows = serving_rows(ev.inference, "inference", ev.cannot_run, main.gpus if main is not None else ev.counts.gpus,
                        ev.inference_search)
    if main is not None:
        rows.insert(1, Row("Partition", f"{main.name}: {main.describe()}", "inference.partition"))
    return rows


def service_rows(service: ServiceResult) -> list[Row]:
    """One service of a design with several workloads: its partition (GPUs, accelerator, power
    and $/GPU-hour share) and its serving figures, keyed ``services.<name>.<key>``."""
    key = f"services.{service.name}"
    view = service.partition
    rows = [Row("Partition", f"{view.name}: {view.describe()}", f"{key}.partition"),
            *serving_rows(service.inference, key, service.inference.cannot_run, view.gpus, service.search)]
    if service.bottleneck is not None:
        rows += inference_bottleneck_rows(service.bottleneck, f"{key}.bottleneck")
    return rows


def serving_rows(inf: InferenceResult, key: str, cannot_run: tuple, gpus: int,
                 search: DeploymentSearch | None = None) -> list[Row]:
    """The rows of one served inference workload, keyed ``<key>.<field>``: what it serves and
    how (``search``: the deployment search that chose it, for "auto"), "does not fit" and why
    when it cannot run, else TTFT / TPOT at the chosen load against
    the SLOs (per class of a request mix), tokens per GPU and per MW (``gpus``: those of the
    design or partition it serves on), where the KV cache lives, the two pools of a
    disaggregated deployment, and the bound of each phase."""
    w = inf.workload
    rows = [
        Row("Workload", w.name, f"{key}.workload"),
        Row("Deployment", _deployment_text(inf, search), f"{key}.deployment"),
        Row("Precision", f"{w.precision} weights, {w.kv_cache_precision} KV cache", f"{key}.precision"),
        Row("Requests", w.requests.describe(), f"{key}.requests"),
        Row("Weights per GPU", _num(inf.weights_gb_per_gpu, 1, "GB"), f"{key}.weights_gb_per_gpu"),
        Row("KV cache per token", _num(inf.kv_bytes_per_token / 1024, 1, "KiB"), f"{key}.kv_bytes_per_token"),
    ]
    if inf.cannot_run:
        return rows + [Row("Result", _does_not_fit(cannot_run), f"{key}.cannot_run")]
    mixed = len(inf.classes) > 1
    rows += [
        Row("KV cache per GPU", f"{_num(inf.kv_cache_gb_per_gpu, 1, 'GB')} of HBM: up to "
            f"{inf.max_concurrency_per_replica:,} requests per replica (batch {inf.batch:,})",
            f"{key}.kv_cache_gb_per_gpu"),
        Row("KV cache placement", _kv_placement_text(inf.kv_placement), f"{key}.kv_placement"),
        Row("Time to first token", f"{_num(inf.ttft_ms, 1, 'ms')} at load"
            f"{', mean over the classes' if mixed else ''}; {_num(inf.ttft_unloaded_ms, 1, 'ms')} "
            f"alone (SLO {w.slo.ttft_ms:,.0f} ms)", f"{key}.ttft_ms"),
        *[Row(f"  {c.input_tokens:,} in, {c.output_tokens:,} out ({c.share:.0%})",
              f"TTFT {_num(c.ttft_ms, 1, 'ms')} at load, {_num(c.ttft_unloaded_ms, 1, 'ms')} alone"
              f"{'' if c.meets_ttft_slo else ' (misses the SLO)'}; KV cache "
              f"{_num(c.kv_gb_per_request, 2, 'GB')} per request", f"{key}.classes.{i}")
          for i, c in enumerate(inf.classes) if mixed],
        Row("Time per output token", f"{_num(inf.tpot_ms, 2, 'ms')} at load; decode step "
            f"{_num(inf.decode_step_ms, 2, 'ms')} (SLO {w.slo.tpot_ms:,.1f} ms)", f"{key}.tpot_ms"),
        Row("SLO", "meets" if inf.meets_slo else "misses", f"{key}.meets_slo"),
        Row("Prefill tokens/s per GPU", _num(inf.prefill_tokens_per_s_per_gpu, 0),
            f"{key}.prefill_tokens_per_s_per_gpu"),
        Row("Decode tokens/s per GPU", f"{_num(inf.decode_tokens_per_s_per_gpu, 0)} (decode steps only)",
            f"{key}.decode_tokens_per_s_per_gpu"),
        Row("Output tokens/s per GPU", f"{_num(inf.output_tokens_per_s_per_gpu, 0)} served "
            "(prefill counted)", f"{key}.output_tokens_per_s_per_gpu"),
    ]
    if inf.prefill_time_fraction is not None:
        rows.append(Row("Prefill share of replica time", _pct(inf.prefill_time_fraction),
                        f"{key}.prefill_time_fraction"))
    if inf.disaggregated is not None:
        rows += _disaggregated_rows(inf.disaggregated, key)
    return rows + [
        Row("Tokens/s per MW (facility)", f"{_num(inf.tokens_per_s_per_mw, 0)} ("
            f"{inf.serving_gpus_in_design:,} of {gpus:,} GPUs serving copies of the layout)",
            f"{key}.tokens_per_s_per_mw"),
        Row("Cost per million output tokens", _num(inf.usd_per_million_output_tokens, 3, "USD"),
            f"{key}.usd_per_million_output_tokens"),
        *[Row(f"{title} step", f"{phase.bound.replace('_', ' ')}-bound: compute "
              f"{phase.compute_s * 1e3:.3g} ms, HBM {phase.memory_s * 1e3:.3g} ms, "
              + (f"KV fetch {phase.kv_fetch_s * 1e3:.3g} ms, " if phase.kv_fetch_s else "")
              + f"communication {phase.communication_s * 1e3:.3g} ms, fixed "
              f"{phase.fixed_s * 1e3:.3g} ms per stage", f"{key}.{part}")
          for title, part, phase in (("Prefill", "prefill", inf.prefill), ("Decode", "decode", inf.decode))],
    ]


def partition_rows(ev: Evaluation) -> list[Row]:
    """Every partition of a design with several workloads: its workload, GPUs and accelerator,
    and its share of the power and cost (own compute, a GPU share of what they share); why it
    has no GPUs when it cannot be resolved."""
    rows = []
    for view in ev.partitions.all:
        workload = f"{view.kind} {view.workload_name}" if view.workload_name else "no workload"
        if view.fabric is None:
            text = "; ".join(d.message for d in view.problems)
        else:
            text = (f"{view.describe()} ({view.fabric.accelerator.id}, scale-up domain "
                    f"{view.fabric.scale_up_domain_gpus:,} GPUs); IT {_num(view.it_kw, 0, 'kW')}, "
                    f"facility {_num(view.facility_kw, 0, 'kW')}, "
                    f"{_num(view.usd_per_gpu_hour, 2, 'USD')} per GPU-hour")
        rows.append(Row(f"{view.name} ({workload})", text, f"partitions.{view.name}"))
    return rows


def _kv_placement_text(kv: KvPlacement) -> str:
    if kv.placement == "host":
        return (f"HBM and host memory: {kv.host_gb_per_gpu:,.0f} GB per GPU over "
                f"{kv.host_link_gbyte_s:,.0f} GB/s per direction; {kv.host_kv_gb_per_gpu:,.1f} GB "
                "of the batch's KV cache read from it every decode step")
    if kv.placement == "remote":
        return (f"HBM, with a remote prefix cache serving {kv.prefix_hit_rate:.0%} of prompt tokens "
                f"over the storage path at {kv.storage_read_gbyte_s_per_gpu:,.2f} GB/s per GPU")
    return "HBM only"


def _disaggregated_rows(dis: Disaggregation, key: str) -> list[Row]:
    def pool(name: str, p: PoolFigures, unit: str) -> Row:
        return Row(f"{name.title()} pool", f"{p.gpus:,} GPUs, {p.batch:,} {unit} a step of "
                   f"{p.step_ms:,.1f} ms: {p.requests_per_s:,.1f} requests/s, {_pct(p.utilisation)} busy",
                   f"{key}.disaggregated.{name}")
    prefill, decode = dis.prefill, dis.decode
    return [
        pool("prefill", prefill, "prompts"),
        pool("decode", decode, "sequences per replica"),
        Row("Limited by", f"the {dis.limited_by} pool; {dis.balanced_prefill_per_decode_gpu:.2f} prefill "
            f"GPUs per decode GPU would balance the pools (this deployment: "
            f"{prefill.gpus / decode.gpus:.2f})", f"{key}.disaggregated.limited_by"),
        Row("KV cache hand-over", f"{dis.kv_transfer_ms:,.2f} ms per prefill step over the "
            f"{dis.kv_transfer_level} level", f"{key}.disaggregated.kv_transfer_ms"),
    ]


def _deployment_text(inf: InferenceResult, search: DeploymentSearch | None) -> str:
    """The deployment served: as written, or the search's choice for "auto"."""
    dep = inf.workload.deployment
    if search is None:
        return "auto (layout search)" if inf.workload.auto else dep.describe()
    if search.deployment is None:
        return f"auto: no deployment runs ({search.considered:,} tried)"
    return (f"auto: {dep.describe()} (chosen of {search.considered:,} deployments, "
            f"{search.evaluated:,} serving evaluations{'' if search.meets_slo else '; none meets both SLOs'})")


def inference_bottleneck_rows(bn: InferenceBottleneck, key: str = "bottleneck") -> list[Row]:
    """What binds each serving phase, the what-ifs served again, and ("auto") why the other
    deployments lose."""
    rows = [
        Row("Limited by", bn.primary, f"{key}.primary"),
        Row("Summary", bn.summary, f"{key}.summary"),
    ]
    for lim in bn.limiters:
        rows.append(Row(f"  {lim.name}", f"{lim.share * 100:.1f} % of the step, {lim.text}",
                        f"{key}.limiters.{lim.key}"))
    rows.append(Row("Most help", bn.best.text if bn.best is not None else
                    "no single change tried raises output tokens/s by 1 % within the SLOs", f"{key}.best"))
    for w in bn.what_ifs:
        if w is not bn.best:
            rows.append(Row("  what-if", w.text, f"{key}.what_ifs.{w.key}"))
    for i, cand in enumerate(bn.layout_search):
        label = "Auto deployment (chosen)" if i == 0 else "  runner-up"
        text = cand.deployment.describe() if i == 0 else f"{cand.deployment.describe()}: {cand.reason}"
        rows.append(Row(label, text, f"{key}.layout_search.{i}"))
    return rows


def memory_breakdown_text(mem: MemoryBreakdown) -> str:
    """"weights 4.5 GB, ..., of 80 GB": what fills a GPU (why a layout does not fit)."""
    parts = (("weights", mem.weights_gb), ("gradients", mem.gradients_gb),
             ("optimizer", mem.optimizer_gb), ("activations", mem.activations_gb),
             ("logits", mem.logits_gb), ("workspace", mem.workspace_gb),
             ("framework", mem.framework_gb))
    return (", ".join(f"{name} {gb:.1f} GB" for name, gb in parts if gb)
            + f" ({mem.stage} pipeline stage) of {mem.hbm_gb:g} GB")


def _bottleneck_rows(bn: BottleneckResult) -> list[Row]:
    """What limits MFU, the what-ifs re-evaluated by the model, and (auto) why layouts lose."""
    rows = [
        Row("Limited by", bn.primary, "bottleneck.primary"),
        Row("Summary", bn.summary, "bottleneck.summary"),
    ]
    for lim in bn.limiters[:6]:
        share = f"{lim.share * 100:.1f} % of the step, " if lim.key != "memory" else ""
        rows.append(Row(f"  {lim.name}", f"{share}{lim.text}", f"bottleneck.limiters.{lim.key}"))
    rows.append(Row("Most help", bn.best.text if bn.best is not None else
                    "no single change tried raises MFU by half a point", "bottleneck.best"))
    shown = [w for w in bn.what_ifs if w is not bn.best][:6]
    for w in shown:
        rows.append(Row("  what-if", w.text, f"bottleneck.what_ifs.{w.key}"))
    for i, cand in enumerate(bn.layout_search):
        p = cand.parallelism
        layout = (f"tp {p.tp}, pp {p.pp}, dp {p.dp}, cp {p.cp}, ep {p.ep}, mbs {p.micro_batch}, "
                  f"v {p.virtual_stages}, {p.recompute} recompute, ZeRO-{p.zero_stage}")
        label = "Auto layout (chosen)" if i == 0 else "  runner-up"
        text = layout if i == 0 else f"{layout}: {cand.reason}"
        rows.append(Row(label, text, f"bottleneck.layout_search.{i}"))
    return rows


def bom_rows(ev: Evaluation) -> list[tuple[str, str, str, str, int, str, float | None, float | None]]:
    """(category, catalog id, name, role, quantity, note, unit price USD, extended price USD)
    for every item of the inventory. A price is None for an unpriced item and for what a
    compute node's own price includes (the note says which); the extended prices of a fully
    priced design add up to ``cost.hardware_capex_usd``."""
    lines = ev.cost.lines if ev.cost is not None else [None] * len(ev.inventory.items)
    rows = []
    for item, line in sorted(zip(ev.inventory.items, lines),
                             key=lambda pair: (pair[0].kind, pair[0].catalog_id, pair[0].role)):
        notes = ["inside host power budget"] if not item.powered else []
        if item.note:
            notes.append(item.note)
        if line is not None and line.in_host:
            notes.append("price included in the host's")
        elif line is not None and line.unit_price_usd is None:
            notes.append("no price")
        unit = line.unit_price_usd if line is not None else None
        extended = line.extended_price_usd if line is not None else None
        rows.append((item.kind, item.catalog_id, item.spec.name, item.role, item.count,
                     "; ".join(notes), unit, extended))
    return rows


def assumption_lines(ev: Evaluation) -> list[tuple[str, str]]:
    """(section.key, JSON value) of every assumption the evaluation used."""
    flat: list[tuple[str, str]] = []
    for section, values in assumptions_to_dict(ev.assumptions, only_changed=False).items():
        for key, value in values.items():
            flat.append((f"{section}.{key}", json.dumps(value)))
    return flat
