"""Power: IT and facility kW, PUE, rack density, energy of the training run; kW by kind."""

from __future__ import annotations

from designer import style
from designer.evaluator import Result
from designer.format import num, pct
from designer.panels.base import MetricsPanel
from designer.panels.charts import BarChart


class PowerPanel(MetricsPanel):
    title = "Power"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.by_kind = BarChart("IT power by kind (nameplate)", "kW")
        self.add_chart(self.by_kind)

    def update_result(self, result: Result) -> None:
        p = result.evaluation.power
        rows: list = [
            ("IT (nameplate)", num(p.it_kw, 0, "kW")),
            ("IT (typical in training)", num(p.typical_kw, 0, "kW")),
            ("PUE", num(p.pue, 2)),
            ("Facility", num(p.facility_kw, 0, "kW")),
            ("Max rack", num(p.max_rack_kw, 1, "kW")),
            ("Network share of IT", pct(p.network_share)),
            ("All-in per GPU", num(p.it_w_per_gpu, 0, "W")),
        ]
        if result.evaluation.performance is not None:
            rows += [
                ("Training run", None),
                ("Energy (facility)", num(p.energy_mwh_facility, 0, "MWh")),
                ("Electricity cost", num(p.energy_cost_usd, 0, "USD")),
                ("CO₂", num(p.co2_t, 0, "t")),
                ("GPU-hours", num(p.gpu_hours, 0, "h")),
            ]
        self.show_message("")
        self.set_rows(rows)
        kinds = [k for k, v in p.by_kind_kw.items() if v > 0]
        values = [p.by_kind_kw[k] for k in kinds]
        # Big sites read better in MW (and the axis keeps short labels).
        megawatts = bool(values) and max(values) >= 10_000
        self.by_kind.set_unit("MW" if megawatts else "kW")
        if megawatts:
            values = [v / 1000 for v in values]
        self.by_kind.set_data(kinds, values, fmt="{:,.1f}" if megawatts else "{:,.0f}",
                              colors=
                              [style.KIND_COLOR.get(k, style.SERIES[i]) for i, k in enumerate(kinds)])
