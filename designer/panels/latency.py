"""Latency: switch hops, GPU-to-GPU one-way latency, small all-reduce."""

from __future__ import annotations

from core.report.sections import UNREACHABLE
from designer.common.format import num
from designer.panels.base import MetricsPanel
from designer.panels.charts import BarChart
from designer.project.evaluator import Result


class LatencyPanel(MetricsPanel):
    title = "Latency"
    metric_paths = {
        "Max switch hops": "latency.max_switch_hops", "GPU-to-GPU max": "latency.gpu_to_gpu_max_us",
        "GPU-to-GPU mean": "latency.gpu_to_gpu_mean_us",
        "Small all-reduce (all GPUs)": "latency.allreduce_small_us",
    }

    def __init__(self, parent=None):
        super().__init__(parent)
        self.levels = BarChart("GPU-to-GPU latency by network level", "µs one-way")
        self.add_chart(self.levels)

    def update_result(self, result: Result) -> None:
        lat = result.evaluation.latency
        self.show_message("")

        def latency(us: float | None) -> str:
            return num(us, 2, "µs") if us is not None else UNREACHABLE

        self.set_rows([
            ("Max switch hops", num(lat.max_switch_hops)),
            ("GPU-to-GPU max", latency(lat.gpu_to_gpu_max_us)),
            ("GPU-to-GPU mean", latency(lat.gpu_to_gpu_mean_us)),
            ("Small all-reduce (all GPUs)", num(lat.allreduce_small_us, 1, "µs"), "8-byte all-reduce"),
        ])
        self.levels.set_data(list(lat.by_level_us), list(lat.by_level_us.values()), fmt="{:,.2f}")
