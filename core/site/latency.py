"""What placed cable lengths change in the latency of a path, tier by tier."""

from __future__ import annotations

import numpy as np

from core.topology import NS_PER_M


def latency_delta_us(cables, flat, tiers: dict[int, str],
                     tier_order: tuple[str, ...]) -> dict[str, float]:
    """Per scale-out tier (bottom-up): the latency of a path turning there with placed cable
    lengths minus with drawn ones, in microseconds (core/topology.py: a path crosses, going up
    and coming down, the longest cable into every tier up to its turning one)."""
    if cables is None or not cables.count or not tier_order:
        return {}
    bundles = len(flat.cables)
    count = np.bincount(cables.bundle, minlength=bundles)
    present = np.flatnonzero(count)
    if not len(present):
        return {}
    placed_ns = np.zeros(bundles)
    starts = np.concatenate([[0], np.cumsum(count[present])[:-1]])
    placed_ns[present] = np.maximum.reduceat(cables.ns, starts)  # cables listed bundle by bundle
    drawn_ns = flat.length_m * np.array([NS_PER_M.get(m, 5.0) for m in flat.medium_names])[
        flat.medium_code]
    rank = np.zeros(len(flat.multiplicity), dtype=np.int64)
    name = np.full(len(flat.multiplicity), "", dtype=object)
    for group, tier in tiers.items():
        if tier in tier_order:
            rank[group] = tier_order.index(tier) + 1
            name[group] = tier
    lower = np.minimum(rank[flat.bundle_a], rank[flat.bundle_b])
    scale_out = flat.bundles_of_kind("scale-out")
    out: dict[str, float] = {}
    delta_ns = 0.0
    for r, tier in enumerate(tier_order, start=1):
        into = scale_out & ((name[flat.bundle_a] == tier) | (name[flat.bundle_b] == tier)) & (lower == r - 1)
        delta_ns += float(placed_ns[into].max(initial=0.0)) - float(drawn_ns[into].max(initial=0.0))
        out[tier] = round(2 * delta_ns / 1000.0, 4)
    return out
