"""Power: IT and facility kW, PUE, rack density, compute racks by cooling type, energy of the
training run; kW by kind; with several workloads, each partition's IT and facility kW."""

from __future__ import annotations

from core.metrics import panel_paths
from designer.common import style
from designer.common.format import num, power, power_unit
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.charts import BarChart
from designer.panels.partition_rows import power_rows
from designer.panels.performance import DOES_NOT_FIT
from designer.project.evaluator import Result


class PowerPanel(MetricsPanel):
    title = "Power"
    metric_paths = panel_paths("power.it_kw", "power.pue", "power.facility_kw", "power.max_rack_kw",
                               "power.energy_mwh_facility", "power.energy_cost_usd", "power.co2_t")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.by_kind = BarChart("IT power by kind (nameplate)", "kW")
        self.add_chart(self.by_kind)

    def update_result(self, result: Result) -> None:
        p = result.evaluation.power
        rows: list = [
            metric_row("power.it_kw", p.it_kw, power(p.it_kw)),
            metric_row("power.typical_kw", p.typical_kw, power(p.typical_kw)),
            metric_row("power.pue", p.pue),
            metric_row("power.facility_kw", p.facility_kw, power(p.facility_kw)),
            metric_row("power.max_rack_kw", p.max_rack_kw, power(p.max_rack_kw)),
            metric_row("power.network_share", p.network_share),
            ("All-in per GPU", num(p.it_w_per_gpu, 0, "W")),
        ]
        if p.cooling:
            rows += [("Compute racks by cooling", None), *cooling_rows(p.cooling)]
        ev = result.evaluation
        if ev.workload is not None:
            run = [metric_row("power.energy_mwh_facility", p.energy_mwh_facility),
                   metric_row("power.energy_cost_usd", p.energy_cost_usd),
                   metric_row("power.co2_t", p.co2_t),
                   metric_row("power.gpu_hours", p.gpu_hours)]
            reasons = ev.cannot_run
            if reasons:  # no run, so nothing to charge: say why instead of a number
                why = "\n".join(d.message for d in reasons)
                run = [(row[0], DOES_NOT_FIT, why) for row in run]
            rows += [("Training run", None), *run]
        rows += power_rows(ev, {row[0] for row in rows})
        # The over-limit warning stays in sight above the rows (also in the Warnings panel).
        over = next((d for d in ev.warnings if d.code == "RACK_OVER_COOLING_LIMIT"), None)
        self.show_message(f"⚠ {over.message}" if over is not None else "")
        self.set_rows(rows)
        kinds = [k for k, v in p.by_kind_kw.items() if v > 0]
        values = [p.by_kind_kw[k] for k in kinds]
        # One unit for every bar, the one the largest bar reads best in (as the rows above).
        unit, scale = power_unit(max(values, default=0.0))
        self.by_kind.set_unit(unit)
        self.by_kind.set_data(kinds, [v / scale for v in values], fmt="{:,.3g}",
                              colors=[style.KIND_COLOR.get(k, style.SERIES[i]) for i, k in enumerate(kinds)])


def cooling_rows(cooling) -> list[tuple[str, str, str]]:
    """One row per cooling type the design uses: its racks, densest rack against the type's
    limit, and PUE; a type with racks over its limit says how many."""
    rows = []
    for kind, racks in cooling.items():
        text = (f"{racks.racks:,} racks · max {power(racks.max_rack_kw)} of "
                f"{power(racks.rack_limit_kw)} · PUE {num(racks.pue, 2)}")
        if racks.over_limit_racks:
            text = f"⚠ {racks.over_limit_racks:,} over the limit · " + text
        tip = (f"{kind} cooling removes {power(racks.rack_limit_kw)} per rack and runs at PUE "
               f"{num(racks.pue, 2)} (Assumptions → Power); its racks hold {power(racks.it_kw)} "
               f"of compute IT")
        rows.append((kind.capitalize(), text, tip))
    return rows
