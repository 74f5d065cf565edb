"""The table model every report format renders: titled sections of labelled rows, one section
per analysis, plus the bill of materials and the assumptions, as text.

A new analysis adds its section here (a rows function and one line in ``report_sections``);
Markdown, HTML and CSV pick it up unchanged. The rows of a headline metric take its label,
digits and unit from core/metrics.py (``metric_row``); the run's, the cost's and serving's rows
are in run_rows.py, cost_rows.py and serving_rows.py.
"""

from __future__ import annotations

import json

from core.analysis.inference_bottleneck import InferenceBottleneck
from core.analysis.reliability import ReliabilityResult
from core.analysis.storage import IO_CLASS_TITLES
from core.assumptions import assumptions_to_dict
from core.dpu_engines import ENGINE_TITLES
from core.evaluate import Evaluation
from core.report.cost_rows import cost_rows
from core.metrics import metric, value_text
from core.report.rows import Row, metric_row, num
from core.report.run_rows import bottleneck_rows, failure_rows, performance_rows, run_value
from core.report.serving_rows import inference_bottleneck_rows, inference_rows, partition_rows, service_rows
from core.report.site_rows import site_rows

# A GPU-to-GPU latency of a fabric in parts: some GPUs have no path to the others.
UNREACHABLE = "no path between some GPUs (fabric in parts)"


def report_sections(ev: Evaluation) -> list[tuple[str, list[Row]]]:
    """(title, rows) of every section, in report order; Performance when there is a workload
    (saying "does not fit" and why when it cannot run), Bottleneck when there is one."""
    sections = [] if ev.failure is None else [("Failure what-if", failure_rows(ev))]
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
        sections.append(("Performance", performance_rows(ev)))
    if ev.inference is not None:
        sections.append(("Inference", inference_rows(ev)))
    if ev.partitions is not None:
        sections.append(("Partitions", partition_rows(ev)))
    sections += [(f"Service {service.name}", service_rows(service)) for service in ev.services]
    if isinstance(ev.bottleneck, InferenceBottleneck):
        sections.append(("Bottleneck", inference_bottleneck_rows(ev.bottleneck)))
    elif ev.bottleneck is not None:
        sections.append(("Bottleneck", bottleneck_rows(ev.bottleneck)))
    if ev.cost is not None:
        sections.append(("Cost", cost_rows(ev)))
    if ev.site is not None:
        sections.append(("Site", [Row(*row) for row in site_rows(ev)]))
    return sections


def _counts_rows(ev: Evaluation) -> list[Row]:
    c = ev.counts
    tiers = ", ".join(f"{t} {n:,}" for t, n in c.switches_by_tier.items()) or "none"

    def count(key: str, text: str = "") -> Row:
        return metric_row(f"counts.{key}", getattr(c, key), text or f"{getattr(c, key):,}")

    def joined(*keys: str) -> Row:
        """Several counts in one row: "Links / cables / transceivers", "1 / 2 / 3"."""
        labels = [metric(f"counts.{k}").in_report for k in keys]
        return Row(" / ".join([labels[0], *(label.lower() if label[1:].islower() else label for label in labels[1:])]),
                   " / ".join(f"{getattr(c, k):,}" for k in keys), f"counts.{keys[0]}")

    return [
        count("gpus"),
        count("servers"),
        count("switches", f"{c.switches:,} ({tiers})"),
        count("scale_up_switches"),
        joined("nics", "dpus"),
        count("storage_nodes"),
        joined("links", "cables", "transceivers"),
    ]


def _bandwidth_rows(ev: Evaluation) -> list[Row]:
    b = ev.bandwidth
    over = ", ".join(f"{t} {v:g}:1" for t, v in b.oversubscription_by_tier.items()) or "none"
    scale_up = metric("bandwidth.per_gpu_scale_up_gbyte_s")
    return [
        metric_row("bandwidth.scale_up_domain_gpus", b.scale_up_domain_gpus),
        metric_row(scale_up.path, b.per_gpu_scale_up_gbyte_s,
                   num(b.per_gpu_scale_up_gbyte_s, scale_up.digits, f"{scale_up.symbol} per direction")),
        metric_row("bandwidth.per_gpu_scale_out_gbit_s", b.per_gpu_scale_out_gbit_s),
        metric_row("bandwidth.bisection_tbit_s", b.bisection_tbit_s,
                   f"{value_text(metric('bandwidth.bisection_tbit_s'), b.bisection_tbit_s)} ({b.bisection_method})"),
        Row("Oversubscription", over, "bandwidth.oversubscription_by_tier"),
        metric_row("bandwidth.allreduce_busbw_gbyte_s", b.allreduce_busbw_gbyte_s),
        metric_row("bandwidth.alltoall_per_gpu_gbyte_s", b.alltoall_per_gpu_gbyte_s),
        metric_row("bandwidth.storage_read_gbyte_s", b.storage_read_gbyte_s),
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

    def latency(key: str) -> Row:  # None: no path between some GPUs
        path = f"latency.{key}"
        return metric_row(path, None, value_text(metric(path), getattr(lat, key), UNREACHABLE))

    return [
        metric_row("latency.max_switch_hops", lat.max_switch_hops, f"{lat.max_switch_hops}"),
        latency("gpu_to_gpu_max_us"),
        latency("gpu_to_gpu_mean_us"),
        metric_row("latency.allreduce_small_us", lat.allreduce_small_us),
    ]


def _power_rows(ev: Evaluation) -> list[Row]:
    p = ev.power

    def run_row(path: str, value: float | None) -> Row:  # a figure of the training run, or why none
        return metric_row(path, value, run_value(ev, value_text(metric(path), value)))

    return [
        metric_row("power.it_kw", p.it_kw),
        metric_row("power.typical_kw", p.typical_kw),
        metric_row("power.pue", p.pue),
        metric_row("power.facility_kw", p.facility_kw),
        metric_row("power.max_rack_kw", p.max_rack_kw),
        metric_row("power.network_share", p.network_share),
        *[Row(f"  {kind} cooling: racks (max kW of limit, PUE)",
              f"{racks.racks:,} ({num(racks.max_rack_kw, 1, 'kW')} of {num(racks.rack_limit_kw, 0, 'kW')}, "
              f"PUE {num(racks.pue, 2)})"
              + (f", {racks.over_limit_racks:,} over the limit" if racks.over_limit_racks else ""),
              f"power.cooling.{kind}") for kind, racks in p.cooling.items()],
        *[Row(f"  {kind}", num(kw, 1, "kW"), f"power.by_kind_kw.{kind}") for kind, kw in p.by_kind_kw.items()],
        run_row("power.energy_mwh_facility", p.energy_mwh_facility),
        run_row("power.energy_cost_usd", p.energy_cost_usd),
    ]


def _reliability_rows(ev: Evaluation) -> list[Row]:
    r = ev.reliability
    no_workload = None if r.checkpoint_size_gb is not None else "no workload"  # no checkpoint to write
    return [
        metric_row("reliability.job_gpus", r.job_gpus, f"{r.job_gpus:,}"),
        metric_row("reliability.interruptions_per_day", r.interruptions_per_day,
                   num(r.interruptions_per_day, metric("reliability.interruptions_per_day").digits)),
        metric_row("reliability.mtbi_hours", r.mtbi_hours, None if r.mtbi_hours is not None else "nothing can fail"),
        metric_row("reliability.checkpoint_size_gb", r.checkpoint_size_gb, no_workload),
        metric_row("reliability.checkpoint_write_s", r.checkpoint_write_s, r.checkpoint_missing or None),
        metric_row("reliability.checkpoint_blocking_s", r.checkpoint_blocking_s, no_workload),
        metric_row("reliability.checkpoint_restore_s", r.checkpoint_restore_s, _restore_text(r)),
        metric_row("reliability.checkpoint_interval_min", r.checkpoint_interval_min, None
                   if r.checkpoint_interval_min is not None
                   else "no workload" if r.checkpoint_size_gb is None else "no checkpoints needed"),
        metric_row("reliability.ettr", r.ettr),
        metric_row("reliability.single_points_of_failure", ev.spof_units, f"{ev.spof_units:,}"),
        *([Row("Plane failures", ev.planes.reliability_summary(),
               "reliability.planes.degraded_events_per_day")]
          if ev.planes is not None and ev.planes.planes > 1 else []),
    ]


def _restore_text(r: ReliabilityResult) -> str:
    if r.checkpoint_size_gb is None:
        return "no workload"
    if r.checkpoint_restore_s is None:
        return "no storage"
    m = metric("reliability.checkpoint_restore_s")
    return f"{value_text(m, r.checkpoint_restore_s)} from {r.checkpoint_restore_from}"


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
            value = (f"{num(entry.job_gbyte_s, 1, 'GB/s')} for the job "
                     f"({num(entry.per_gpu_gbyte_s, 3, 'GB/s')} per GPU), "
                     f"{num(entry.latency_us, 1, 'µs')}; limited by {entry.bottleneck}")
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
