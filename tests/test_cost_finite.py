"""Every figure of the cost analysis is a finite number or None with its reason, for any input
the files and the GUI accept (issue 22: a tiny positive training_tokens divided by zero).

Hypothesis draws the assumptions within their declared bounds, prices, counts, power figures,
the run (GPUs, days), the token count (subnormal ones included) and the job's ETTR."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.cost import CostAssumptions, analyze_cost
from core.assumptions.cost import FACILITY_MODES
from core.analysis.cost_capital import PARTS, capital_recovery_factor
from core.analysis.power import analyze_power
from core.inventory import Inventory, InventoryItem
from core.settings import setting_bounds


def _within(name: str, **extra):
    b = setting_bounds(CostAssumptions, name)
    lo = b.get("min", 0.0)
    hi = b.get("max", 1e12)
    return st.floats(lo, hi, exclude_min=bool(b.get("min_exclusive")), allow_nan=False, **extra)


ASSUMPTIONS = st.builds(
    CostAssumptions,
    depreciation_years=_within("depreciation_years"),
    network_depreciation_years=_within("network_depreciation_years"),
    facility_shell_depreciation_years=_within("facility_shell_depreciation_years"),
    facility_plant_depreciation_years=_within("facility_plant_depreciation_years"),
    facility_shell_fraction=_within("facility_shell_fraction"),
    wacc=_within("wacc"),
    facility=st.sampled_from(FACILITY_MODES),
    facility_usd_per_mw=_within("facility_usd_per_mw"),
    colocation_usd_per_kw_month=_within("colocation_usd_per_kw_month"),
    utilization=_within("utilization"),
    maintenance_fraction_per_year=_within("maintenance_fraction_per_year"),
    price_overrides_usd=st.fixed_dictionaries({}, optional={
        "DGX-H100": st.floats(1e-6, 1e12), "QM9700": st.floats(1e-6, 1e12)}),
)
TOKENS = st.one_of(st.none(), st.just(0.0), st.floats(0.0, 1e30, allow_subnormal=True),
                   st.sampled_from([5e-324, 1e-310, 1e-300]))
RUN = st.one_of(st.none(), st.builds(
    SimpleNamespace, runs=st.booleans(), job_gpus=st.integers(0, 10**7),
    training_days=st.one_of(st.none(), st.floats(0.0, 1e9))))


def _inventory(catalog, servers: int, switches: int, gpus_per_server: int = 8) -> Inventory:
    return Inventory((
        InventoryItem("DGX-H100", "server", "compute", servers, catalog.get("DGX-H100")),
        InventoryItem("H100-SXM5-80GB", "accelerator", "accelerator", servers * gpus_per_server,
                      catalog.get("H100-SXM5-80GB"), powered=False),
        InventoryItem("QM9700", "switch", "leaf", switches, catalog.get("QM9700")),
    ))


def _numbers(value, where=""):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (int, float)):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, f"{where}.{k}")


@pytest.fixture(scope="module")
def priced(catalog, with_prices):
    return with_prices(catalog, {"DGX-H100": 300_000.0, "QM9700": 20_000.0})


@settings(max_examples=300, deadline=None)
@given(a=ASSUMPTIONS, servers=st.integers(0, 10**6), switches=st.integers(0, 10**5),
       it_kw=st.floats(0.0, 1e9), typical=st.floats(0.0, 1.0), pue=st.floats(1.0, 3.0),
       electricity=st.floats(0.0, 10.0), run=RUN, tokens=TOKENS,
       ettr=st.one_of(st.none(), st.floats(0.0, 1.0), st.just(math.nan)))
def test_every_cost_figure_is_finite_or_null_with_a_reason(priced, a, servers, switches, it_kw, typical,
                                                           pue, electricity, run, tokens, ettr):
    inventory = _inventory(priced, servers, switches)
    power = dataclasses.replace(analyze_power(inventory, None, None), it_kw=it_kw,
                                typical_kw=it_kw * typical, pue=pue)
    cost = analyze_cost(inventory, power, run, priced, a, electricity, tokens, ettr)
    out = cost.to_json()
    out.pop("lines")
    for where, number in _numbers(out):
        assert math.isfinite(number), f"cost{where} = {number}"
    for key in ("usd_per_gpu_hour", "usd_per_delivered_gpu_hour", "training_run_usd",
                "usd_per_million_tokens_trained", "capex_usd_per_gpu", "facility_depreciation_years"):
        if out[key] is None:
            assert cost.null_reasons.get(key), f"{key} is null without a reason"
    assert set(cost.depreciation_usd_per_year_by_part) == set(PARTS)
    if cost.usd_per_delivered_gpu_hour is not None:
        assert cost.usd_per_delivered_gpu_hour >= cost.usd_per_gpu_hour * (1 - 1e-12)


@given(life=st.floats(0.5, 60.0), wacc=st.floats(0.0, 0.5, allow_subnormal=True))
def test_the_capital_charge_is_at_least_straight_line_and_finite(life, wacc):
    factor = capital_recovery_factor(life, wacc)
    assert math.isfinite(factor) and factor >= (1.0 / life) * (1 - 1e-9)
    # and never more than paying the capex plus a full year of interest each year
    assert factor <= 1.0 / life + wacc + 1e-9 or life < 1.0
