"""The cost analysis: capex is the priced bill of materials, overrides and discounts change
exactly their lines, an unpriced component makes cost not computable (never free), and the
yearly figures, $/GPU-hour and the run's cost follow from them as documented.

The built-in catalog may or may not carry prices: every test prices the entries it needs
itself (and strips the others), so it checks the same numbers before and after prices land."""

from __future__ import annotations

import csv
import dataclasses
import io
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.analysis.cost import HOURS_PER_YEAR, CostAssumptions, analyze_cost
from core.analysis.power import analyze_power
from core.assumptions import Assumptions, assumptions_from_dict, assumptions_to_dict
from core.catalog import KINDS
from core.errors import ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.inventory import Inventory, InventoryItem
from core.report import render_report
from core.workload import load_preset


def design(catalog, gpus=256, cost=None, workload=None):
    d = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), catalog)
    d.assumptions = Assumptions(cost=cost or CostAssumptions())
    d.workload = workload
    return d


def bom(ev) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(render_report(ev, "bom"))))


def extended_sum(rows) -> float:
    return sum(float(r["extended_price_usd"]) for r in rows if r["extended_price_usd"])


@pytest.fixture(scope="module")
def priced(catalog, with_prices, every_price):
    return with_prices(catalog, every_price(catalog))


def test_hardware_capex_is_the_sum_of_the_bom_extended_prices(priced):
    ev = evaluate(design(priced), priced)
    out = evaluation_to_json(ev)["cost"]
    rows = bom(ev)
    assert out["hardware_capex_usd"] == pytest.approx(extended_sum(rows), abs=0.01 * len(rows))
    assert sum(out["capex_by_kind_usd"].values()) == pytest.approx(out["hardware_capex_usd"])
    # Each priced line is count x the catalog price; the DGX's GPUs, NICs and NVSwitch chips
    # are in the DGX's price, not bought again.
    for row in rows:
        if row["extended_price_usd"]:
            unit = priced.get(row["catalog_id"]).price.usd
            assert float(row["unit_price_usd"]) == pytest.approx(unit)
            assert float(row["extended_price_usd"]) == pytest.approx(unit * int(row["quantity"]))
        else:
            assert row["role"] in ("accelerator", "nic", "scale-up") and "host" in row["note"]
    dgx = [r for r in rows if r["catalog_id"] == "DGX-H100"]
    assert sum(int(r["quantity"]) for r in dgx) == 32
    assert out["capex_by_kind_usd"]["server"] == pytest.approx(32 * priced.get("DGX-H100").price.usd)
    assert out["capex_usd"] == pytest.approx(out["hardware_capex_usd"] + out["facility_capex_usd"])
    assert out["capex_usd_per_gpu"] == pytest.approx(out["capex_usd"] / 256)


def test_a_price_override_changes_exactly_its_lines(priced):
    before = evaluate(design(priced), priced)
    after = evaluate(design(priced, cost=CostAssumptions(price_overrides_usd={"QM9700": 31_000.0})), priced)
    rows_before, rows_after = bom(before), bom(after)
    switches = 0
    for old, new in zip(rows_before, rows_after, strict=True):
        if old["catalog_id"] == "QM9700":
            switches += int(new["quantity"])
            assert float(new["unit_price_usd"]) == 31_000.0
            assert float(new["extended_price_usd"]) == 31_000.0 * int(new["quantity"])
        else:
            assert new == old
    old_price = priced.get("QM9700").price.usd
    assert switches > 0
    assert after.cost.hardware_capex_usd - before.cost.hardware_capex_usd == pytest.approx(
        switches * (31_000.0 - old_price))


def test_a_ten_percent_switch_discount_takes_ten_percent_off_the_switch_lines(priced):
    before = evaluate(design(priced), priced)
    after = evaluate(design(priced, cost=CostAssumptions(discount_by_kind={"switch": 0.1})), priced)
    switch_lines = extended_sum(r for r in bom(before) if r["kind"] == "switch")
    assert switch_lines > 0
    assert before.cost.hardware_capex_usd - after.cost.hardware_capex_usd == pytest.approx(0.1 * switch_lines)
    assert after.cost.capex_by_kind_usd["switch"] == pytest.approx(0.9 * switch_lines)
    assert after.cost.capex_by_kind_usd["server"] == before.cost.capex_by_kind_usd["server"]


def test_an_unpriced_component_makes_cost_not_computable_and_names_it(catalog, with_prices, every_price):
    prices = every_price(catalog)
    del prices["QM9700"]
    cat = with_prices(catalog, prices)
    ev = evaluate(design(cat, gpus=1024, workload=load_preset("llama3-70b")), cat)
    assert ev.performance.runs  # the run is real; only its cost is unknown
    out = evaluation_to_json(ev)["cost"]
    for key in ("hardware_capex_usd", "capex_usd", "opex_usd_per_year", "tco_usd_per_year",
                "usd_per_gpu_hour", "training_run_usd", "usd_per_million_tokens_trained"):
        assert out[key] is None, key
    assert out["unpriced_ids"] == ["QM9700"]
    assert out["capex_by_kind_usd"]["switch"] is None
    assert out["capex_by_kind_usd"]["server"] == pytest.approx(128 * prices["DGX-H100"])
    assert out["facility_capex_usd"] > 0 and out["energy_usd_per_year"] > 0  # need no prices
    [warning] = [w for w in evaluation_to_json(ev)["warnings"] if w["code"] == "UNPRICED_COMPONENTS"]
    assert warning["severity"] == "error" and "QM9700" in warning["message"]
    assert warning["components"]  # the switch groups, for the GUI to select
    md = render_report(ev, "md")
    assert "not computable: no price for QM9700" in md
    [row] = [r for r in bom(ev) if r["catalog_id"] == "QM9700"][:1]
    assert row["unit_price_usd"] == "" and row["extended_price_usd"] == "" and "no price" in row["note"]


def test_an_override_prices_an_unpriced_component(catalog, with_prices, every_price):
    prices = every_price(catalog)
    del prices["QM9700"]
    cat = with_prices(catalog, prices)
    ev = evaluate(design(cat, cost=CostAssumptions(price_overrides_usd={"QM9700": 25_000.0})), cat)
    assert ev.cost.unpriced_ids == () and ev.cost.hardware_capex_usd is not None
    assert not [w for w in ev.warnings if w.code == "UNPRICED_COMPONENTS"]


def test_a_job_that_cannot_run_has_no_run_cost(priced):
    workload = load_preset("llama3-405b")  # as published: 16,384 GPUs, more than the design
    ev = evaluate(design(priced, workload=workload), priced)
    assert ev.cannot_run
    out = evaluation_to_json(ev)["cost"]
    assert out["usd_per_gpu_hour"] > 0  # the cluster still costs money per hour
    assert out["training_run_usd"] is None and out["usd_per_million_tokens_trained"] is None
    assert "does not fit" in render_report(ev, "md").split("## Cost")[1].split("##")[0]


def test_a_job_that_runs_is_charged_its_gpu_hours(priced):
    ev = evaluate(design(priced, gpus=1024, workload=load_preset("llama3-70b")), priced)
    perf, cost = ev.performance, ev.cost
    assert perf.runs
    hours = perf.training_days * 24.0
    assert cost.training_run_usd == pytest.approx(cost.usd_per_gpu_hour * perf.job_gpus * hours)
    assert cost.usd_per_million_tokens_trained == pytest.approx(
        cost.training_run_usd / (ev.workload.training_tokens / 1e6))


def _small_inventory(catalog):
    dgx, switch = catalog.get("DGX-H100"), catalog.get("QM9700")
    return Inventory((
        InventoryItem("DGX-H100", "server", "compute", 2, dgx),
        InventoryItem("H100-SXM5-80GB", "accelerator", "accelerator", 16,
                      catalog.get("H100-SXM5-80GB"), powered=False),
        InventoryItem("QM9700", "switch", "leaf", 1, switch),
    ))


def test_gpu_hour_arithmetic_on_a_hand_checked_design(catalog, with_prices):
    cat = with_prices(catalog, {"DGX-H100": 300_000.0, "QM9700": 20_000.0})
    inventory = _small_inventory(cat)
    # Round power figures: 100 kW IT, 80 kW drawn in training, PUE 1.25.
    power = dataclasses.replace(analyze_power(inventory, None, None), it_kw=100.0, typical_kw=80.0,
                                pue=1.25)
    run = SimpleNamespace(runs=True, job_gpus=8, training_days=10.0)
    cost = analyze_cost(inventory, power, run, cat, CostAssumptions(), electricity_usd_per_kwh=0.08,
                        training_tokens=1e9)
    assert cost.hardware_capex_usd == 620_000.0           # 2 x 300k + 20k; the GPUs are in the DGX
    assert cost.facility_capex_usd == pytest.approx(1_170_000.0)   # 0.1 MW x 11.7 M$/MW
    assert cost.capex_usd == pytest.approx(1_790_000.0)
    assert cost.energy_usd_per_year == pytest.approx(70_080.0)     # 80 kW x 1.25 x 8760 h x 0.08
    assert cost.maintenance_usd_per_year == pytest.approx(31_000.0)  # 5 % of 620k
    assert cost.opex_usd_per_year == pytest.approx(101_080.0)
    # each part over its own life: servers 600k / 5 y, network (the switch) 20k / 6 y, the
    # building shell (37 % of the facility) / 30 y, the power and cooling plant (63 %) / 15 y
    parts = {"servers": 120_000.0, "network": 20_000.0 / 6, "building_shell": 432_900.0 / 30,
             "power_cooling_plant": 737_100.0 / 15}
    assert cost.depreciation_usd_per_year_by_part == pytest.approx(parts)
    assert cost.depreciation_usd_per_year == pytest.approx(186_903.333, rel=1e-6)
    assert cost.tco_usd_per_year == pytest.approx(186_903.333 + 101_080.0, rel=1e-6)  # 287,983
    assert cost.usd_per_gpu_hour == pytest.approx(287_983.333 / (16 * 8760), rel=1e-6)  # 2.055 USD
    # the facility's effective life: 1.17 M / (14,430 + 49,140) per year
    assert cost.facility_depreciation_years == pytest.approx(1_170_000.0 / 63_570.0)
    assert cost.hardware_depreciation_years == 5.0 and cost.wacc == 0.0
    assert cost.training_run_usd == pytest.approx(cost.usd_per_gpu_hour * 8 * 240)
    assert cost.usd_per_million_tokens_trained == pytest.approx(cost.training_run_usd / 1000)
    # no ETTR given: delivered = owning / utilisation (0.85 by default)
    assert cost.usd_per_delivered_gpu_hour == pytest.approx(cost.usd_per_gpu_hour / 0.85)
    failing = analyze_cost(inventory, power, run, cat, CostAssumptions(utilization=0.5), 0.08, 1e9, ettr=0.9)
    assert failing.usd_per_delivered_gpu_hour == pytest.approx(cost.usd_per_gpu_hour / 0.45)
    assert failing.usd_per_gpu_hour == cost.usd_per_gpu_hour  # owning is fully allocated

    colo = analyze_cost(inventory, power, None, cat, CostAssumptions(facility="colocation"), 0.08)
    assert colo.facility_capex_usd == 0.0 and colo.facility_depreciation_years is None
    assert "colocation" in colo.null_reasons["facility_depreciation_years"]
    assert colo.colocation_usd_per_year == pytest.approx(100 * 150 * 12)   # 100 kW x 150 $/kW-month
    assert colo.tco_usd_per_year == pytest.approx(
        cost.tco_usd_per_year - parts["building_shell"] - parts["power_cooling_plant"] + 180_000.0)
    assert colo.training_run_usd is None  # no run, no run cost
    assert colo.null_reasons["training_run_usd"] == "no workload"


def test_a_wacc_pays_every_part_as_an_annuity_over_its_life(catalog, with_prices):
    cat = with_prices(catalog, {"DGX-H100": 300_000.0, "QM9700": 20_000.0})
    inventory = _small_inventory(cat)
    power = dataclasses.replace(analyze_power(inventory, None, None), it_kw=100.0, typical_kw=80.0, pue=1.25)
    straight = analyze_cost(inventory, power, None, cat, CostAssumptions())
    financed = analyze_cost(inventory, power, None, cat, CostAssumptions(wacc=0.08))
    # 600k over 5 years at 8 %: 600k x 0.08 / (1 - 1.08^-5) = 150,274 a year (annuity tables)
    assert financed.depreciation_usd_per_year_by_part["servers"] == pytest.approx(150_273.9, rel=1e-5)
    # the building shell (432,900 over 30 years at 8 %): 38,453 a year against 14,430
    assert financed.depreciation_usd_per_year_by_part["building_shell"] == pytest.approx(38_453.0, rel=1e-4)
    assert financed.usd_per_gpu_hour > straight.usd_per_gpu_hour
    tiny = analyze_cost(inventory, power, None, cat, CostAssumptions(wacc=1e-12))
    assert tiny.depreciation_usd_per_year == pytest.approx(straight.depreciation_usd_per_year, rel=1e-9)


@given(discounts=st.dictionaries(st.sampled_from(KINDS), st.floats(0.0, 0.95), max_size=4),
       overrides=st.dictionaries(st.sampled_from(["DGX-H100", "QM9700", "Fiber-MMF"]),
                                 st.floats(1.0, 1e6), max_size=3))
def test_capex_equals_the_bom_for_any_discounts_and_overrides(priced_256, discounts, overrides):
    ev, cat = priced_256
    a = CostAssumptions(discount_by_kind=discounts, price_overrides_usd=overrides)
    power = ev.power
    cost = analyze_cost(ev.inventory, power, None, cat, a)
    rows = bom(dataclasses.replace(ev, cost=cost))
    assert cost.hardware_capex_usd == pytest.approx(extended_sum(rows), abs=0.01 * len(rows))
    if not overrides:  # discounts alone: between 5 % and all of the list-price capex
        assert 0.05 * ev.cost.hardware_capex_usd <= cost.hardware_capex_usd <= ev.cost.hardware_capex_usd * (1 + 1e-12)
    assert cost.tco_usd_per_year / (ev.counts.gpus * HOURS_PER_YEAR) == pytest.approx(cost.usd_per_gpu_hour)


@pytest.fixture(scope="module")
def priced_256(priced):
    return evaluate(design(priced), priced), priced


def test_cost_assumptions_round_trip_and_are_checked():
    raw = {"cost": {"discount_by_kind": {"switch": 0.2}, "price_overrides_usd": {"QM9700": 9e3},
                    "depreciation_years": 4, "wacc": 0.08, "facility": "colocation",
                    "facility_plant_depreciation_years": 12, "utilization": 0.7}}
    a = assumptions_from_dict(raw)
    assert a.cost.discount_by_kind == {"switch": 0.2} and a.cost.depreciation_years == 4
    assert assumptions_to_dict(a)["cost"] == raw["cost"]
    with pytest.raises(ProjectFileError, match=r"assumptions\.cost\.discount_by_kind\.switch: 1\.5 is above"):
        assumptions_from_dict({"cost": {"discount_by_kind": {"switch": 1.5}}})
    with pytest.raises(ProjectFileError, match=r"price_overrides_usd\.QM9700: 0(\.0)? must be above"):
        assumptions_from_dict({"cost": {"price_overrides_usd": {"QM9700": 0}}})
    with pytest.raises(ProjectFileError, match=r"assumptions\.cost\.facility: \"rent\" is not one of \"build\", \"colocation\""):
        assumptions_from_dict({"cost": {"facility": "rent"}})
    with pytest.raises(ProjectFileError, match=r"assumptions\.cost\.utilization: 0(\.0)? must be above"):
        assumptions_from_dict({"cost": {"utilization": 0}})


def test_an_unknown_kind_or_id_is_a_warning_not_a_silent_no_op(priced):
    a = CostAssumptions(discount_by_kind={"switches": 0.1}, price_overrides_usd={"QM9701": 5.0})
    ev = evaluate(design(priced, gpus=64, cost=a), priced)
    [warning] = [w for w in ev.warnings if w.code == "BAD_ASSUMPTION"]
    assert "'switches'" in warning.message and "'QM9701'" in warning.message
    assert ev.cost.hardware_capex_usd == evaluate(design(priced, gpus=64), priced).cost.hardware_capex_usd


def test_the_cost_section_carries_the_contract_keys_old_and_new(priced):
    # DESIGN.md's cost contract (issue 22 added the method's keys; every older key is kept)
    out = evaluation_to_json(evaluate(design(priced, gpus=64, workload=load_preset("llama3-70b")), priced))["cost"]
    for key in ("hardware_capex_usd", "facility_capex_usd", "capex_usd", "capex_by_kind_usd",
                "opex_usd_per_year", "tco_usd_per_year", "usd_per_gpu_hour", "training_run_usd",
                "usd_per_million_tokens_trained", "usd_per_delivered_gpu_hour", "utilization",
                "hardware_depreciation_years", "facility_depreciation_years", "wacc",
                "depreciation_usd_per_year_by_part", "capex_usd_per_gpu", "energy_usd_per_year",
                "maintenance_usd_per_year", "colocation_usd_per_year", "depreciation_usd_per_year"):
        assert key in out, key
    assert set(out["depreciation_usd_per_year_by_part"]) == {
        "servers", "network", "building_shell", "power_cooling_plant"}
    assert sum(out["depreciation_usd_per_year_by_part"].values()) == pytest.approx(out["depreciation_usd_per_year"])
    assert out["utilization"] == 0.85 and out["wacc"] == 0.0 and out["hardware_depreciation_years"] == 5.0
    # the job's ETTR (reliability's) and the default utilisation give the delivered GPU-hour
    assert out["usd_per_delivered_gpu_hour"] == pytest.approx(out["usd_per_gpu_hour"] / (0.85 * out["ettr"]))


def test_the_facility_is_no_longer_written_off_over_the_servers_life(priced):
    # issue 22: a 1,024-GPU DGX H100 cluster cost 1.86 USD per GPU-hour with everything over
    # 4 years; written off part by part the facility is a small share of the hour
    cost = evaluate(design(priced, gpus=1024), priced).cost
    by_part = cost.depreciation_usd_per_year_by_part
    facility = by_part["building_shell"] + by_part["power_cooling_plant"]
    assert facility == pytest.approx(cost.facility_capex_usd * (0.37 / 30 + 0.63 / 15))
    assert facility < cost.facility_capex_usd / 4 / 3  # under a third of the old 4-year charge


def test_an_old_project_that_set_a_colocation_rent_is_told_it_is_not_charged(priced):
    # before issue 22 the rent was added on top of the building; now it replaces it, and only
    # when the facility is "colocation"
    ev = evaluate(design(priced, gpus=64, cost=CostAssumptions(colocation_usd_per_kw_month=200.0)), priced)
    [warning] = [w for w in ev.warnings if w.code == "BAD_ASSUMPTION"]
    assert 'cost.facility is "build": the rent is not charged' in warning.message
    assert ev.cost.colocation_usd_per_year == 0.0
    rented = evaluate(design(priced, gpus=64, cost=CostAssumptions(facility="colocation",
                                                                  colocation_usd_per_kw_month=200.0)), priced)
    assert not [w for w in rented.warnings if w.code == "BAD_ASSUMPTION"]
    assert rented.cost.colocation_usd_per_year == pytest.approx(rented.power.it_kw * 200.0 * 12)
