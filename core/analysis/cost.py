"""Cost: hardware and facility capex, yearly opex, TCO, $/GPU-hour and the training run's cost.

* **Hardware capex** is the bill of materials priced: for every inventory item, count x unit
  price, the unit price being the catalog entry's ``price.usd`` (or the project's
  ``price_overrides_usd`` for that id) less the discount of its catalog kind. What a compute
  node's catalog entry holds (its accelerators, NICs, DPUs and built-in scale-up switch chips:
  the inventory's unpowered items of those roles) is in the node's price and is not bought
  again; optics in a node's cages are bought separately, as cables are.
* **An unpriced item is never free**: if any priced line lacks a price, hardware capex and
  everything derived from it (capex, opex, TCO, $/GPU-hour, the run) are None and one
  UNPRICED_COMPONENTS error names the ids. The kinds whose lines are all priced keep their
  subtotal in ``capex_by_kind_usd`` (the others are None there).
* **Facility**: built (``facility`` "build") at $/MW of critical IT load x provisioned IT
  (power analysis ``it_kw``): the published construction figure is per MW of critical (IT)
  load, so it is applied to IT power, not to IT x PUE. It is split into building shell and
  power and cooling plant (``facility_shell_fraction``). Or colocated ("colocation"): no
  facility capex, a rent of $/kW-month x provisioned IT x 12 per year instead.
* **Each part written off over its own life** (core/analysis/cost_capital.py): servers and
  accelerators, network, building shell, power and cooling plant; straight line at a WACC of
  0, an annuity at the WACC above (the cost of capital). The old method wrote the building
  off over the servers' 4 years, which overstated the owning cost by ~0.3 USD per GPU-hour.
* **Energy per year** = expected IT draw in training (``typical_kw``) x PUE x 8,760 h x the
  power assumptions' electricity price (one price per project, shared with the run's energy
  cost): an owned training cluster is busy all year, so it is charged its training draw.
* **TCO per year** = the parts' yearly capital charge + opex (energy, maintenance,
  colocation); **$/GPU-hour** (owning, fully allocated) = TCO per year / (GPUs x 8,760 h);
  **$/delivered GPU-hour** = that / (utilisation x the job's ETTR); **training run** =
  $/GPU-hour x job GPUs x wall-clock hours (the performance's ``training_days``, which
  already include the failure overhead of ETTR); **$/M tokens** = training run / (training
  tokens / 1e6).
* **Never a non-finite number**: a figure that cannot be computed (no GPUs, no run, a
  vanishing token count, an ETTR of 0) is None with its reason in ``null_reasons``.

Loops are over inventory items (one per catalog id and role), never over devices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from core.catalog import KINDS, Catalog
from core.diagnostics import Diagnostic
from core.analysis.cost_capital import (FACILITY_PARTS, capital_recovery_factor, effective_life_years,
                                        hardware_by_part)
from core.analysis.performance import PerformanceResult
from core.analysis.power import PowerAssumptions, PowerResult
from core.inventory import Inventory, InventoryItem
from core.jsonable import to_jsonable

HOURS_PER_YEAR = 8760.0
FACILITY_MODES = ("build", "colocation")
# Inventory roles that a compute node's own catalog entry lists (core/inventory.py adds them
# unpowered, inside the host): their price is the node's.
IN_HOST_ROLES = ("accelerator", "nic", "dpu", "scale-up")


@dataclass(frozen=True)
class CostAssumptions:
    # -- lives --
    # Life of the servers and accelerators (compute, storage and management nodes, with the
    # GPUs, NICs and DPUs in their price), years, written off straight line (or as an annuity
    # at the WACC). 5: hyperscalers' server lives since 2022-25 (Microsoft and Alphabet 6,
    # Meta 5.5, Amazon 5 for part of its AI fleet from 2025, S: their 10-K filings as
    # reported); GPU-cloud critics argue 3-4 for accelerators. Was 4 for everything before.
    depreciation_years: float = field(
        default=5.0, metadata={"min": 0.5, "max": 30.0, "unit": "years"})
    # Life of the network (switches, NICs bought apart, optics, cables), years. 6: network
    # gear is written off over 5-7 years (S, ../shared/reference/cost-site-interop.md).
    network_depreciation_years: float = field(
        default=6.0, metadata={"min": 0.5, "max": 30.0, "unit": "years"})
    # Life of the building shell (with site work, back of house, offices), years. 30: data
    # centre buildings are depreciated over 15-40 years (S: operators' 10-K filings list
    # buildings up to 40 years; US tax life of non-residential buildings 39).
    facility_shell_depreciation_years: float = field(
        default=30.0, metadata={"min": 1.0, "max": 60.0, "unit": "years"})
    # Life of the power and cooling plant (switchgear, UPS, generators, chillers, CRAHs,
    # distribution, white-space fit-out), years. 15: electrical and mechanical plant lasts
    # 10-15 years before replacement (S, cost-site-interop.md).
    facility_plant_depreciation_years: float = field(
        default=15.0, metadata={"min": 1.0, "max": 60.0, "unit": "years"})
    # Share of the facility capex that is building shell rather than power and cooling
    # plant. 0.37: Cushman & Wakefield, Data Center Development Cost Guide 2025, US cost
    # breakdown (p. 6-7): shell 21 %, site 10 %, back of house 4 %, office 2 %; critical
    # power and cooling capacity 53 % and white-space build-out 10 % are the plant (P).
    facility_shell_fraction: float = field(
        default=0.37, metadata={"min": 0.0, "max": 1.0, "unit": "fraction"})
    # -- cost of capital --
    # Weighted average cost of capital, per year. 0: straight-line depreciation, the
    # accountant's view. Above 0 every part is paid as an annuity over its life at this rate
    # (the financed view of analyst TCO models; neoclouds borrow at roughly 8-15 %, E).
    wacc: float = field(
        default=0.0, metadata={"min": 0.0, "max": 0.5, "unit": "fraction / year"})
    # -- facility --
    # How the site is paid for: "build" | "colocation". build: the facility capex below,
    # written off as shell and plant; colocation: no facility capex, a rent per kW of
    # provisioned IT per month instead.
    facility: str = field(default="build", metadata={"choices": FACILITY_MODES})
    # Data-centre construction cost per MW of critical (IT) load. Cushman & Wakefield, Data
    # Center Development Cost Guide 2025 (cushwake.cld.bz/Data-Center-Development-Cost-Guide-2025):
    # average USD 11.7 M per MW across 19 US markets (9.3 M San Antonio to 15.0 M Reno),
    # excluding land, owner-furnished equipment and soft costs. 0 leaves the building out.
    facility_usd_per_mw: float = field(
        default=11.7e6, metadata={"min": 0.0, "unit": "USD / MW IT"})
    # Colocation rent per kW of provisioned IT per month, paid when the facility is
    # "colocation" (power is charged apart, as energy). 150: wholesale rates of
    # ~USD 150-250 per kW-month (S, cost-site-interop.md); 2026 Tier 1 US wholesale
    # USD 140-160, Tier 2 115-135 (S, v2-pseo-ai.pages.dev/colocation/pricing).
    colocation_usd_per_kw_month: float = field(
        default=150.0, metadata={"min": 0.0, "unit": "USD / kW-month"})
    # -- use --
    # Utilisation: the fraction of the GPU-hours owned that are allocated to jobs. 0.85:
    # Meta's two research clusters (16k and 8k A100) ran at "80 %+" over 11 months
    # (Kokolis et al., HPCA 2025, S via reviews; E for the exact figure). The delivered
    # GPU-hour's cost divides the owning cost by this and the job's ETTR.
    utilization: float = field(
        default=0.85, metadata={"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"})
    # -- prices --
    # Yearly maintenance and support contracts as a share of hardware capex. E: an estimate
    # (vendor support and spares at a few % of the purchase per year); a user input.
    maintenance_fraction_per_year: float = field(
        default=0.05, metadata={"min": 0.0, "max": 1.0, "unit": "fraction / year"})
    # Discount off the price of every entry of a catalog kind (switch, server, transceiver...),
    # as a fraction: {"switch": 0.1} pays 90 % of the switches' price. None by default.
    discount_by_kind: dict[str, float] = field(
        default_factory=dict, metadata={"min": 0.0, "max": 0.95, "unit": "fraction"})
    # Price of one unit of a catalog id, USD, replacing the catalog's price (or giving one to an
    # unpriced entry) for this project; the kind's discount still applies.
    price_overrides_usd: dict[str, float] = field(
        default_factory=dict, metadata={"min": 0.0, "min_exclusive": True, "unit": "USD"})

    def life_by_part(self) -> dict[str, float]:
        return {"servers": self.depreciation_years, "network": self.network_depreciation_years,
                "building_shell": self.facility_shell_depreciation_years,
                "power_cooling_plant": self.facility_plant_depreciation_years}


@dataclass(frozen=True)
class LinePrice:
    """The price of one inventory item (the BOM line of the same index)."""
    unit_price_usd: float | None      # after override and discount; None: unpriced or in host
    extended_price_usd: float | None  # count x unit price
    in_host: bool = False             # part of a compute node's own price


@dataclass(frozen=True)
class CostResult:
    # None where an unpriced component leaves it unknown (UNPRICED_COMPONENTS says which);
    # every None of a figure that can be absent has its reason in ``null_reasons``.
    hardware_capex_usd: float | None
    facility_capex_usd: float
    capex_usd: float | None
    capex_by_kind_usd: Mapping[str, float | None]  # catalog kind -> hardware capex
    capex_usd_per_gpu: float | None
    energy_usd_per_year: float
    maintenance_usd_per_year: float | None
    colocation_usd_per_year: float
    opex_usd_per_year: float | None
    depreciation_usd_per_year: float | None
    tco_usd_per_year: float | None
    usd_per_gpu_hour: float | None
    # None without a run: no workload, or a job that cannot run on the design.
    training_run_usd: float | None
    usd_per_million_tokens_trained: float | None
    unpriced_ids: tuple[str, ...]
    lines: tuple[LinePrice, ...]  # one per inventory item, in inventory order
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    # --- the method (core/analysis/cost_capital.py): each part over its own life ---
    facility: str = "build"
    hardware_depreciation_years: float = 5.0     # servers and accelerators
    network_depreciation_years: float = 6.0
    # the facility's effective straight-line life (shell and plant together); None when no
    # facility is owned (colocation, or no facility capex)
    facility_depreciation_years: float | None = None
    wacc: float = 0.0
    utilization: float = 1.0
    ettr: float | None = None  # the job's, from reliability (None: not given)
    capex_by_part_usd: Mapping[str, float | None] = field(default_factory=dict)
    # yearly capital charge by part: straight line at WACC 0, the annuity above
    depreciation_usd_per_year_by_part: Mapping[str, float | None] = field(default_factory=dict)
    # owning cost / (utilisation x ETTR): what a GPU-hour of useful work costs
    usd_per_delivered_gpu_hour: float | None = None
    null_reasons: Mapping[str, str] = field(default_factory=dict)  # key -> why it is None

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)


def _catalog_price_usd(item: InventoryItem) -> float | None:
    return None if item.spec.price is None else float(item.spec.price.usd)


def price_lines(inventory: Inventory, assumptions: CostAssumptions) -> tuple[LinePrice, ...]:
    """Unit and extended price of every inventory item (the BOM's price columns)."""
    lines = []
    for item in inventory.items:
        if not item.powered and item.role in IN_HOST_ROLES:
            lines.append(LinePrice(None, None, in_host=True))
            continue
        unit = assumptions.price_overrides_usd.get(item.catalog_id)
        unit = float(unit) if unit is not None else _catalog_price_usd(item)
        if unit is None:
            lines.append(LinePrice(None, None))
            continue
        unit *= 1.0 - float(assumptions.discount_by_kind.get(item.kind, 0.0))
        lines.append(LinePrice(unit, unit * item.count))
    return tuple(lines)


def analyze_cost(
    inventory: Inventory,
    power: PowerResult,
    performance: PerformanceResult | None,
    catalog: Catalog,
    assumptions: CostAssumptions = CostAssumptions(),
    electricity_usd_per_kwh: float = PowerAssumptions().electricity_usd_per_kwh,
    training_tokens: float | None = None,
    ettr: float | None = None,
) -> CostResult:
    """Cost of ``inventory`` with its ``power`` result; the training run of ``performance``
    (None, or a job that cannot run: no run cost) over ``training_tokens``; the delivered
    GPU-hour at the assumptions' utilisation and the job's ``ettr`` (reliability's; None
    counts as 1: no failure overhead known).

    ``electricity_usd_per_kwh`` is the power assumptions' price (one per project);
    ``catalog`` checks the ids of the price overrides.
    """
    a = assumptions
    diagnostics = _assumption_warnings(a, catalog)
    reasons: dict[str, str] = {}
    lines = price_lines(inventory, a)
    ordered, unpriced = _capex_by_kind(inventory, lines)
    hardware = None
    if unpriced:
        ids = sorted(unpriced)
        diagnostics.append(Diagnostic(
            "UNPRICED_COMPONENTS",
            f"no price for {', '.join(ids)}: capex, TCO and cost per GPU-hour are not computed "
            f"(give a price in the user catalog or in cost.price_overrides_usd)",
            tuple(dict.fromkeys(p for i in ids for p in unpriced[i]))))
        for key in ("hardware_capex_usd", "capex_usd", "capex_usd_per_gpu", "maintenance_usd_per_year",
                    "opex_usd_per_year", "depreciation_usd_per_year", "tco_usd_per_year",
                    "usd_per_gpu_hour", "usd_per_delivered_gpu_hour", "training_run_usd",
                    "usd_per_million_tokens_trained"):
            reasons[key] = f"no price for {', '.join(ids)}"
    else:
        hardware = float(sum(v for v in ordered.values() if v is not None))

    colocated = a.facility == "colocation"
    facility = 0.0 if colocated else power.it_kw / 1000.0 * a.facility_usd_per_mw
    colocation = power.it_kw * a.colocation_usd_per_kw_month * 12.0 if colocated else 0.0
    energy = power.typical_kw * power.pue * HOURS_PER_YEAR * electricity_usd_per_kwh
    by_part: dict[str, float | None] = {
        **hardware_by_part(ordered),
        "building_shell": facility * a.facility_shell_fraction,
        "power_cooling_plant": facility * (1.0 - a.facility_shell_fraction)}
    lives = a.life_by_part()
    charge = {part: (None if capex is None else capex * capital_recovery_factor(lives[part], a.wacc))
              for part, capex in by_part.items()}
    facility_life = None
    if facility > 0:
        facility_life = effective_life_years({p: by_part[p] or 0.0 for p in FACILITY_PARTS}, lives)
    else:
        reasons["facility_depreciation_years"] = ("colocation: no facility is owned" if colocated
                                                  else "no facility capex (facility_usd_per_mw 0 or no IT power)")

    gpus = inventory.gpus
    capex = maintenance = opex = depreciation = tco = per_gpu_hour = delivered = None
    if hardware is not None:
        capex = hardware + facility
        maintenance = hardware * a.maintenance_fraction_per_year
        opex = energy + maintenance + colocation
        depreciation = float(sum(v for v in charge.values() if v is not None))
        tco = depreciation + opex
        if gpus:
            per_gpu_hour = tco / (gpus * HOURS_PER_YEAR)
        else:
            reasons["usd_per_gpu_hour"] = reasons["capex_usd_per_gpu"] = "the design has no GPUs"
    job_ettr = ettr if ettr is not None and math.isfinite(ettr) else None
    if per_gpu_hour is not None:
        delivered = _delivered(per_gpu_hour, a.utilization, job_ettr, reasons)
    elif "usd_per_delivered_gpu_hour" not in reasons:
        reasons["usd_per_delivered_gpu_hour"] = reasons.get("usd_per_gpu_hour", "no cost per GPU-hour")
    run, per_token = _run_cost(per_gpu_hour, performance, training_tokens, reasons)
    return CostResult(
        hardware_capex_usd=hardware,
        facility_capex_usd=facility,
        capex_usd=capex,
        capex_by_kind_usd=ordered,
        capex_usd_per_gpu=capex / gpus if capex is not None and gpus else None,
        energy_usd_per_year=energy,
        maintenance_usd_per_year=maintenance,
        colocation_usd_per_year=colocation,
        opex_usd_per_year=opex,
        depreciation_usd_per_year=depreciation,
        tco_usd_per_year=tco,
        usd_per_gpu_hour=per_gpu_hour,
        training_run_usd=run,
        usd_per_million_tokens_trained=per_token,
        unpriced_ids=tuple(sorted(unpriced)),
        lines=lines,
        diagnostics=tuple(diagnostics),
        facility=a.facility,
        hardware_depreciation_years=a.depreciation_years,
        network_depreciation_years=a.network_depreciation_years,
        facility_depreciation_years=facility_life,
        wacc=a.wacc,
        utilization=a.utilization,
        ettr=job_ettr,
        capex_by_part_usd=by_part,
        depreciation_usd_per_year_by_part=charge,
        usd_per_delivered_gpu_hour=delivered,
        null_reasons=reasons,
    )


def _capex_by_kind(inventory: Inventory, lines: tuple[LinePrice, ...]
                   ) -> tuple[dict[str, float | None], dict[str, list[str]]]:
    """Hardware capex by catalog kind (None for a kind with an unpriced line, in KINDS order)
    and the unpriced ids with their design paths."""
    by_kind: dict[str, float | None] = {}
    unpriced: dict[str, list[str]] = {}
    for item, line in zip(inventory.items, lines):
        if line.in_host or item.count <= 0:
            continue
        if line.extended_price_usd is None:
            unpriced.setdefault(item.catalog_id, []).extend(item.paths)
            by_kind[item.kind] = None
        elif item.kind not in by_kind or by_kind[item.kind] is not None:
            by_kind[item.kind] = by_kind.get(item.kind, 0.0) + line.extended_price_usd
    return {k: by_kind[k] for k in KINDS if k in by_kind}, unpriced


def _assumption_warnings(a: CostAssumptions, catalog: Catalog) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    unknown_kinds = sorted(k for k in a.discount_by_kind if k not in KINDS)
    if unknown_kinds:
        out.append(Diagnostic(
            "BAD_ASSUMPTION", f"cost.discount_by_kind: {', '.join(map(repr, unknown_kinds))} "
            f"is not a catalog kind ({', '.join(KINDS)}); no discount applied for it"))
    if a.facility == "build" and a.colocation_usd_per_kw_month != CostAssumptions().colocation_usd_per_kw_month:
        # before issue 22 the rent was added to the building; a project that set it meant to rent
        out.append(Diagnostic(
            "BAD_ASSUMPTION", f"cost.colocation_usd_per_kw_month is {a.colocation_usd_per_kw_month:g} but "
            f"cost.facility is \"build\": the rent is not charged (set cost.facility to "
            f"\"colocation\" to rent instead of building)"))
    unknown_ids = sorted(i for i in a.price_overrides_usd if i not in catalog)
    if unknown_ids:
        out.append(Diagnostic(
            "BAD_ASSUMPTION", f"cost.price_overrides_usd: no catalog entry "
            f"{', '.join(map(repr, unknown_ids))}; the override prices nothing"))
    return out


def _delivered(per_gpu_hour: float, utilization: float, ettr: float | None,
               reasons: dict[str, str]) -> float | None:
    """The owning GPU-hour over the share of it that does useful work (allocated, and not
    lost to failures); None with its reason when none of it does."""
    useful = utilization * (ettr if ettr is not None else 1.0)
    if not useful > 0.0:
        reasons["usd_per_delivered_gpu_hour"] = (f"the job's ETTR is {ettr:g}: no GPU-hour "
                                                 f"delivers useful work")
        return None
    return _finite(per_gpu_hour / useful, "usd_per_delivered_gpu_hour", reasons)


def _run_cost(per_gpu_hour: float | None, performance: PerformanceResult | None,
              training_tokens: float | None, reasons: dict[str, str]) -> tuple[float | None, float | None]:
    """The run's cost (owning $/GPU-hour x job GPUs x wall-clock hours, which include the
    failure overhead) and per million tokens; None with a reason where either cannot be."""
    ran = performance if performance is not None and performance.runs else None
    if ran is None or ran.training_days is None:
        why = "no workload" if performance is None else "the job does not run on the design"
        reasons.setdefault("training_run_usd", why)
        reasons.setdefault("usd_per_million_tokens_trained", why)
        return None, None
    if per_gpu_hour is None:
        why = reasons.get("usd_per_gpu_hour", "no cost per GPU-hour")
        reasons.setdefault("training_run_usd", why)
        reasons.setdefault("usd_per_million_tokens_trained", why)
        return None, None
    run = _finite(per_gpu_hour * ran.job_gpus * ran.training_days * 24.0, "training_run_usd", reasons)
    return run, per_million_tokens(run, training_tokens, reasons)


def per_million_tokens(run_usd: float | None, training_tokens: float | None,
                       reasons: dict[str, str]) -> float | None:
    """``run_usd`` per million ``training_tokens``: None (with its reason) without tokens or
    when the quotient is not a finite number (a vanishing token count)."""
    key = "usd_per_million_tokens_trained"
    if run_usd is None:
        reasons.setdefault(key, reasons.get("training_run_usd", "no run cost"))
        return None
    if not training_tokens or not math.isfinite(training_tokens) or training_tokens < 0:
        reasons[key] = "the workload has no training tokens"
        return None
    # the order matters: tokens / 1e6 underflows to 0 for a subnormal token count
    return _finite(run_usd * 1e6 / training_tokens, key, reasons)


def _finite(value: float, key: str, reasons: dict[str, str]) -> float | None:
    if math.isfinite(value):
        return value
    reasons[key] = f"{key} is not a finite number (an input beyond what the cost model can represent)"
    return None
