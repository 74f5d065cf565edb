"""Cost: capex (hardware by kind and facility), yearly opex and TCO, each part's yearly
capital charge, $/GPU-hour owning and delivered, the cost method's assumptions to edit, and the
training run's cost (a served workload's $ per million output tokens instead); "not
computable" and the unpriced ids when a price is missing; with several workloads, each
partition's $/GPU-hour and each service's $ per million output tokens."""

from __future__ import annotations

import math

from core.metrics import metric, panel_paths
from core.report.cost_rows import no_run_to_price
from designer.common import style
from designer.common.format import money, money_unit
from designer.panels.base import MetricsPanel, metric_label
from designer.panels.charts import BarChart
from designer.panels.cost_method import CostMethodEditor
from designer.panels.partition_rows import cost_rows
from designer.panels.performance import DOES_NOT_FIT
from designer.project.evaluator import Result

NOT_COMPUTABLE = "not computable"
# Short bar labels for a narrow dock; the catalog kinds are the keys.
BAR_LABELS = {"transceiver": "optics", "supernode": "super-node", "accelerator": "GPUs",
              "appliance": "mgmt"}
FACILITY_COLOR = "#90a4ae"
PART_LABELS = {"servers": "Servers and GPUs", "network": "Network", "building_shell": "Building shell",
               "power_cooling_plant": "Power and cooling plant"}


class CostPanel(MetricsPanel):
    title = "Cost"
    metric_paths = panel_paths(
        "cost.hardware_capex_usd", "cost.facility_capex_usd", "cost.capex_usd", "cost.opex_usd_per_year",
        "cost.tco_usd_per_year", "cost.usd_per_gpu_hour", "cost.usd_per_delivered_gpu_hour", "cost.training_run_usd",
        "cost.usd_per_million_tokens_trained",
        "inference.usd_per_million_output_tokens")  # an inference main workload's row

    def __init__(self, parent=None):
        super().__init__(parent)
        self.by_kind = BarChart("Capex by kind (hardware and facility)", "USD")
        self.method = CostMethodEditor()
        self.add_chart(self.method)
        self.add_chart(self.by_kind)

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        c = ev.cost
        why = ""
        if c.unpriced_ids:
            why = ("no price for " + ", ".join(c.unpriced_ids) + ": give one in the user catalog "
                   "or in Assumptions → Cost → Price overrides.")

        def usd(value: float | None) -> tuple[str, str] | tuple[str, str, str]:
            return (money(value),) if value is not None else (NOT_COMPUTABLE, why)

        def row(key: str, shown: tuple | None = None) -> tuple:
            """A cost metric's row: its label, its value (or why none), its tooltip."""
            path = f"cost.{key}"
            value, *tip = shown if shown is not None else usd(getattr(c, key))
            return metric_label(path), value, tip[0] if tip else metric(path).explain

        run: tuple = usd(c.training_run_usd)
        per_tokens: tuple = usd(c.usd_per_million_tokens_trained)
        if no_run_to_price(c):
            if ev.cannot_run:  # no run to charge: say why instead of a number
                reasons = "\n".join(d.message for d in ev.cannot_run)
                run = per_tokens = (DOES_NOT_FIT, reasons)
            else:
                run = per_tokens = ("n/a (no workload)",)
        rows: list = [
            ("Capex", None),
            row("hardware_capex_usd"),
            row("facility_capex_usd"),
            row("capex_usd"),
            row("capex_usd_per_gpu"),
            ("Per year", None),
            row("energy_usd_per_year"),
            row("maintenance_usd_per_year"),
            row("colocation_usd_per_year"),
            row("opex_usd_per_year"),
            row("tco_usd_per_year"),
            ("Written off per year", None),
            *self._capital_rows(c, usd),
            ("Use", None),
            row("usd_per_gpu_hour"),
            row("usd_per_delivered_gpu_hour", self._delivered(c, usd)),
        ]
        if ev.inference is not None:  # a served workload: no run to price, its tokens instead
            path = "inference.usd_per_million_output_tokens"
            value, *tip = self._per_output_tokens(ev.inference, usd)
            rows.append((metric_label(path), value, tip[0] if tip else metric(path).explain))
        else:
            rows += [row("training_run_usd", run), row("usd_per_million_tokens_trained", per_tokens)]
        rows += cost_rows(ev, {row[0] for row in rows})
        self.show_message(f"Cost {NOT_COMPUTABLE}: {why}" if why else "")
        self.set_rows(rows)
        self.method.show_assumptions(ev.assumptions.cost)
        kinds = list(c.capex_by_kind_usd)
        values = [c.capex_by_kind_usd[k] for k in kinds] + [c.facility_capex_usd]
        finite = [v for v in values if v is not None]
        unit, scale = money_unit(max(finite, default=0.0))
        self.by_kind.set_unit(f"{unit} USD".strip())
        self.by_kind.set_data(
            [BAR_LABELS.get(k, k) for k in kinds] + ["facility"],
            [v / scale if v is not None else math.nan for v in values], fmt="{:,.3g}",
            colors=[style.KIND_COLOR.get(k, style.SERIES[i % len(style.SERIES)])
                    for i, k in enumerate(kinds)] + [FACILITY_COLOR])

    @staticmethod
    def _capital_rows(c, usd) -> list[tuple]:
        """Each part's yearly capital charge, with its life (and the WACC) in the tooltip."""
        lives = {"servers": c.hardware_depreciation_years, "network": c.network_depreciation_years}
        method = f"an annuity at a WACC of {c.wacc:.1%}" if c.wacc > 0 else "straight line"
        rows = []
        for part, value in c.depreciation_usd_per_year_by_part.items():
            if value == 0.0:
                continue  # colocation owns no building; a design may have no network
            life = lives.get(part)
            tip = (f"written off over {life:g} years, {method}" if life is not None
                   else f"the facility over its own life ({method}); its parts' lives are in the method below")
            shown = usd(value)
            rows.append((PART_LABELS.get(part, part), shown[0], shown[1] if len(shown) > 1 else tip))
        return rows

    @staticmethod
    def _delivered(c, usd) -> tuple:
        if c.usd_per_delivered_gpu_hour is None:
            return usd(None) if c.unpriced_ids else (
                "n/a", c.null_reasons.get("usd_per_delivered_gpu_hour", ""))
        ettr = f" x the job's ETTR {c.ettr:.1%}" if c.ettr is not None else ""
        return (money(c.usd_per_delivered_gpu_hour),
                f"Per GPU-hour / (utilisation {c.utilization:.0%}{ettr})")

    @staticmethod
    def _per_output_tokens(inference, usd) -> tuple:
        if not inference.runs:
            return (DOES_NOT_FIT, "\n".join(d.message for d in inference.cannot_run))
        return usd(inference.usd_per_million_output_tokens)
