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
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from core.catalog import COMPUTE_KINDS, KINDS, Catalog
from core.diagnostics import Diagnostic
from core.analysis.cost_capital import (FACILITY_PARTS, capital_recovery_factor, effective_life_years,
                                        hardware_by_part)
from core.analysis.performance import PerformanceResult
from core.analysis.power import PowerResult
from core.assumptions.cost import CostAssumptions
from core.assumptions.power import PowerAssumptions
from core.inventory import Inventory, InventoryItem
from core.jsonable import to_jsonable

HOURS_PER_YEAR = 8760.0
# Inventory roles that a compute node's own catalog entry lists (core/inventory.py adds them
# unpowered, inside the host): their price is the node's.
IN_HOST_ROLES = ("accelerator", "nic", "dpu", "scale-up")


@dataclass(frozen=True)
class LinePrice:
    """The price of one inventory item (the BOM line of the same index)."""
    unit_price_usd: float | None      # after override and discount; None: unpriced or in host
    extended_price_usd: float | None  # count x unit price
    in_host: bool = False             # part of a compute node's own price


@dataclass(frozen=True, kw_only=True)
class CostResult:
    """The cost of a design, its fields in the order of the evaluation JSON's ``cost`` section
    (the contract's figures, the method, the parts), then what only code reads (``lines``)."""

    # None where an unpriced component leaves it unknown (UNPRICED_COMPONENTS says which);
    # every None of a figure that can be absent has its reason in ``null_reasons``.
    hardware_capex_usd: float | None
    facility_capex_usd: float
    capex_usd: float | None
    capex_by_kind_usd: Mapping[str, float | None]  # catalog kind -> hardware capex
    opex_usd_per_year: float | None
    tco_usd_per_year: float | None
    usd_per_gpu_hour: float | None
    # None without a run: no workload, or a job that cannot run on the design.
    training_run_usd: float | None
    usd_per_million_tokens_trained: float | None
    # owning cost / (utilisation x ETTR): what a GPU-hour of useful work costs
    usd_per_delivered_gpu_hour: float | None = None
    # --- the method (core/analysis/cost_capital.py): each part over its own life ---
    utilization: float = 1.0
    hardware_depreciation_years: float = 5.0     # servers and accelerators
    # the facility's effective straight-line life (shell and plant together); None when no
    # facility is owned (colocation, or no facility capex)
    facility_depreciation_years: float | None = None
    wacc: float = 0.0
    # yearly capital charge by part: straight line at WACC 0, the annuity above
    depreciation_usd_per_year_by_part: Mapping[str, float | None] = field(default_factory=dict)
    # --- the parts ---
    capex_usd_per_gpu: float | None
    energy_usd_per_year: float
    maintenance_usd_per_year: float | None
    colocation_usd_per_year: float
    depreciation_usd_per_year: float | None
    facility: str = "build"
    network_depreciation_years: float = 6.0
    ettr: float | None = None  # the job's, from reliability (None: not given)
    capex_by_part_usd: Mapping[str, float | None] = field(default_factory=dict)
    null_reasons: Mapping[str, str] = field(default_factory=dict)  # key -> why it is None
    unpriced_ids: tuple[str, ...]
    lines: tuple[LinePrice, ...]  # one per inventory item, in inventory order
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)

    @property
    def compute_capex_usd(self) -> float | None:
        """Hardware capex of the compute nodes (None when one of them is unpriced)."""
        by_kind = self.capex_by_kind_usd
        if any(by_kind.get(kind, 0.0) is None for kind in COMPUTE_KINDS):
            return None
        return sum(by_kind.get(kind, 0.0) or 0.0 for kind in COMPUTE_KINDS)


def partition_usd_per_gpu_hour(cost: CostResult, own_compute_usd: float | None, gpus: int,
                               gpu_share: float, power_share: float) -> float | None:
    """$/GPU-hour of a partition of the design ``cost`` prices (core/partitions.py): its share
    of the TCO over its ``gpus``' hours. Each part's capital charge by its share of that part
    (of the servers, its own compute nodes, ``own_compute_usd``, and a GPU share of the other
    server-part hardware such as storage and management; a GPU share of the network; of the
    facility, its share of the IT power), maintenance by its hardware, energy and colocation
    by its IT power. None when the design or the partition is unpriced."""
    compute_usd = cost.compute_capex_usd
    if (cost.tco_usd_per_year is None or compute_usd is None or own_compute_usd is None
            or not cost.hardware_capex_usd):
        return None
    parts, charge = cost.capex_by_part_usd, cost.depreciation_usd_per_year_by_part
    servers = parts.get("servers") or 0.0
    own_servers = own_compute_usd + (servers - compute_usd) * gpu_share
    capital = (charge.get("servers") or 0.0) * (own_servers / servers if servers else 0.0)
    capital += (charge.get("network") or 0.0) * gpu_share
    capital += sum((charge.get(p) or 0.0) for p in FACILITY_PARTS) * power_share
    hardware = own_compute_usd + (cost.hardware_capex_usd - compute_usd) * gpu_share
    tco = (capital + cost.maintenance_usd_per_year * hardware / cost.hardware_capex_usd
           + (cost.energy_usd_per_year + cost.colocation_usd_per_year) * power_share)
    return tco / (gpus * HOURS_PER_YEAR)


def run_at_rate(cost: CostResult, usd_per_gpu_hour: float | None,
                performance: PerformanceResult | None, training_tokens: float | None) -> CostResult:
    """``cost`` with the training run priced at ``usd_per_gpu_hour`` (a partition's: the
    design's average rate is the same whenever the partitions hold one kind of hardware)."""
    ran = performance if performance is not None and performance.runs else None
    if ran is None or ran.training_days is None or usd_per_gpu_hour is None:
        return cost
    reasons = dict(cost.null_reasons)
    reasons.pop("training_run_usd", None)
    reasons.pop("usd_per_million_tokens_trained", None)
    run = usd_per_gpu_hour * ran.job_gpus * ran.training_days * 24.0
    if not math.isfinite(run):
        reasons["training_run_usd"] = "training_run_usd is not a finite number"
        run = None
    return replace(cost, training_run_usd=run,
                   usd_per_million_tokens_trained=per_million_tokens(run, training_tokens, reasons),
                   null_reasons=reasons)


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
