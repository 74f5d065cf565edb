"""What placing a design changes in the price and power of its cables and optics.

Every cable is priced twice by one rule: at its drawn length and at its placed length, with the
catalog cable and modules core/optics.py picks for that length (one straight cable per link, of
the fibre type both ends' modules share; at each fibre end the module the end's port takes, as
the inventory picks it, and the link's share of it: half a twin-port module, a whole
single-port one, a quarter of a twin-port 800G module whose 400G ports are split to 200G). The difference is what the floor plan adds
(runs that outgrow multimode need single-mode optics; copper that outgrows its reach needs
optics). It is a like-for-like estimate beside the inventory's own count (which also shares
breakout splitters and cage modules), not a replacement for it. The inventory itself, and so
cost and power, buys for the placed lengths unless the project's site says
``"cable_lengths": "drawn"`` (core/evaluate.py, docs/guide/floor-plan.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.optics import choose_cable, end_options, pick_fiber

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


def _per_link(catalog, fibre: bool, speed: float, length: float, spec_a, spec_b,
              scale_out: bool) -> tuple[float | None, float, bool]:
    """(USD, W, reaches) of one link's cable and its optics' share at ``length``: at each fibre
    end the module the end's port takes (core/optics.py, as the inventory picks it: a switch's
    cage module, split where the link is slower than its port), the link's share of it one
    over its ports times the links each port fans out to."""
    if not fibre:
        cable = choose_cable(catalog, "copper", length)
        if cable is None:
            return 0.0, 0.0, False
        return _price(cable), 0.0, float(cable.reach_m) >= length
    ends = [end_options(catalog, spec, scale_out, speed, length) for spec in (spec_a, spec_b)]
    kind = pick_fiber(*ends)
    cable = choose_cable(catalog, "fiber", length, fiber=kind)
    usd: float | None = 0.0 if cable is None else _price(cable)
    reaches = cable is not None and float(cable.reach_m) >= length and kind is not None
    watts = 0.0
    for option in ([end[kind] for end in ends] if kind is not None else []):
        reaches = reaches and option.reaches
        if option.module is None:  # co-packaged optics: nothing to buy
            continue
        share = 1.0 / (int(option.module.lanes or 1) * max(1, option.fanout))
        price = _price(option.module)
        usd = None if usd is None or price is None else usd + share * price
        watts += share * float(option.module.power_w or 0.0)
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
    # the ends' catalog entries and the link class (what an end's module depends on), speed and
    # fibre as one code per bundle: a few distinct codes in any design
    ends = (flat.spec_row[flat.bundle_a] * len(flat.specs) + flat.spec_row[flat.bundle_b]) * 2 \
        + flat.bundles_of_kind("scale-out")
    classes, bundle_class = np.unique(ends, return_inverse=True)
    n_classes = len(classes)
    code = ((flat.speed_code * n_classes + bundle_class) * 2
            + flat.bundles_of_medium("fiber")).astype(np.int64)
    span = len(flat.speed_values) * n_classes * 2
    totals = []
    # a representative length of every bracket: its upper reach (past the longest reach, a
    # step beyond it): any run of the bracket picks the same items as it does
    representative = np.append(reaches, (reaches[-1] if len(reaches) else 0.0) + STEP_M)

    def bracket(lengths: np.ndarray) -> np.ndarray:
        return np.searchsorted(reaches, np.ceil(lengths / STEP_M - 1e-9) * STEP_M, side="left")

    # drawn lengths are the bundles': counted per bundle, weighted by its placed cables
    per_bundle = np.bincount(cables.bundle, minlength=len(code))
    drawn = np.bincount(bracket(flat.length_m) * span + code, weights=per_bundle)
    placed = np.bincount(bracket(cables.length_m) * span + code[cables.bundle])
    for counts in (drawn.astype(np.int64), placed):  # a few hundred small keys: no sort of the cables
        distinct = np.flatnonzero(counts)
        counts = counts[distinct]
        usd = np.zeros(len(distinct))
        watts = np.zeros(len(distinct))
        reach = np.zeros(len(distinct), dtype=bool)
        unpriced = False
        for i, key in enumerate(distinct.tolist()):
            where, rest = divmod(key, span)
            rest, is_fibre = divmod(rest, 2)
            speed, klass = divmod(rest, n_classes)
            row_ab, scale_out = divmod(int(classes[klass]), 2)
            row_a, row_b = divmod(row_ab, len(flat.specs))
            price, w, ok = _per_link(catalog, bool(is_fibre), float(flat.speed_values[speed]),
                                     float(representative[where]), flat.specs[row_a],
                                     flat.specs[row_b], bool(scale_out))
            unpriced |= price is None
            usd[i], watts[i], reach[i] = price or 0.0, w, ok
        beyond = int(counts[~reach].sum())
        totals.append((None if unpriced or beyond else float(usd @ counts),
                       None if beyond else float(watts @ counts) / 1000.0, beyond))
    (usd_d, kw_d, _), (usd_p, kw_p, beyond) = totals  # drawn runs beyond reach: LINK_TOO_LONG
    return LengthEffect(usd_d, usd_p, kw_d, kw_p, beyond)
