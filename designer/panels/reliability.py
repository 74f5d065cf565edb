"""Reliability: interruptions, MTBI, checkpointing, ETTR and its curve against the interval."""

from __future__ import annotations

from core.metrics import panel_paths
from designer.common.format import num
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.charts import LineChart
from designer.project.evaluator import Result


class ReliabilityPanel(MetricsPanel):
    title = "Reliability"
    metric_paths = panel_paths("reliability.interruptions_per_day", "reliability.mtbi_hours",
                               "reliability.checkpoint_write_s", "reliability.checkpoint_interval_min",
                               "reliability.ettr", "reliability.single_points_of_failure")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.ettr = LineChart("ETTR against checkpoint interval", "ETTR (%)", "checkpoint interval (min)",
                              log_x=True)
        self.add_chart(self.ettr)

    @staticmethod
    def _plane_rows(planes) -> list[tuple[str, str, str]]:
        """What a switch or cable failure does in a multi-plane design (nothing for one fabric)."""
        if planes is None or planes.planes < 2:
            return []
        value = (f"{planes.degraded_events_per_day:.2f}/day, "
                 f"{planes.bandwidth_left_after_plane_failure:.0%} bandwidth kept"
                 if planes.failover else "interrupt the job")
        return [("Switch/cable failures", value, planes.reliability_summary())]

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        r = ev.reliability
        self.show_message("")
        self.set_rows([
            metric_row("reliability.job_gpus", r.job_gpus, num(r.job_gpus)),
            metric_row("reliability.interruptions_per_day", r.interruptions_per_day,
                       num(r.interruptions_per_day, 2)),
            metric_row("reliability.mtbi_hours", r.mtbi_hours,
                       None if r.mtbi_hours is not None else "nothing can fail"),
            metric_row("reliability.checkpoint_size_gb", r.checkpoint_size_gb,
                       None if r.checkpoint_size_gb is not None else "no workload"),
            metric_row("reliability.checkpoint_write_s", r.checkpoint_write_s, r.checkpoint_missing or None),
            metric_row("reliability.checkpoint_interval_min", r.checkpoint_interval_min, None
                       if r.checkpoint_interval_min is not None
                       else "no workload" if r.checkpoint_size_gb is None else "no checkpoints needed"),
            metric_row("reliability.ettr", r.ettr),
            ("Restart (detect + restart)", num(r.restart_total_min, 1, "min")),
            metric_row("reliability.single_points_of_failure", ev.spof_units),
            metric_row("reliability.spares_for_target", r.spares_for_target),
            *self._plane_rows(ev.planes),
        ])
        if result.ettr_intervals_min:
            values = [v * 100 for v in result.ettr_values]
            mark = None
            text = ""
            if r.checkpoint_interval_min:
                mark = (r.checkpoint_interval_min, r.ettr * 100)
                minutes = r.checkpoint_interval_min
                shown = f"{minutes:.1f}" if minutes < 10 else f"{minutes:,.0f}"
                text = f"optimum {shown} min · {r.ettr * 100:.1f} %"
            low = max(0.0, min(values) - 2)
            self.ettr.set_data(list(result.ettr_intervals_min), values, symbols=False, mark=mark,
                               mark_text=text, y_range=(low, 100.0 + (100 - low) * 0.15))
        else:
            self.ettr.set_data([], [])
