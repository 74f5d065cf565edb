"""Reliability: interruptions, MTBI, checkpointing, ETTR and its curve against the interval."""

from __future__ import annotations

from designer.common.format import num, pct
from designer.panels.base import MetricsPanel
from designer.panels.charts import LineChart
from designer.project.evaluator import Result


class ReliabilityPanel(MetricsPanel):
    title = "Reliability"
    metric_paths = {
        "Interruptions per day": "reliability.interruptions_per_day",
        "Mean time between interruptions": "reliability.mtbi_hours",
        "Checkpoint write": "reliability.checkpoint_write_s",
        "Checkpoint interval (optimum)": "reliability.checkpoint_interval_min",
        "Effective training time ratio": "reliability.ettr",
        "Single points of failure": "reliability.single_points_of_failure",
    }

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
            ("Job GPUs", num(r.job_gpus)),
            ("Interruptions per day", num(r.interruptions_per_day, 2)),
            ("Mean time between interruptions",
             num(r.mtbi_hours, 1, "h") if r.mtbi_hours is not None else "nothing can fail"),
            ("Checkpoint size", num(r.checkpoint_size_gb, 0, "GB") if r.checkpoint_size_gb is not None
             else "no workload"),
            ("Checkpoint write", r.checkpoint_missing or num(r.checkpoint_write_s, 1, "s")),
            ("Checkpoint interval (optimum)", num(r.checkpoint_interval_min, 1, "min")
             if r.checkpoint_interval_min is not None
             else "no workload" if r.checkpoint_size_gb is None else "no checkpoints needed"),
            ("Effective training time ratio", pct(r.ettr)),
            ("Restart (detect + restart)", num(r.restart_total_min, 1, "min")),
            ("Single points of failure", num(ev.spof_units)),
            ("Spare nodes for target", num(r.spares_for_target)),
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
