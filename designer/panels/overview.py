"""What the design contains: GPUs, servers, switches by tier, NICs, cables, optics; and whether
the workload runs on it (its MFU and training time, or a served workload's TTFT, TPOT and tokens
per second per GPU, or "does not fit" and why); with several workloads, every partition and its
workload's headline figure (panels/partition_rows.py)."""

from __future__ import annotations

from core.analysis.failure import FailureResult
from core.failure_paths import describe_target
from core.metrics import COUNTS as COUNT_METRICS
from core.metrics import panel_paths
from designer.common.format import num, out_of_service_text, pct
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.partition_rows import inference_headline, overview_rows
from designer.panels.performance import DOES_NOT_FIT
from designer.project.evaluator import Result


COUNTS = tuple(m.path for m in COUNT_METRICS)


class OverviewPanel(MetricsPanel):
    title = "Overview"
    metric_paths = panel_paths(*COUNTS, "performance.mfu", "performance.training_days", "inference.ttft_ms",
                               "inference.tpot_ms", "inference.decode_tokens_per_s_per_gpu", panel=title)

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        c = ev.counts
        counts = [metric_row(path, getattr(c, path.partition(".")[2]), num(getattr(c, path.partition(".")[2])))
                  for path in COUNTS]
        # the switches by tier under the scale-out switches
        rows: list = [*counts[:3], *[(f"   {tier}", num(n)) for tier, n in c.switches_by_tier.items()
                                     if tier != "scale-up"], *counts[3:]]
        if ev.failure is not None:
            rows = failure_rows(ev.failure) + [("Degraded design", None)] + rows
        if not ev.valid:  # first: no figure below is that of a buildable design
            rows = [("Design", f"NOT VALID: cannot be built or run as drawn ({ev.errors[0].code})",
                     "\n".join(f"{w.code}: {w.message}" for w in ev.errors))] + rows
        if ev.workload is not None:
            rows += [("Workload", None), ("Model", ev.workload.name)]
            reasons = ev.cannot_run
            perf = ev.performance
            if reasons:
                # the first reason in the row (it wraps), all of them in its tooltip
                why = "\n".join(d.message for d in reasons)
                rows += [("Result", f"{DOES_NOT_FIT}: {reasons[0].message}", why)]
            elif perf is not None:
                rows += [metric_row("performance.mfu", perf.mfu),
                         metric_row("performance.training_days", perf.training_days, panel=self.title)]
        elif ev.inference is not None:
            rows += [("Workload", None), ("Model", ev.inference.workload.name), *serving_headline_rows(ev.inference)]
        rows += overview_rows(ev, {row[0] for row in rows})
        self.show_message("" if ev.failure is None else
                          "Failure what-if: every figure describes the design without its failed "
                          "and drained units (Restore puts them back)")
        self.set_rows(rows)


def serving_headline_rows(inference) -> list:
    """TTFT, TPOT and decode tokens/s per GPU of a served workload, or why it has none."""
    if not inference.runs:
        return [("Result", inference_headline(inference), "\n".join(d.message for d in inference.cannot_run))]
    slo = inference.workload.slo
    return [metric_row("inference.ttft_ms", inference.ttft_ms,
                       f"{num(inference.ttft_ms, 0, 'ms')} (SLO {num(slo.ttft_ms, 0, 'ms')})"),
            metric_row("inference.tpot_ms", inference.tpot_ms,
                       f"{num(inference.tpot_ms, 1, 'ms')} (SLO {num(slo.tpot_ms, 1, 'ms')})"),
            metric_row("inference.decode_tokens_per_s_per_gpu", inference.decode_tokens_per_s_per_gpu)]


def failure_rows(f: FailureResult) -> list:
    """What is out of service and what it costs, with the intact figures beside."""
    items = "\n".join(f"{describe_target(i.path, i.link_id)}: {out_of_service_text(i.failed, i.drained)} "
                      f"of {i.units:,}" for i in f.items)
    rows: list = [
        ("Failure what-if", None),
        ("Out of service", items),
        ("GPUs lost", f"{num(f.gpus_lost)} of {num(f.gpus_intact)}",
         f"failed {f.gpus_failed:,}, drained {f.gpus_drained:,}, stranded {f.gpus_stranded:,}"),
        ("Bisection lost", pct(f.lost_bisection_fraction),
         f"{f.bisection_tbit_s:,.1f} of {f.bisection_tbit_s_intact:,.1f} Tb/s left"),
        ("Scale-out lost", pct(f.lost_scale_out_fraction), "injection bandwidth of the compute nodes"),
    ]
    if f.fits is not None:
        layout = "as written" if f.fits else (
            "laid out again: " + ", ".join(f"{k.upper()} {v}" for k, v in f.relayout["parallelism"].items()
                                           if k in ("tp", "pp", "dp", "cp", "ep") and (v > 1 or k == "dp"))
            if f.relayout and f.degraded.runs else DOES_NOT_FIT)
        rows += [("Job", layout),
                 ("MFU (intact)", f"{pct(f.degraded.mfu)} ({pct(f.intact.mfu)})"),
                 ("Training (intact)", f"{num(f.degraded.training_days, 1)} ({num(f.intact.training_days, 1)}) days")]
    rows.append(("GPU-hours lost / day", num(f.gpu_hours_lost_per_day)))
    return rows
