"""What the design contains: GPUs, servers, switches by tier, NICs, cables, optics; and whether
the workload runs on it (its MFU and training time, or "does not fit" and why)."""

from __future__ import annotations

from designer.evaluator import Result
from designer.format import num, pct
from designer.panels.base import MetricsPanel
from designer.panels.performance import DOES_NOT_FIT


class OverviewPanel(MetricsPanel):
    title = "Overview"
    metric_paths = {
        "GPUs": "counts.gpus", "Servers / super-nodes": "counts.servers",
        "Scale-out switches": "counts.switches", "Scale-up switch chips": "counts.scale_up_switches",
        "NICs": "counts.nics", "DPUs": "counts.dpus", "Storage nodes": "counts.storage_nodes",
        "Cables": "counts.links", "Transceivers": "counts.transceivers",
        "MFU": "performance.mfu", "Training time": "performance.training_days",
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
            ("Cables", num(c.links)),
            ("Transceivers", num(c.transceivers)),
        ]
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
        self.show_message("")
        self.set_rows(rows)
