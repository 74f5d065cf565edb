"""Cost rows (cost_cases.py) through the CLI path: `generate` then `evaluate --format json`,
with the default cost assumptions."""

from __future__ import annotations

from pathlib import Path

from core.analysis.cost_capital import NETWORK_KINDS

from . import cost_cases as CC
from .suite import RowResult, _status, evaluate_project, run_cli

GROUP = "Owning cost and bill of materials (issue 22)"


def _figures(ev: dict) -> dict[str, float | None]:
    cost, gpus = ev["cost"], ev["counts"]["gpus"]
    hardware = cost["hardware_capex_usd"]
    network = sum(v for k, v in cost["capex_by_kind_usd"].items() if k in NETWORK_KINDS and v)
    return {CC.OWNING: cost["usd_per_gpu_hour"],
            CC.HW_PER_GPU: hardware / gpus if hardware is not None and gpus else None,
            CC.NETWORK_SHARE: network / hardware if hardware else None}


def _show(figure: str, value: float) -> str:
    if figure == CC.OWNING:
        return f"{value:.2f} USD/GPU-h"
    if figure == CC.HW_PER_GPU:
        return f"{value:,.0f} USD/GPU"
    if figure == CC.NETWORK_SHARE:
        return f"{100 * value:.1f} %"
    return f"{value:.2f}x"


def _published(case: CC.CostCase) -> str:
    if case.kind == "at-most":
        return f"≤ {_show(case.figure, case.high)}"
    if case.low == case.high:
        return _show(case.figure, case.low)
    return f"{_show(case.figure, case.low)} – {_show(case.figure, case.high)}"


def _error(case: CC.CostCase, value: float) -> tuple[float, str, str]:
    """(error compared with the tolerance, its text, the tolerance's text)."""
    share = case.figure == CC.NETWORK_SHARE
    if case.kind == "at-most":
        over = max(0.0, value / case.high - 1.0)
        return over, ("below the bound" if over == 0 else f"{100 * over:+.1f}% above"), "at most"
    if case.low <= value <= case.high:
        err = 0.0
    elif share:
        err = value - case.high if value > case.high else value - case.low
    else:
        err = value / case.high - 1.0 if value > case.high else value / case.low - 1.0
    tol = f"±{100 * case.tolerance:.0f} pt" if share else f"±{100 * case.tolerance:.0f}%"
    if err == 0.0:
        text = "in range" if case.low != case.high else "exact"
    else:
        text = f"{100 * err:+.1f} pt" if share else f"{100 * err:+.1f}%"
        text += " outside" if case.low != case.high else ""
    return err, text, tol


def run_cost(folder: Path) -> list[RowResult]:
    evaluations = {}
    for name, args in CC.DESIGNS.items():
        path = folder / f"cost-{name}.json"
        run_cli(["generate", *args, "-o", str(path)])
        evaluations[name] = _figures(evaluate_project(path))
    evaluations["gb200-16"][CC.RATIO_TO_H100] = (evaluations["gb200-16"][CC.OWNING]
                                                 / evaluations["h100-1k"][CC.OWNING])
    out = []
    for case in CC.COST_CASES:
        value = evaluations[case.design][case.figure]
        err, error, tol = _error(case, value)
        within = abs(err) <= case.tolerance + 1e-12
        out.append(RowResult("cost", case.id, GROUP, CC.DESIGN_TITLES[case.design],
                             _published(case), _show(case.figure, value), error, err,
                             case.tolerance, tol, case.policy, _status(case.policy, within),
                             case.reason, case.source, extra={"figure": case.figure, "value": value}))
    return out
