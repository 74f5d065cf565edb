"""The cost assumptions: each part's life, the cost of capital, the facility built or
colocated, utilisation, maintenance, discounts and price overrides (core/analysis/cost.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

FACILITY_MODES = ("build", "colocation")


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
