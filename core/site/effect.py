"""What placing a design changes in the price and power of its cables and optics.

Every cable is priced twice by one rule: at its drawn length and at its placed length, with the
catalog cable and transceiver core/inventory.py's ``choose_cable`` / ``choose_transceiver`` pick
for that length (one straight cable per link; at each fibre end the link's share of a module:
half a twin-port module, a whole single-port one). The difference is what the floor plan adds
(runs that outgrow multimode need single-mode optics; copper that outgrows its reach needs
optics). It is a like-for-like estimate beside the inventory's own count (which also shares
breakout splitters and cage modules), not a replacement for it. The inventory itself, and so
cost and power, buys for the placed lengths unless the project's site says
``"cable_lengths": "drawn"`` (core/evaluate.py, docs/guide/floor-plan.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.inventory import choose_cable, choose_transceiver

STEP_M = 0.5  # lengths are priced in steps of half a metre (cables are sold by length)


@dataclass(frozen=True)
class LengthEffect:
    # None: some item has no catalog price, or some run no catalog cable or module reaches
    # (a price or power for an item that cannot serve the run would be a number as if it could)
    capex_usd_drawn: float | None
    capex_usd_placed: float | None
    power_kw_drawn: float | None
    power_kw_placed: float | None
    beyond_catalog_reach: int         # placed cables no catalog cable or module reaches

    def to_json(self) -> dict:
        return {"capex_usd_drawn": self.capex_usd_drawn, "capex_usd_placed": self.capex_usd_placed,
                "power_kw_drawn": _round(self.power_kw_drawn),
                "power_kw_placed": _round(self.power_kw_placed),
                "beyond_catalog_reach": self.beyond_catalog_reach}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _price(spec) -> float | None:
    return None if spec.price is None else float(spec.price.usd)


def _per_link(catalog, fibre: bool, speed: float, length: float) -> tuple[float | None, float, bool]:
    """(USD, W, reaches) of one link's cable and its optics' share at ``length``."""
    cable = choose_cable(catalog, "fiber" if fibre else "copper", length)
    usd: float | None = 0.0
    watts = 0.0
    reaches = cable is not None and float(cable.reach_m) >= length
    if cable is not None:
        usd = _price(cable)
    if fibre:
        module = choose_transceiver(catalog, speed, length)
        reaches = reaches and module is not None and float(module.reach_m) >= length
        if module is not None:
            share = 2.0 / int(module.lanes or 1)  # two ends, a twin-port serves two
            price = _price(module)
            usd = None if usd is None or price is None else usd + share * price
            watts += share * float(module.power_w or 0.0)
    return usd, watts, reaches


def length_effect(cables, flat) -> LengthEffect | None:
    if cables is None or not cables.count:
        return None
    catalog = flat.catalog
    # The cable and module a run takes change only where a catalog reach is passed: one pick
    # per (medium, speed, reach bracket), not per half-metre step (a 100,000-GPU site has ~900
    # distinct placed lengths and a dozen brackets).
    reaches = np.unique([float(s.reach_m) for kind in ("cable", "transceiver")
                         for s in catalog.by_kind(kind)])
    fibre = flat.bundles_of_medium("fiber")[cables.bundle]
    speed_code = flat.speed_code[cables.bundle]
    n_speeds = len(flat.speed_values)
    totals = []
    # a representative length of every bracket: its upper reach (past the longest reach, a
    # step beyond it): any run of the bracket picks the same items as it does
    representative = np.append(reaches, (reaches[-1] if len(reaches) else 0.0) + STEP_M)
    for lengths in (flat.length_m[cables.bundle], cables.length_m):
        steps = np.ceil(lengths / STEP_M - 1e-9)
        bracket = np.searchsorted(reaches, steps * STEP_M, side="left")
        key = (bracket * n_speeds + speed_code) * 2 + fibre
        counts = np.bincount(key)  # the keys are a few hundred small integers: no sort of the cables
        distinct = np.flatnonzero(counts)
        counts = counts[distinct]
        usd = np.zeros(len(distinct))
        watts = np.zeros(len(distinct))
        reach = np.zeros(len(distinct), dtype=bool)
        unpriced = False
        for i, code in enumerate(distinct.tolist()):
            rest, is_fibre = divmod(code, 2)
            where, speed = divmod(rest, n_speeds)
            price, w, ok = _per_link(catalog, bool(is_fibre), float(flat.speed_values[speed]),
                                     float(representative[where]))
            unpriced |= price is None
            usd[i], watts[i], reach[i] = price or 0.0, w, ok
        beyond = int(counts[~reach].sum())
        totals.append((None if unpriced or beyond else float(usd @ counts),
                       None if beyond else float(watts @ counts) / 1000.0, beyond))
    (usd_d, kw_d, _), (usd_p, kw_p, beyond) = totals  # drawn runs beyond reach: LINK_TOO_LONG
    return LengthEffect(usd_d, usd_p, kw_d, kw_p, beyond)
