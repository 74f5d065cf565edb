"""Human-readable reports of an evaluation: Markdown, HTML, CSV, and the bill of materials.

All formats come from one table model (``report_sections``) so the CLI, the GUI exports and the
tests see the same numbers.
"""

from __future__ import annotations

import csv
import html
import io
import json
from dataclasses import dataclass

from core.assumptions import assumptions_to_dict
from core.errors import DesignError
from core.evaluate import Evaluation

FORMATS = ("md", "html", "csv", "bom")


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
    c, b, l, p, r, perf = ev.counts, ev.bandwidth, ev.latency, ev.power, ev.reliability, ev.performance
    tiers = ", ".join(f"{t} {n:,}" for t, n in c.switches_by_tier.items()) or "none"
    over = ", ".join(f"{t} {v:g}:1" for t, v in b.oversubscription_by_tier.items()) or "none"
    sections = [
        ("Counts", [
            Row("GPUs", f"{c.gpus:,}", "counts.gpus"),
            Row("Servers / super-nodes", f"{c.servers:,}", "counts.servers"),
            Row("Scale-out switches", f"{c.switches:,} ({tiers})", "counts.switches"),
            Row("Scale-up switch chips", f"{c.scale_up_switches:,}", "counts.scale_up_switches"),
            Row("NICs / DPUs", f"{c.nics:,} / {c.dpus:,}", "counts.nics"),
            Row("Storage nodes", f"{c.storage_nodes:,}", "counts.storage_nodes"),
            Row("Cables / transceivers", f"{c.links:,} / {c.transceivers:,}", "counts.links"),
        ]),
        ("Bandwidth", [
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
        ]),
        ("Latency", [
            Row("Max switch hops", f"{l.max_switch_hops}", "latency.max_switch_hops"),
            Row("GPU-to-GPU max", _num(l.gpu_to_gpu_max_us, 2, "µs"), "latency.gpu_to_gpu_max_us"),
            Row("GPU-to-GPU mean", _num(l.gpu_to_gpu_mean_us, 2, "µs"), "latency.gpu_to_gpu_mean_us"),
            Row("Small all-reduce (8 B, all GPUs)", _num(l.allreduce_small_us, 1, "µs"),
                "latency.allreduce_small_us"),
        ]),
        ("Power", [
            Row("IT (provisioned, nameplate)", _num(p.it_kw, 0, "kW"), "power.it_kw"),
            Row("IT (typical in training)", _num(p.typical_kw, 0, "kW"), "power.typical_kw"),
            Row("PUE", _num(p.pue, 2), "power.pue"),
            Row("Facility", _num(p.facility_kw, 0, "kW"), "power.facility_kw"),
            Row("Max rack", _num(p.max_rack_kw, 1, "kW"), "power.max_rack_kw"),
            Row("Network share of IT", _pct(p.network_share), "power.network_share"),
            *[Row(f"  {kind}", _num(kw, 1, "kW"), f"power.by_kind_kw.{kind}") for kind, kw in p.by_kind_kw.items()],
            Row("Training-run energy (facility)", _num(p.energy_mwh_facility, 0, "MWh"),
                "power.energy_mwh_facility"),
            Row("Training-run electricity cost", _num(p.energy_cost_usd, 0, "USD"), "power.energy_cost_usd"),
        ]),
        ("Reliability", [
            Row("Job GPUs", f"{r.job_gpus:,}", "reliability.job_gpus"),
            Row("Interruptions per day", _num(r.interruptions_per_day, 2), "reliability.interruptions_per_day"),
            Row("Mean time between interruptions", _num(r.mtbi_hours, 1, "h"), "reliability.mtbi_hours"),
            Row("Checkpoint size", _num(r.checkpoint_size_gb, 0, "GB"), "reliability.checkpoint_size_gb"),
            Row("Checkpoint write", _num(r.checkpoint_write_s, 1, "s") if r.checkpoint_persisted
                else "no storage", "reliability.checkpoint_write_s"),
            Row("Checkpoint interval (Daly)", _num(r.checkpoint_interval_min, 1, "min"),
                "reliability.checkpoint_interval_min"),
            Row("Effective training time ratio", _pct(r.ettr), "reliability.ettr"),
            Row("Single points of failure", f"{ev.spof_units:,}", "reliability.single_points_of_failure"),
        ]),
    ]
    if perf is not None:
        breakdown = ", ".join(f"{k} {v:.3g} s" for k, v in perf.breakdown_s.items() if v)
        sections.append(("Performance", [
            Row("Workload", ev.workload.name if ev.workload else "", "performance.workload"),
            *([Row("Preset fitted to the design", ev.workload.preset_fit.note, "performance.preset_fit")]
              if ev.workload is not None and ev.workload.preset_fit is not None else []),
            Row("MFU", _pct(perf.mfu), "performance.mfu"),
            Row("Achieved TFLOP/s per GPU", _num(perf.tflops_per_gpu, 0), "performance.tflops_per_gpu"),
            Row("Step time", _num(perf.step_time_s, 2, "s"), "performance.step_time_s"),
            Row("Tokens per second", _num(perf.tokens_per_s, 0), "performance.tokens_per_s"),
            Row("Training time (incl. ETTR)", _num(perf.training_days, 1, "days"), "performance.training_days"),
            Row("Memory per GPU", _num(perf.memory_per_gpu_gb, 1, "GB") + ("" if perf.fits_memory else " — does not fit"),
                "performance.memory_per_gpu_gb"),
            Row("Step breakdown", breakdown, "performance.breakdown_s"),
        ]))
    if ev.bottleneck is not None:
        sections.append(("Bottleneck", _bottleneck_rows(ev.bottleneck)))
    return sections


def _bottleneck_rows(bn) -> list[Row]:
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


def bom_rows(ev: Evaluation) -> list[tuple[str, str, str, str, int, str]]:
    """(category, catalog id, name, role, quantity, note) for every item of the inventory."""
    rows = []
    for item in sorted(ev.inventory.items, key=lambda i: (i.kind, i.catalog_id, i.role)):
        note = "inside host power budget" if not item.powered else ""
        rows.append((item.kind, item.catalog_id, item.spec.name, item.role, item.count, note))
    return rows


def _assumption_lines(ev: Evaluation) -> list[tuple[str, str]]:
    flat: list[tuple[str, str]] = []
    for section, values in assumptions_to_dict(ev.assumptions, only_changed=False).items():
        for key, value in values.items():
            flat.append((f"{section}.{key}", json.dumps(value)))
    return flat


def to_markdown(ev: Evaluation) -> str:
    out = [f"# {ev.design_name}", ""]
    for title, rows in report_sections(ev):
        out += [f"## {title}", "", "| Metric | Value |", "|---|---|"]
        out += [f"| {row.label.strip()} | {row.value} |" for row in rows]
        out.append("")
    if ev.warnings:
        out += ["## Warnings", ""]
        out += [f"- **{w.code}**: {w.message}" for w in ev.warnings]
        out.append("")
    out += ["## Bill of materials", "", "| Kind | Id | Name | Role | Qty | Note |", "|---|---|---|---|---:|---|"]
    out += [f"| {k} | {i} | {n} | {r} | {q:,} | {note} |" for k, i, n, r, q, note in bom_rows(ev)]
    out += ["", "## Assumptions", "", "| Assumption | Value |", "|---|---|"]
    out += [f"| {k} | `{v}` |" for k, v in _assumption_lines(ev)]
    return "\n".join(out) + "\n"


def to_html(ev: Evaluation) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{e(ev.design_name)}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
        "table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}"
        "th{background:#f0f3f7}.warn{color:#9a5b00}</style></head><body>",
        f"<h1>{e(ev.design_name)}</h1>",
    ]
    for title, rows in report_sections(ev):
        parts.append(f"<h2>{e(title)}</h2><table><tr><th>Metric</th><th>Value</th></tr>")
        parts += [f"<tr><td>{e(r.label.strip())}</td><td>{e(r.value)}</td></tr>" for r in rows]
        parts.append("</table>")
    if ev.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts += [f"<li class='warn'><b>{e(w.code)}</b>: {e(w.message)}</li>" for w in ev.warnings]
        parts.append("</ul>")
    parts.append("<h2>Bill of materials</h2><table><tr><th>Kind</th><th>Id</th><th>Name</th>"
                 "<th>Role</th><th>Qty</th><th>Note</th></tr>")
    parts += [f"<tr><td>{e(k)}</td><td>{e(i)}</td><td>{e(n)}</td><td>{e(r)}</td><td>{q:,}</td>"
              f"<td>{e(note)}</td></tr>" for k, i, n, r, q, note in bom_rows(ev)]
    parts.append("</table><h2>Assumptions</h2><table><tr><th>Assumption</th><th>Value</th></tr>")
    parts += [f"<tr><td>{e(k)}</td><td><code>{e(v)}</code></td></tr>" for k, v in _assumption_lines(ev)]
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


def to_csv(ev: Evaluation) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["section", "key", "metric", "value"])
    for title, rows in report_sections(ev):
        for row in rows:
            writer.writerow([title, row.key, row.label.strip(), row.value])
    for w in ev.warnings:
        writer.writerow(["Warnings", w.code, w.code, w.message])
    for key, value in _assumption_lines(ev):
        writer.writerow(["Assumptions", f"assumptions.{key}", key, value])
    return buffer.getvalue()


def bom_csv(ev: Evaluation) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["kind", "catalog_id", "name", "role", "quantity", "note"])
    writer.writerows(bom_rows(ev))
    return buffer.getvalue()


def render_report(ev: Evaluation, fmt: str) -> str:
    renderers = {"md": to_markdown, "html": to_html, "csv": to_csv, "bom": bom_csv}
    if fmt not in renderers:
        raise DesignError(f"unknown report format {fmt!r} (use {', '.join(FORMATS)})")
    return renderers[fmt](ev)
