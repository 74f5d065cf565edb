"""Latency: switch hops, GPU-to-GPU one-way latency, small all-reduce."""

from __future__ import annotations

from core.metrics import panel_paths
from core.report.sections import UNREACHABLE
from designer.common.format import num
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.charts import BarChart
from designer.project.evaluator import Result


class LatencyPanel(MetricsPanel):
    title = "Latency"
    metric_paths = panel_paths("latency.max_switch_hops", "latency.gpu_to_gpu_max_us", "latency.gpu_to_gpu_mean_us",
                               "latency.allreduce_small_us")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.levels = BarChart("GPU-to-GPU latency by network level", "µs one-way")
        self.add_chart(self.levels)

    def update_result(self, result: Result) -> None:
        lat = result.evaluation.latency
        self.show_message("")

        def latency(key: str) -> tuple[str, str, str]:  # None: no path between some GPUs
            us = getattr(lat, key)
            return metric_row(f"latency.{key}", us, None if us is not None else UNREACHABLE)

        self.set_rows([
            metric_row("latency.max_switch_hops", lat.max_switch_hops, num(lat.max_switch_hops)),
            latency("gpu_to_gpu_max_us"),
            latency("gpu_to_gpu_mean_us"),
            metric_row("latency.allreduce_small_us", lat.allreduce_small_us),
        ])
        self.levels.set_data(list(lat.by_level_us), list(lat.by_level_us.values()), fmt="{:,.2f}")
