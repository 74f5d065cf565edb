"""The power assumptions: PUE by cooling type, typical draw, electricity price and carbon,
rack packing and rack limits (read by core/analysis/power.py, cost and the site)."""

from __future__ import annotations

from dataclasses import dataclass, field


# Bounds of the assumptions below (core/settings.py reads them from the field metadata). A PUE
# is facility / IT power, so 1 or more; 3.0 leaves room well past the worst figure of
# hardware.md §8 (air-cooled colocation up to 1.8; Uptime average 1.56) and catches "14" for 1.4.
_PUE = {"min": 1.0, "max": 3.0}
_PER_RACK = {"min": 1, "unit": "per rack"}
_RACK_KW = {"min": 0.0, "unit": "kW"}


@dataclass(frozen=True)
class PowerAssumptions:
    # PUE. None: from the compute racks' cooling (compute-kW-weighted mix of the PUE of each
    # cooling type below). Engine defaults of hardware.md §8 / reliability-power.md §8.4 (E):
    # air-cooled 1.4, direct liquid cooling 1.15 (hyperscale 1.1; range 1.08-1.6; Uptime
    # average 1.56). docs/reference/cooling.md has the sources of every cooling default.
    pue: float | None = field(default=None, metadata=_PUE)
    pue_air: float = field(default=1.4, metadata=_PUE)
    # PUE of cold-plate (direct-to-chip) liquid cooling; "liquid" in older files and catalogs.
    pue_liquid: float = field(default=1.15, metadata=_PUE)
    # PUE of rear-door heat exchangers: air-cooled servers, room fans and chillers partly
    # replaced by a water coil on each rack door (cooling.md §2: ~1.3).
    pue_rear_door: float = field(default=1.3, metadata=_PUE)
    # PUE of immersion cooling (cooling.md §4: 1.02-1.1; Sugon's scaleX640 phase-change
    # immersion 1.04).
    pue_immersion: float = field(default=1.05, metadata=_PUE)
    # Expected/nameplate for compute, switches and storage without a typical figure
    # (reliability-power.md §8.2: 0.75-0.85, Latif et al. / Newkirk et al.; §11 default 0.8).
    typical_fraction: float = field(
        default=0.8, metadata={"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"})
    # Electricity price, USD per kWh of facility energy. USER INPUT (§9: "price and intensity
    # are user inputs"); 0.08 is about the US industrial-sector average of 2023-2024 (EIA,
    # Electric Power Monthly, table 5.3: ~8 cents/kWh). The cost analysis uses the same price.
    electricity_usd_per_kwh: float = field(default=0.08, metadata={"min": 0.0, "unit": "USD / kWh"})
    # Grid carbon intensity, t CO2e per MWh of facility energy. USER INPUT; 0.4 is an assumed
    # round figure near the GPT-3 anchor of §9 (Patterson et al.: 552 t / 1,287 MWh = 0.43);
    # the French-grid BLOOM anchor is 0.057.
    grid_t_co2_per_mwh: float = field(default=0.4, metadata={"min": 0.0, "unit": "t CO₂ / MWh"})
    # Rack packing of network and storage gear, for max_rack_kw (E: estimates; cable density
    # rather than rack units limits network racks to a few 64-port switches each).
    switches_per_rack: int = field(default=8, metadata=_PER_RACK)
    storage_per_rack: int = field(default=8, metadata=_PER_RACK)
    # Air-cooled rack density above which a warning is raised (E: SuperPOD H100 RA runs
    # 4 x DGX H100 = 40.8 kW air-cooled racks, hardware.md §3; beyond ~50 kW needs liquid).
    air_rack_limit_kw: float = field(default=50.0, metadata=_RACK_KW)
    # What a rear-door heat exchanger removes per rack (cooling.md §2: door families of 14-35,
    # 35-55 and 55-75 kW; overviews 20-80 kW).
    rear_door_rack_limit_kw: float = field(default=75.0, metadata=_RACK_KW)
    # What cold-plate liquid cooling removes per rack (cooling.md §3: GB300 NVL72 142 kW,
    # Vera Rubin NVL144 ~183 kW E; 200 kW rack designs).
    liquid_rack_limit_kw: float = field(default=200.0, metadata=_RACK_KW)
    # What an immersion tank removes per rack position (cooling.md §4: 50-250 kW per tank).
    immersion_rack_limit_kw: float = field(default=250.0, metadata=_RACK_KW)

    def cooling_pue(self, cooling: str) -> float:
        """The PUE of a cooling type of core/cooling.py."""
        return {"air": self.pue_air, "rear-door": self.pue_rear_door,
                "cold-plate": self.pue_liquid, "immersion": self.pue_immersion}[cooling]

    def rack_limit_kw(self, cooling: str) -> float:
        """The kW a rack of a cooling type of core/cooling.py can shed."""
        return {"air": self.air_rack_limit_kw, "rear-door": self.rear_door_rack_limit_kw,
                "cold-plate": self.liquid_rack_limit_kw,
                "immersion": self.immersion_rack_limit_kw}[cooling]
