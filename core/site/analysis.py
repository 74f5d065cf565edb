"""The site analysis: the design placed on the floor, its racks, rows and halls checked, its
cables given real lengths and media. One pure function, ``analyze_site``.

It runs after the topology (it reads the unit graph's cables) and needs nothing else, so it
changes no other figure: what the real lengths mean for cost, power and latency is offered to
those analyses through core/site/hook.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.cooling import COOLING_TYPES
from core.diagnostics import Diagnostic
from core.site.cables import (Cables, bought_by_medium, by_medium, cable_lengths, edge_lengths,
                              length_summary, unit_racks)
from core.site.effect import LengthEffect, length_effect
from core.site.failures import failures_per_day
from core.site.latency import latency_delta_us
from core.site.layout import LIQUID, Layout, lay_out
from core.site.pooled import far_pools, find_pools, spread_of
from core.site_spec import SiteSpec
from core.site.templates import RACK_CLASSES, Racker, Template


# the warnings this analysis raises (a failure what-if shows the intact design's: failed units
# still sit in their racks)
SITE_CODES = frozenset({"HALL_POWER_EXCEEDED", "HALL_COOLING_EXCEEDED", "ROW_CDU_EXCEEDED",
                        "SITE_RACK_OVER_LIMIT", "CABLE_REACH_EXCEEDED", "SITE_PLACEMENT"})


@dataclass(frozen=True)
class SiteResult:
    placement: str                       # "auto" | "drawn"
    halls: int
    rows: int
    racks: int
    racks_by_kind: dict[str, int]
    floor_area_m2: float
    rack_kw_max: float
    row_kw_max: float
    hall_kw: tuple[float, ...]
    cable_length_m: dict[str, float | None]
    cables_by_medium: dict[str, int]     # cables bought (a splitter once), adds up to counts.cables
    links_by_medium: dict[str, int]      # links (a splitter's every leg), adds up to counts.links
    reach_violations: int
    propagation_max_us: float | None     # the longest cable's propagation delay
    # cables and optics priced and powered at drawn and at placed lengths (core/site/effect.py)
    cables_optics: LengthEffect | None = None
    # per scale-out tier: what placed lengths add to the latency of a path turning there (us)
    latency_delta_us: dict[str, float] = field(default_factory=dict)
    # link failures per day of the placed design by medium (core/site/failures.py)
    link_failures_per_day: dict[str, float] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    # what the exports and the floor view draw (not in the JSON)
    spec: SiteSpec = field(default_factory=SiteSpec, repr=False, compare=False)
    template: Template | None = field(default=None, repr=False, compare=False)
    layout: Layout | None = field(default=None, repr=False, compare=False)
    cables: Cables | None = field(default=None, repr=False, compare=False)
    row_kw: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "placement": self.placement, "halls": self.halls, "rows": self.rows,
            "racks": self.racks, "racks_by_kind": dict(self.racks_by_kind),
            "floor_area_m2": round(self.floor_area_m2, 1), "rack_kw_max": round(self.rack_kw_max, 2),
            "row_kw_max": round(self.row_kw_max, 2),
            "hall_kw": [round(kw, 1) for kw in self.hall_kw],
            "cable_length_m": dict(self.cable_length_m),
            "cables_by_medium": dict(self.cables_by_medium),
            "links_by_medium": dict(self.links_by_medium),
            "reach_violations": self.reach_violations,
            "propagation_max_us": self.propagation_max_us,
            "cables_optics": self.cables_optics.to_json() if self.cables_optics else None,
            "latency_delta_us": dict(self.latency_delta_us),
            "link_failures_per_day": dict(self.link_failures_per_day),
        }


@dataclass(frozen=True)
class Placed:
    """The design on the floor before it is checked: racks, their places, every cable."""

    template: Template
    layout: Layout
    cables: Cables


def place_design(design, flat, graph, spec: SiteSpec | None, power_assumptions) -> Placed:
    """Racks from the design's block templates, laid out on ``spec``'s site (None: automatic),
    and every cable of the unit graph ``graph`` measured. A pooled leaf tier (core/site/
    pooled.py) is racked with its fabric unless that puts its endpoints' cables past
    multimode's reach; then its leaves go to the ends of the rows they serve."""
    spec = spec or SiteSpec()
    pa = power_assumptions

    def laid_out(pools) -> tuple[Template, Layout]:
        racker = Racker(design, flat, pa.switches_per_rack, pa.storage_per_rack,
                        spec.rack_height_u, spec.racks_per_row, pa.rack_limit_kw("air") * 1000.0,
                        frozenset(p.group for p in pools))
        template = racker.build()
        spread = (spread_of(pools, flat, graph, unit_racks(flat, graph, template)[0],
                            template.racks, [racker.network_rack(p.group) for p in pools])
                  if pools else None)
        return lay_out(template, spec, spread)

    template, layout = laid_out(())
    pools = find_pools(flat, graph)
    far = (far_pools(pools, lambda edges: edge_lengths(flat, graph, template, layout, spec, edges))
           if pools else ())
    if far:
        template, layout = laid_out(far)
    return Placed(template, layout, cable_lengths(flat, graph, template, layout, spec, far))


def analyze_site(design, flat, graph, spec: SiteSpec | None, power_assumptions,
                 bought: dict[str, int] | None = None, placed: Placed | None = None,
                 tiers: dict[int, str] | None = None, tier_order: tuple[str, ...] = (),
                 link_per_1000_days: float | None = None) -> SiteResult:
    """Place ``design`` (its flattened form ``flat`` and unit graph ``graph``) on ``spec``'s
    site (None: automatic), check it and measure its cables. ``bought``: the inventory's cables
    per drawn medium ("copper", "fiber"; None: one per link); ``placed``: the placement, when
    the caller made it already; ``tiers``/``tier_order``: the topology's switch tiers, for what
    placed lengths change in latency (core/site/hook.py); ``link_per_1000_days``: the failure
    rate of an optical link, for the links' failures by medium (None: not given)."""
    spec = spec or SiteSpec()
    pa = power_assumptions
    placed = placed or place_design(design, flat, graph, spec, pa)
    template, layout, cables = placed.template, placed.layout, placed.cables
    rows = len(layout.row_hall)
    rack_kw = template.rack_w / 1000.0
    row_kw = np.bincount(layout.rack_row, weights=rack_kw, minlength=rows)
    row_liquid_kw = np.bincount(layout.rack_row, weights=np.where(
        LIQUID[template.rack_cooling], rack_kw, 0.0), minlength=rows)
    hall_of_rack = layout.rack_hall
    halls_used = int(hall_of_rack.max()) + 1 if template.racks else 0
    hall_kw = np.bincount(hall_of_rack, weights=rack_kw, minlength=halls_used)
    halls = layout.halls[:halls_used]
    diagnostics = _checks(spec, layout, template, rack_kw, row_kw, row_liquid_kw, hall_kw,
                          cables, flat, pa)
    links = by_medium(cables)  # once: a bincount over every cable
    return SiteResult(
        placement="drawn" if spec.drawn else "auto",
        halls=halls_used, rows=int(len(np.unique(layout.rack_row))), racks=template.racks,
        racks_by_kind={name: int(n) for name, n in zip(
            RACK_CLASSES, np.bincount(template.rack_class, minlength=3).tolist())},
        floor_area_m2=float(sum(h.width_m * h.depth_m for h in halls)),
        rack_kw_max=float(rack_kw.max(initial=0.0)), row_kw_max=float(row_kw.max(initial=0.0)),
        hall_kw=tuple(hall_kw.tolist()), cable_length_m=length_summary(cables),
        cables_by_medium=bought_by_medium(links, bought) if bought is not None else dict(links),
        links_by_medium=links, reach_violations=int(cables.over_reach.sum()),
        propagation_max_us=(round(float(cables.ns.max()) / 1000.0, 4) if cables.count else None),
        cables_optics=length_effect(cables, flat),
        latency_delta_us=latency_delta_us(cables, flat, tiers or {}, tier_order),
        link_failures_per_day=(failures_per_day(cables, link_per_1000_days)
                               if link_per_1000_days is not None else {}),
        diagnostics=tuple(diagnostics), spec=spec, template=template, layout=layout,
        cables=cables, row_kw=row_kw)


def _checks(spec: SiteSpec, layout: Layout, t: Template, rack_kw: np.ndarray, row_kw: np.ndarray,
            row_liquid_kw: np.ndarray, hall_kw: np.ndarray, cables: Cables, flat,
            pa) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for i, kw in enumerate(hall_kw.tolist()):
        hall = layout.halls[i]
        if kw > hall.power_kw + 1e-6:
            out.append(Diagnostic("HALL_POWER_EXCEEDED",
                                  f"{hall.name} holds {kw:,.0f} kW of IT load; its power is "
                                  f"{hall.power_kw:,.0f} kW"))
        if kw > hall.cooling_kw + 1e-6:
            out.append(Diagnostic("HALL_COOLING_EXCEEDED",
                                  f"{hall.name} holds {kw:,.0f} kW of heat; its cooling removes "
                                  f"{hall.cooling_kw:,.0f} kW"))
    over_cdu = np.flatnonzero(row_liquid_kw > spec.row_cdu_kw + 1e-6)
    if len(over_cdu):
        worst = int(over_cdu[np.argmax(row_liquid_kw[over_cdu])])
        out.append(Diagnostic("ROW_CDU_EXCEEDED",
                              f"{len(over_cdu)} row(s) carry more liquid-cooled load than one "
                              f"row's CDU removes ({spec.row_cdu_kw:,.0f} kW); row {worst + 1}: "
                              f"{row_liquid_kw[worst]:,.0f} kW"))
    limits = np.array([pa.rack_limit_kw(c) for c in COOLING_TYPES])[t.rack_cooling]
    over = np.flatnonzero(rack_kw > limits + 1e-9)
    if len(over):
        worst = int(over[np.argmax(rack_kw[over] - limits[over])])
        paths = flat.group_paths(np.unique(t.rack_group[over]))
        out.append(Diagnostic("SITE_RACK_OVER_LIMIT",
                              f"{len(over)} placed rack(s) draw more than their cooling removes; "
                              f"rack {worst + 1}: {rack_kw[worst]:.1f} kW on "
                              f"{COOLING_TYPES[t.rack_cooling[worst]]} (limit {limits[worst]:g} kW)",
                              paths[:20]))
    if cables.over_reach.any():
        ks, n = np.unique(cables.bundle[cables.over_reach], return_counts=True)
        longest = cables.length_m[cables.over_reach].max()
        names = [f"{flat.paths[flat.bundle_a[k]]} - {flat.paths[flat.bundle_b[k]]}"
                 for k in ks[:3].tolist()]
        out.append(Diagnostic(
            "CABLE_REACH_EXCEEDED",
            f"{int(n.sum())} cable(s) are longer than their medium reaches once placed "
            f"(longest {longest:.1f} m): " + "; ".join(names)
            + (f" and {len(ks) - 3} more bundles" if len(ks) > 3 else ""),
            tuple(dict.fromkeys(p for k in ks[:20].tolist()
                                for p in (flat.paths[flat.bundle_a[k]], flat.paths[flat.bundle_b[k]])))))
    for problem in layout.problems:
        out.append(Diagnostic("SITE_PLACEMENT", problem))
    return out


