"""Every cable's length from where its two ends sit, and the medium that length calls for.

A cable between two racks rises from its device to the overhead tray, runs along and across the
rows (Manhattan distance between the rack centres), drops into the other rack, and gets slack
(``slack_fraction`` of the routed path plus a fixed ``service_loop_m``). A cable inside one rack
runs between the two devices' heights, plus ``in_rack_extra_m``. Fibre propagates at 5 ns/m
(refractive index ~1.5; core/topology.py's NS_PER_M), copper at 4.5 ns/m.

All of it is arrays over the cables of the design's unit graph (core/flatten.py), built by the
topology already: no object per cable, and summaries are bincounts and quantiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.site.pooled import Pool, wire
from core.site.media import COPPER_MEDIA, FIBRE_MEDIA, MEDIA, choose_bundle_media, reach_of
from core.site_spec import SiteSpec
from core.site.templates import U_M, Template, unit_height_u
from core.site.layout import Layout
from core.topology import NS_PER_M


@dataclass(frozen=True)
class Cables:
    """Per cable (one per link of the unit graph), in the graph's edge order."""

    rack_a: np.ndarray
    rack_b: np.ndarray
    bundle: np.ndarray
    length_m: np.ndarray
    medium: np.ndarray          # MEDIA index
    over_reach: np.ndarray      # longer than any medium of its family reaches
    ns: np.ndarray              # propagation delay
    # the units each cable joins as wired on the floor: the unit graph's, but a pooled leaf
    # tier's dealt by floor order (None: the graph's)
    unit_a: np.ndarray | None = None
    unit_b: np.ndarray | None = None

    @property
    def count(self) -> int:
        return len(self.length_m)


def unit_racks(flat, graph, t: Template) -> tuple[np.ndarray, np.ndarray]:
    """(rack, height of its ports above the floor in m) of every unit of the unit graph."""
    n = graph.units
    rack = np.zeros(n, dtype=np.int64)
    z = np.zeros(n)
    offsets = graph.offsets
    for g, (racks, bottom_u) in t.units.items():
        start, stop = int(offsets[g]), int(offsets[g + 1])
        rack[start:stop] = racks[:stop - start]
        # ports at mid-height of the device; a rack's first U sits ~0.1 m above the floor
        height = unit_height_u(flat, g)
        z[start:stop] = 0.1 + (bottom_u[:stop - start] + height / 2.0) * U_M
    return rack, z


def cable_lengths(flat, graph, t: Template, layout: Layout, spec: SiteSpec,
                  pools: tuple[Pool, ...] = ()) -> Cables:
    """Every cable of ``graph`` measured; a pooled leaf group's cables to endpoints (``pools``)
    wired to its leaves in floor order first (core/site/pooled.py)."""
    rack, z = unit_racks(flat, graph, t)
    src, dst = graph.src, graph.dst
    if pools:
        src, dst = src.copy(), dst.copy()
        # the automatic placement's order (a moved rack keeps its cables)
        row = layout.auto_row[rack]
        key = row * (int(layout.auto_slot.max(initial=0)) + 1) + layout.auto_slot[rack]
        for pool, row_start in zip(pools, layout.pool_row_start):
            wire(pool, int(flat.multiplicity[pool.group]), int(graph.offsets[pool.group]),
                 row, key, row_start, src, dst)
    ra, rb = rack[src], rack[dst]
    length = _routed_m(ra, rb, z[src], z[dst], layout, spec)
    bundle = graph.edge_bundle
    medium, over = choose_bundle_media(length, bundle, flat.speed_gbit_s,
                                       flat.bundles_of_medium("fiber"))
    ns_per_m = np.array([NS_PER_M.get(m, 5.0) for m in flat.medium_names])[flat.medium_code]
    return Cables(ra, rb, bundle, length, medium, over, length * ns_per_m[bundle], src, dst)


def _routed_m(ra: np.ndarray, rb: np.ndarray, za: np.ndarray, zb: np.ndarray, layout: Layout,
              spec: SiteSpec) -> np.ndarray:
    """The length of cables between racks ``ra`` and ``rb`` from ports at heights ``za``, ``zb``."""
    # in place, in the order of (|dx| + |dy| + (tray - za) + (tray - zb)) (1 + slack) + loop:
    # a 100,000-GPU design has 350,000 cables and each temporary costs as much as the sum
    length = np.take(layout.x_m, ra)
    length -= np.take(layout.x_m, rb)
    np.abs(length, out=length)
    dy = np.take(layout.y_m, ra)
    dy -= np.take(layout.y_m, rb)
    length += np.abs(dy, out=dy)
    length += np.subtract(spec.tray_above_floor_m, za, out=dy)
    length += np.subtract(spec.tray_above_floor_m, zb, out=dy)
    length *= 1.0 + spec.slack_fraction
    length += spec.service_loop_m
    same = ra == rb
    if same.any():
        length[same] = np.abs(za[same] - zb[same]) + spec.in_rack_extra_m
    return length


def edge_lengths(flat, graph, t: Template, layout: Layout, spec: SiteSpec,
                 edges: np.ndarray) -> np.ndarray:
    """The lengths of the graph's cables ``edges`` alone, as drawn in the graph."""
    rack, z = unit_racks(flat, graph, t)
    src, dst = graph.src[edges], graph.dst[edges]
    return _routed_m(rack[src], rack[dst], z[src], z[dst], layout, spec)


def length_summary(c: Cables) -> dict[str, float | None]:
    if not c.count:
        return {"p50": None, "p95": None, "max": None}
    p50, p95 = np.quantile(c.length_m, [0.5, 0.95])
    return {"p50": round(float(p50), 2), "p95": round(float(p95), 2),
            "max": round(float(c.length_m.max()), 2)}


def by_medium(c: Cables) -> dict[str, int]:
    counts = np.bincount(c.medium, minlength=len(MEDIA))
    return {name: int(n) for name, n in zip(MEDIA, counts.tolist())}


def bought_by_medium(links: dict[str, int], bought: dict[str, int]) -> dict[str, int]:
    """The cables the inventory buys (``bought``: per drawn family "copper"/"fiber", a splitter
    counting once for the links it serves) shared over the media in proportion to each
    medium's links, by largest remainder, so the media add up to the design's cables."""
    out = dict.fromkeys(links, 0)
    for family, media in (("copper", COPPER_MEDIA), ("fiber", (*FIBRE_MEDIA, "aoc"))):
        total = sum(links[m] for m in media)
        target = int(bought.get(family, 0))
        if not total or not target:
            continue
        shares = [(links[m] * target / total, m) for m in media]
        for share, m in shares:
            out[m] = int(share)
        short = target - sum(out[m] for m in media)
        for _, m in sorted(shares, key=lambda sm: sm[0] - int(sm[0]), reverse=True)[:short]:
            out[m] += 1
    return out


def bundle_lengths(c: Cables, bundles: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, max) placed length of every bundle (0 where it has no cable)."""
    count = np.bincount(c.bundle, minlength=bundles)
    total = np.bincount(c.bundle, weights=c.length_m, minlength=bundles)
    longest = np.zeros(bundles)
    # the unit graph lists cables bundle after bundle (core/flatten.py's unit_graph)
    present = np.flatnonzero(count)
    if len(present):
        starts = np.concatenate([[0], np.cumsum(count[present])[:-1]])
        longest[present] = np.maximum.reduceat(c.length_m, starts)
    return np.divide(total, np.maximum(count, 1)), longest


def reach_exceeded(c: Cables, flat) -> np.ndarray:
    """The reach of each over-reach cable's medium (for messages)."""
    return reach_of(c.medium[c.over_reach], flat.speed_gbit_s[c.bundle[c.over_reach]])
