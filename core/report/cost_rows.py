"""Report rows of the cost: capex by kind, opex and its parts, TCO, the cost method, $/GPU-hour
and the training run; "not computable" and the unpriced ids where a missing price leaves a
figure unknown."""

from __future__ import annotations

from core.analysis.cost import CostResult
from core.evaluate import Evaluation
from core.metrics import metric
from core.report.rows import Row, metric_row, num, pct
from core.report.run_rows import run_value


def unpriced_text(ids: tuple[str, ...]) -> str:
    """"not computable: no price for A, B": why a cost figure is absent."""
    return "not computable: no price for " + ", ".join(ids)


def no_run_to_price(c: CostResult) -> bool:
    """Priced, but no training run to charge (no workload, a served one, or a job that cannot
    run): the run's cost and cost per token are "n/a" and why, not "not computable"."""
    return c.usd_per_gpu_hour is not None and c.training_run_usd is None


def cost_rows(ev: Evaluation) -> list[Row]:
    """Capex (by kind), opex and its parts, TCO, $/GPU-hour and the run; "not computable" and
    the unpriced ids where a missing price leaves a figure unknown."""
    c = ev.cost
    missing = "not computable (no price)"

    def usd(value: float | None, digits: int = 0) -> str:
        return num(value, digits, "USD") if value is not None else missing

    def money(key: str, text: str | None = None) -> Row:
        path = f"cost.{key}"
        return metric_row(path, None, text or usd(getattr(c, key), metric(path).digits))

    run = per_token = run_value(ev, "n/a") if no_run_to_price(c) else None
    rows = [Row("Result", unpriced_text(c.unpriced_ids), "cost.unpriced_ids")] if c.unpriced_ids else []
    return rows + [
        money("hardware_capex_usd"),
        *[Row(f"  {kind}", usd(value), f"cost.capex_by_kind_usd.{kind}")
          for kind, value in c.capex_by_kind_usd.items()],
        money("facility_capex_usd"),
        money("capex_usd"),
        money("capex_usd_per_gpu"),
        money("energy_usd_per_year"),
        money("maintenance_usd_per_year"),
        money("colocation_usd_per_year"),
        money("opex_usd_per_year"),
        money("tco_usd_per_year"),
        money("usd_per_gpu_hour"),
        money("usd_per_delivered_gpu_hour", _delivered_text(c, usd)),
        *_method_rows(c),
        money("training_run_usd", run),
        money("usd_per_million_tokens_trained", per_token),
    ]


def _delivered_text(c, usd) -> str:
    """The delivered GPU-hour with what it divides by, or why there is none."""
    if c.usd_per_delivered_gpu_hour is None:
        why = c.null_reasons.get("usd_per_delivered_gpu_hour", "")
        return usd(None) if c.unpriced_ids else f"n/a ({why})" if why else "n/a"
    ettr = f" x ETTR {pct(c.ettr)}" if c.ettr is not None else ""
    digits = metric("cost.usd_per_delivered_gpu_hour").digits
    return f"{usd(c.usd_per_delivered_gpu_hour, digits)} (at {pct(c.utilization)} utilisation{ettr})"


_PART_LABELS = {"servers": "servers and GPUs", "network": "network",
                "building_shell": "building shell", "power_cooling_plant": "power and cooling plant"}


def _method_rows(c) -> list[Row]:
    """How the owning cost was reached: the facility, the lives, the WACC, each part's yearly
    capital charge."""
    method = "annuity at WACC " + pct(c.wacc) if c.wacc > 0 else "straight line (WACC 0)"
    facility = (f"colocation ({num(c.colocation_usd_per_year, 0, 'USD')} per year)"
                if c.facility == "colocation" else
                f"built, written off over {num(c.facility_depreciation_years, 1, 'years')} (shell and plant)"
                if c.facility_depreciation_years is not None else "built (no facility capex)")
    rows = [Row("Facility", facility, "cost.facility"),
            Row("Lives: servers / network", f"{num(c.hardware_depreciation_years, 1)} / "
                f"{num(c.network_depreciation_years, 1)} years", "cost.hardware_depreciation_years"),
            Row("Capital charge", method, "cost.wacc")]
    for part, value in c.depreciation_usd_per_year_by_part.items():
        if value or value is None:
            rows.append(Row(f"  {_PART_LABELS.get(part, part)} per year",
                            num(value, 0, "USD") if value is not None else "not computable (no price)",
                            f"cost.depreciation_usd_per_year_by_part.{part}"))
    return rows
