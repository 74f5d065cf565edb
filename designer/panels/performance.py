"""Performance of the workload: MFU, step time and its breakdown, MFU against GPU count."""

from __future__ import annotations

import math

from designer.evaluator import Result
from designer.format import num, pct, seconds
from designer.panels.base import MetricsPanel
from designer.panels.charts import LineChart, StackedBar

PART_NAMES = {
    "compute": "compute", "recompute": "recompute", "tp_comm": "TP comm", "cp_comm": "CP comm",
    "ep_comm": "EP comm", "pp_comm": "PP comm", "dp_comm": "DP comm", "bubble": "bubble",
    "optimizer": "optimizer", "straggler": "straggler", "other": "other",
}


class PerformancePanel(MetricsPanel):
    title = "Performance"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.breakdown = StackedBar("Step-time breakdown", "seconds per step")
        self.scaling = LineChart("MFU against GPU count (data-parallel scaling)", "MFU (%)", "GPUs",
                                 log_x=True)
        self.add_chart(self.breakdown)
        self.add_chart(self.scaling)

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        perf = ev.performance
        if perf is None:
            self.set_rows([])
            self.breakdown.set_data([], seconds)
            self.scaling.set_data([], [])
            self.breakdown.hide()
            self.scaling.hide()
            self.show_message("No workload: choose one in the Workload panel to see MFU, step time "
                              "and training time.")
            return
        par = perf.parallelism
        self.breakdown.show()
        self.scaling.show()
        self.show_message("")
        self.set_rows([
            ("Workload", ev.workload.name if ev.workload else "—"),
            ("Parallelism", f"TP {par.tp} · PP {par.pp} · DP {par.dp} · CP {par.cp} · EP {par.ep}"),
            ("Job GPUs", num(perf.job_gpus)),
            ("MFU", pct(perf.mfu)),
            ("Achieved per GPU", num(perf.tflops_per_gpu, 0, "TFLOP/s")),
            ("Step time", seconds(perf.step_time_s)),
            ("Tokens per second", num(perf.tokens_per_s, 0)),
            ("Training time (with ETTR)", num(perf.training_days, 1, "days")),
            ("Memory per GPU", num(perf.memory_per_gpu_gb, 1, "GB") + ("" if perf.fits_memory else "  ✗ does not fit")),
        ])
        self.breakdown.set_data([(PART_NAMES.get(k, k), v) for k, v in perf.breakdown_s.items()], seconds)
        if result.scaling:
            xs = [g for g, _ in result.scaling]
            ys = [m * 100 if math.isfinite(m) else 0.0 for _, m in result.scaling]
            current = next(((g, m * 100) for g, m in result.scaling if g == perf.job_gpus), None)
            self.scaling.set_data(xs, ys, mark=current,
                                  mark_text=f"this job {perf.mfu * 100:.1f} %" if current else "",
                                  y_range=(0.0, max(ys) * 1.3 if max(ys) > 0 else 1.0), ticks_at_data=True)
        else:
            self.scaling.set_data([], [])
