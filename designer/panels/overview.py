"""What the design contains: GPUs, servers, switches by tier, NICs, cables, optics."""

from __future__ import annotations

from designer.evaluator import Result
from designer.format import num
from designer.panels.base import MetricsPanel


class OverviewPanel(MetricsPanel):
    title = "Overview"

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
        self.show_message("")
        self.set_rows(rows)
