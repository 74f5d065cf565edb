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
* **Facility capex** = provisioned critical IT (power analysis ``it_kw``) x $/MW of critical
  load: the published construction figure is per MW of critical (IT) load, so it is applied
  to IT power, not to IT x PUE.
* **Energy per year** = expected IT draw in training (``typical_kw``) x PUE x 8,760 h x the
  power assumptions' electricity price (one price per project, shared with the run's energy
  cost): an owned training cluster is busy all year, so it is charged its training draw.
* **TCO per year** = capex / depreciation years + opex; **$/GPU-hour** = TCO per year /
  (GPUs x 8,760 h); **training run** = $/GPU-hour x job GPUs x wall-clock hours (the
  performance's ``training_days``, which include the failure overhead of ETTR); **$/M tokens**
  = training run / (training tokens / 1e6).

Loops are over inventory items (one per catalog id and role), never over devices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from core.catalog import KINDS, Catalog
from core.diagnostics import Diagnostic
from core.analysis.performance import PerformanceResult
from core.analysis.power import PowerAssumptions, PowerResult
from core.inventory import Inventory, InventoryItem
from core.jsonable import to_jsonable

HOURS_PER_YEAR = 8760.0
# Inventory roles that a compute node's own catalog entry lists (core/inventory.py adds them
# unpowered, inside the host): their price is the node's.
IN_HOST_ROLES = ("accelerator", "nic", "dpu", "scale-up")


@dataclass(frozen=True)
class CostAssumptions:
    # Straight-line depreciation period of the hardware, years. 4 years: Amazon's server life
    # from 2020 and a common figure for GPU clusters; hyperscalers have since moved to 5-6
    # (Microsoft, Alphabet 6; Meta 5.5; Amazon back to 5 for part of its AI fleet in 2025),
    # GPU-cloud critics argue 3. Facility capex is depreciated over the same period.
    depreciation_years: float = field(
        default=4.0, metadata={"min": 0.5, "max": 30.0, "unit": "years"})
    # Yearly maintenance and support contracts as a share of hardware capex. E: an estimate
    # (vendor support and spares at a few % of the purchase per year); a user input.
    maintenance_fraction_per_year: float = field(
        default=0.05, metadata={"min": 0.0, "max": 1.0, "unit": "fraction / year"})
    # Data-centre construction cost per MW of critical (IT) load. Cushman & Wakefield, Data
    # Center Development Cost Guide 2025 (cushwake.cld.bz/Data-Center-Development-Cost-Guide-2025):
    # average USD 11.7 M per MW across 19 US markets (9.3 M San Antonio to 15.0 M Reno),
    # excluding land, owner-furnished equipment and soft costs. 0 leaves the building out.
    facility_usd_per_mw: float = field(
        default=11.7e6, metadata={"min": 0.0, "unit": "USD / MW IT"})
    # Colocation or staff per kW of provisioned IT per month. 0: an owned facility whose staff
    # are not counted; colocation with power is typically a few hundred USD per kW-month.
    colocation_usd_per_kw_month: float = field(
        default=0.0, metadata={"min": 0.0, "unit": "USD / kW-month"})
    # Discount off the price of every entry of a catalog kind (switch, server, transceiver...),
    # as a fraction: {"switch": 0.1} pays 90 % of the switches' price. None by default.
    discount_by_kind: dict[str, float] = field(
        default_factory=dict, metadata={"min": 0.0, "max": 0.95, "unit": "fraction"})
    # Price of one unit of a catalog id, USD, replacing the catalog's price (or giving one to an
    # unpriced entry) for this project; the kind's discount still applies.
    price_overrides_usd: dict[str, float] = field(
        default_factory=dict, metadata={"min": 0.0, "min_exclusive": True, "unit": "USD"})


@dataclass(frozen=True)
class LinePrice:
    """The price of one inventory item (the BOM line of the same index)."""
    unit_price_usd: float | None      # after override and discount; None: unpriced or in host
    extended_price_usd: float | None  # count x unit price
    in_host: bool = False             # part of a compute node's own price


@dataclass(frozen=True)
class CostResult:
    # None where an unpriced component leaves it unknown (UNPRICED_COMPONENTS says which).
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

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)


def _catalog_price_usd(item: InventoryItem) -> float | None:
    price = item.spec.get("price")
    if isinstance(price, Mapping) and price.get("usd") is not None:
        return float(price["usd"])
    return None


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
) -> CostResult:
    """Cost of ``inventory`` with its ``power`` result; the training run of ``performance``
    (None, or a job that cannot run: no run cost) over ``training_tokens``.

    ``electricity_usd_per_kwh`` is the power assumptions' price (one per project);
    ``catalog`` checks the ids of the price overrides.
    """
    a = assumptions
    diagnostics: list[Diagnostic] = []
    unknown_kinds = sorted(k for k in a.discount_by_kind if k not in KINDS)
    if unknown_kinds:
        diagnostics.append(Diagnostic(
            "BAD_ASSUMPTION", f"cost.discount_by_kind: {', '.join(map(repr, unknown_kinds))} "
            f"is not a catalog kind ({', '.join(KINDS)}); no discount applied for it"))
    unknown_ids = sorted(i for i in a.price_overrides_usd if i not in catalog)
    if unknown_ids:
        diagnostics.append(Diagnostic(
            "BAD_ASSUMPTION", f"cost.price_overrides_usd: no catalog entry "
            f"{', '.join(map(repr, unknown_ids))}; the override prices nothing"))

    lines = price_lines(inventory, a)
    by_kind: dict[str, float | None] = {}
    unpriced: dict[str, list[str]] = {}  # id -> design paths
    for item, line in zip(inventory.items, lines):
        if line.in_host or item.count <= 0:
            continue
        if line.extended_price_usd is None:
            unpriced.setdefault(item.catalog_id, []).extend(item.paths)
            by_kind[item.kind] = None
        elif item.kind not in by_kind or by_kind[item.kind] is not None:
            by_kind[item.kind] = by_kind.get(item.kind, 0.0) + line.extended_price_usd
    ordered = {k: by_kind[k] for k in KINDS if k in by_kind}

    hardware = None
    if unpriced:
        ids = sorted(unpriced)
        diagnostics.append(Diagnostic(
            "UNPRICED_COMPONENTS",
            f"no price for {', '.join(ids)}: capex, TCO and cost per GPU-hour are not computed "
            f"(give a price in the user catalog or in cost.price_overrides_usd)",
            tuple(dict.fromkeys(p for i in ids for p in unpriced[i]))))
    else:
        hardware = float(sum(v for v in ordered.values() if v is not None))

    facility = power.it_kw / 1000.0 * a.facility_usd_per_mw
    energy = power.typical_kw * power.pue * HOURS_PER_YEAR * electricity_usd_per_kwh
    colocation = power.it_kw * a.colocation_usd_per_kw_month * 12.0
    gpus = inventory.gpus
    capex = maintenance = opex = depreciation = tco = per_gpu_hour = None
    if hardware is not None:
        capex = hardware + facility
        maintenance = hardware * a.maintenance_fraction_per_year
        opex = energy + maintenance + colocation
        depreciation = capex / a.depreciation_years
        tco = depreciation + opex
        per_gpu_hour = tco / (gpus * HOURS_PER_YEAR) if gpus else None
    run = per_token = None
    ran = performance if performance is not None and performance.runs else None
    if per_gpu_hour is not None and ran is not None and ran.training_days is not None:
        run = per_gpu_hour * ran.job_gpus * ran.training_days * 24.0
        if training_tokens:
            per_token = run / (training_tokens / 1e6)
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
    )
