"""Bandwidth: scale-up and scale-out per GPU, bisection, oversubscription, collectives."""

from __future__ import annotations

from core.metrics import metric, panel_paths
from designer.common.format import pct
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.charts import BarChart
from designer.project.evaluator import Result


class BandwidthPanel(MetricsPanel):
    title = "Bandwidth"
    metric_paths = panel_paths(
        "bandwidth.scale_up_domain_gpus", "bandwidth.per_gpu_scale_up_gbyte_s",
        "bandwidth.per_gpu_scale_out_gbit_s", "bandwidth.bisection_tbit_s", "bandwidth.allreduce_busbw_gbyte_s",
        "bandwidth.alltoall_per_gpu_gbyte_s", "bandwidth.storage_read_gbyte_s", "bandwidth.storage_write_gbyte_s")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.levels = BarChart("Per-GPU bandwidth by network level", "Gb/s per GPU")
        self.add_chart(self.levels)
        self.effective = BarChart("Scale-out tiers: line rate vs what all-to-all gets",
                                  "Gb/s per GPU")
        self.add_chart(self.effective)

    @staticmethod
    def _fabric_rows(b) -> list[tuple[str, str, str]]:
        """How the scale-out tiers spread traffic: the mode, and per tier the fraction of line
        rate each collective pattern gets (core/analysis/load_balance.py)."""
        if not b.effective_fraction_by_tier:
            return []
        rows = [("Load balancing", b.load_balancing or "—", "scale-out tiers (docs/guide/fabrics.md)"),
                ("In-network reduction", b.in_network_reduction,
                 "network.in_network_reduction: SHARP / NVLink SHARP")]
        for tier, fractions in b.effective_fraction_by_tier.items():
            worst = min(fractions.values())
            detail = ", ".join(f"{p} {pct(v, 0)}" for p, v in fractions.items())
            rows.append((f"{tier.capitalize()} effective", pct(worst, 0) + " of line rate (worst)",
                         detail))
        return rows

    def _show_effective(self, b) -> None:
        names, values, colors = [], [], []
        for tier, rates in b.effective_by_tier_gbit_s.items():
            names += [f"{tier} line", f"{tier} a2a"]
            values += [rates["line"], rates["alltoall"]]
            colors += ["#b0bec5", "#1e88e5" if rates["alltoall"] >= 0.8 * rates["line"] else "#e53935"]
        self.effective.set_data(names, values, colors)

    @staticmethod
    def _plane_rows(planes) -> list[tuple[str, str]]:
        """A multi-plane or rail-only design's planes (nothing for one fabric)."""
        if planes is None:
            return []
        if planes.rails:
            return [("Rails", f"{planes.rails} rail switches, no spine",
                     planes.bandwidth_summary())]
        return [("Planes", f"{planes.planes} x {planes.per_gpu_scale_out_per_plane_gbit_s:,.0f} Gb/s"
                 f" per GPU", planes.bandwidth_summary())]

    def update_result(self, result: Result) -> None:
        b = result.evaluation.bandwidth
        failure = result.evaluation.failure
        over = ", ".join(f"{tier} {ratio:g}:1" for tier, ratio in b.oversubscription_by_tier.items()) or "—"
        self.show_message("")
        self.set_rows([
            metric_row("bandwidth.scale_up_domain_gpus", b.scale_up_domain_gpus),
            metric_row("bandwidth.per_gpu_scale_up_gbyte_s", b.per_gpu_scale_up_gbyte_s),
            metric_row("bandwidth.per_gpu_scale_out_gbit_s", b.per_gpu_scale_out_gbit_s),
            metric_row("bandwidth.bisection_tbit_s", b.bisection_tbit_s,
                       tip=f"{metric('bandwidth.bisection_tbit_s').explain}; method: {b.bisection_method}"),
            *([("Bisection lost", pct(failure.lost_bisection_fraction),
                f"failure what-if: {failure.bisection_tbit_s_intact:,.1f} Tb/s intact")] if failure else []),
            ("Oversubscription", over, "down:up ratio per tier"),
            metric_row("bandwidth.allreduce_busbw_gbyte_s", b.allreduce_busbw_gbyte_s),
            metric_row("bandwidth.alltoall_per_gpu_gbyte_s", b.alltoall_per_gpu_gbyte_s),
            metric_row("bandwidth.storage_read_gbyte_s", b.storage_read_gbyte_s),
            metric_row("bandwidth.storage_write_gbyte_s", b.storage_write_gbyte_s),
            *self._fabric_rows(b),
            *self._plane_rows(result.evaluation.planes),
        ])
        self._show_effective(b)
        levels = b.per_gpu_by_level_gbit_s
        self.levels.set_data(list(levels), list(levels.values()))
