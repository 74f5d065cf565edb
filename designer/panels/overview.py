"""What the design contains: GPUs, servers, switches by tier, NICs, cables, optics; and whether
the workload runs on it (its MFU and training time, or a served workload's TTFT, TPOT and tokens
per second per GPU, or "does not fit" and why); with several workloads, every partition and its
workload's headline figure (panels/partition_rows.py)."""

from __future__ import annotations

from core.analysis.failure import FailureResult
from core.failure_paths import describe_target
from designer.common.format import num, out_of_service_text, pct
from designer.panels.base import MetricsPanel
from designer.panels.partition_rows import inference_headline, overview_rows
from designer.panels.performance import DOES_NOT_FIT
from designer.project.evaluator import Result


class OverviewPanel(MetricsPanel):
    title = "Overview"
    metric_paths = {
        "GPUs": "counts.gpus", "Servers / super-nodes": "counts.servers",
        "Scale-out switches": "counts.switches", "Scale-up switch chips": "counts.scale_up_switches",
        "NICs": "counts.nics", "DPUs": "counts.dpus", "Storage nodes": "counts.storage_nodes",
        "Links": "counts.links", "Cables": "counts.cables", "Transceivers": "counts.transceivers",
        "MFU": "performance.mfu", "Training time": "performance.training_days",
        "Time to first token": "inference.ttft_ms", "Time per output token": "inference.tpot_ms",
        "Decode per GPU": "inference.decode_tokens_per_s_per_gpu",
    }

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        c = ev.counts
        rows: list = [
            ("GPUs", num(c.gpus)),
            ("Servers / super-nodes", num(c.servers)),
            ("Scale-out switches", num(c.switches)),
        ]
        rows += [(f"   {tier}", num(n)) for tier, n in c.switches_by_tier.items() if tier != "scale-up"]
        rows += [
            ("Scale-up switch chips", num(c.scale_up_switches)),
            ("NICs", num(c.nics)),
            ("DPUs", num(c.dpus)),
            ("Storage nodes", num(c.storage_nodes)),
            ("Links", num(c.links)),
            ("Cables", num(c.cables)),
            ("Transceivers", num(c.transceivers)),
        ]
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
                rows += [("MFU", pct(perf.mfu)), ("Training time", num(perf.training_days, 1, "days"))]
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
    return [("Time to first token", f"{num(inference.ttft_ms, 0, 'ms')} (SLO {num(slo.ttft_ms, 0, 'ms')})"),
            ("Time per output token", f"{num(inference.tpot_ms, 1, 'ms')} (SLO {num(slo.tpot_ms, 1, 'ms')})"),
            ("Decode per GPU", num(inference.decode_tokens_per_s_per_gpu, 0, "tokens/s"))]


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
