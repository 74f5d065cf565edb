"""What owning costs per year: each part's capex written off over its own life, with an
optional cost of capital.

The parts (``PARTS``) and what each holds:

* ``servers``: compute nodes and super-nodes (with the GPUs, NICs and DPUs in their price),
  storage nodes, management appliances, and any accelerator, DPU or NIC bought apart from a
  host except NICs (network);
* ``network``: switches, NICs bought apart, optics and cables;
* ``building_shell``: the building, site work, back of house and offices (a share of the
  facility capex);
* ``power_cooling_plant``: critical power and cooling (switchgear, UPS, generators,
  chillers, CRAHs, distribution) and the white-space fit-out (the rest of the facility).

**Yearly capital charge** of a part with capex C and life n years: straight line C / n at a
WACC of 0; at a WACC r > 0 the annuity C r / (1 - (1 + r)^-n), the level yearly payment that
repays C with interest r over n years (what a buyer financing the part at r pays, or forgoes).
"""

from __future__ import annotations

import math
from typing import Mapping

PARTS = ("servers", "network", "building_shell", "power_cooling_plant")
NETWORK_KINDS = ("switch", "nic", "transceiver", "cable")
FACILITY_PARTS = ("building_shell", "power_cooling_plant")


def part_of_kind(kind: str) -> str:
    """The part a catalog kind's hardware capex belongs to ("servers" or "network")."""
    return "network" if kind in NETWORK_KINDS else "servers"


def hardware_by_part(capex_by_kind_usd: Mapping[str, float | None]) -> dict[str, float | None]:
    """Hardware capex of the servers and network parts (None: a kind in it is unpriced)."""
    out: dict[str, float | None] = {"servers": 0.0, "network": 0.0}
    for kind, value in capex_by_kind_usd.items():
        part = part_of_kind(kind)
        out[part] = None if value is None or out[part] is None else out[part] + value
    return out


def capital_recovery_factor(life_years: float, wacc: float) -> float:
    """The share of a capex paid each year over ``life_years`` at ``wacc``: 1 / n at 0, the
    annuity factor r / (1 - (1 + r)^-n) above (always finite and positive for n > 0)."""
    if wacc <= 0.0:
        return 1.0 / life_years
    # expm1/log1p keep the factor exact for tiny rates, where 1 - (1 + r)^-n loses its digits
    return wacc / -math.expm1(-life_years * math.log1p(wacc))


def effective_life_years(capex_by_part: Mapping[str, float], life_by_part: Mapping[str, float]) -> float | None:
    """The single straight-line life that writes off these parts together at the same
    yearly amount: capex / sum(capex_i / life_i); None when there is no capex."""
    total = sum(capex_by_part.values())
    yearly = sum(c / life_by_part[p] for p, c in capex_by_part.items())
    return total / yearly if total > 0 and yearly > 0 else None
