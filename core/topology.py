"""Derive the network structure of a flattened design: switch tiers, GPU domains, FabricView.

Tiers: a scale-out switch one scale-out hop from a compute node is a ``leaf``, two hops a
``spine``, three a ``core`` (an explicit ``tier`` on the node wins). Domains: the GPUs that can
reach each other through switches of tier <= t are found with connected components on the
device-level graph (numpy arrays, core/components.py, no Python object per device); the domain size of a level is the
GPU-weighted median component. The per-GPU bandwidth of level t is the smallest aggregate
up-capacity of the tiers below it divided by the GPUs, i.e. b / prod(r_i) for a Clos with
oversubscription r_i (topologies.md §1.2, §5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from core.catalog import COMPUTE_KINDS, ComponentSpec
from core.assumptions.network import NetworkAssumptions
from core.catalog_spec import SwitchSpec
from core.components import connected_component_labels
from core.diagnostics import Diagnostic
from core.fabric import FabricView, NetworkLevel, TierBehaviour
from core.fabric_parts import partition_diagnostic
from core.flatten import FlatDesign, UnitGraph, unit_graph
from core.port_checks import port_diagnostics
from core.tier_behaviour import FabricFacts, fabric_facts

TIER_NAMES = ("leaf", "spine", "core")
# Propagation (topologies.md §6; hardware.md §6): fiber ~5.0 ns/m, copper ~4.5 ns/m (P).
NS_PER_M = {"fiber": 5.0, "copper": 4.5}



@dataclass(frozen=True)
class Topology:
    flat: FlatDesign
    tiers: dict[int, str]                 # switch group -> tier name
    tier_order: tuple[str, ...]           # scale-out tiers present, bottom-up
    up_capacity_gbit_s: tuple[float, ...] # U_0 (compute -> leaf), U_1 (leaf -> spine)...
    oversubscription: dict[str, float]
    fabric: FabricView | None             # None when the design has no GPUs
    layered: bool
    domains_gpus: tuple[int, ...]         # per scale-out tier: domain size
    connected_gpus: int                   # GPUs in the largest scale-out component
    graph: UnitGraph = field(repr=False)
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def gpus(self) -> int:
        return self.flat.gpus


def _switch_latency_ns(spec: ComponentSpec) -> float:
    """A switch's port-to-port latency; 0 for any other kind of node."""
    return float(spec.latency_ns) if isinstance(spec, SwitchSpec) else 0.0


def _reduces_in_network(spec: ComponentSpec) -> bool:
    return isinstance(spec, SwitchSpec) and spec.in_network_reduction


def _is_scale_out_switch(spec: ComponentSpec) -> bool:

    return spec.kind == "switch" and spec.role == "scale-out"


def _hops_from_compute(flat: FlatDesign, bundle_mask: np.ndarray, through: np.ndarray) -> np.ndarray:
    """Hops of each group from the compute groups over the bundles in ``bundle_mask``, passing
    only through the groups in ``through`` (compute groups are at 0, unreached groups -1).

    A breadth-first search on the group graph in numpy: the hops sorted by their start once,
    then each level takes the hops out of the groups the previous level reached, so the cost
    follows the bundles, not groups times bundles.
    """
    n = len(flat.multiplicity)
    a, b = flat.bundle_a[bundle_mask], flat.bundle_b[bundle_mask]
    allowed = flat.is_compute | through
    keep = allowed[a] & allowed[b]
    a, b = a[keep], b[keep]
    # a hop enters a ``through`` group from a compute group or another ``through`` group
    src = np.concatenate([a[through[b]], b[through[a]]])
    dst = np.concatenate([b[through[b]], a[through[a]]])
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    first_hop = np.searchsorted(src, np.arange(n + 1))
    depth = np.full(n, -1, dtype=np.int64)
    frontier = np.flatnonzero(flat.is_compute)
    depth[frontier] = 0
    level = 0
    while len(frontier):
        hops = first_hop[frontier + 1] - first_hop[frontier]
        at = np.repeat(first_hop[frontier] - (np.cumsum(hops) - hops), hops)
        reached = dst[at + np.arange(len(at))]
        frontier = np.unique(reached[depth[reached] < 0])
        level += 1
        depth[frontier] = level
    return depth


def assign_tiers(flat: FlatDesign) -> dict[int, str]:
    """Tier name of every switch group (BFS over scale-out bundles from compute groups)."""
    n = len(flat.multiplicity)
    storage_touch = np.zeros(n, dtype=bool)
    other = flat.bundles_of_kind("storage", "frontend")
    storage_touch[flat.bundle_a[other]] = True
    storage_touch[flat.bundle_b[other]] = True
    depth = _hops_from_compute(flat, flat.bundles_of_kind("scale-out"),
                               flat.per_group(_is_scale_out_switch, dtype=bool))
    role = flat.per_group(lambda spec: spec.role if spec.kind == "switch" else None,
                          dtype=object)
    tiers: dict[int, str] = {}
    for i in np.flatnonzero(flat.kind == "switch").tolist():
        d = int(depth[i])
        if flat.nodes[i].tier:
            tiers[i] = flat.nodes[i].tier
        elif role[i] == "scale-up":
            tiers[i] = "scale-up"
        elif d >= 0:
            tiers[i] = TIER_NAMES[d - 1] if d <= len(TIER_NAMES) else f"tier{d}"
        elif storage_touch[i]:
            tiers[i] = "storage-switch"
        else:
            tiers[i] = "unattached"
    return tiers


def _tier_rank(name: str) -> int | None:
    if name in TIER_NAMES:
        return TIER_NAMES.index(name) + 1
    if name.startswith("tier") and name[4:].isdigit():
        return int(name[4:])
    return None


def _tier_arrays(n: int, tiers: dict[int, str]) -> tuple[np.ndarray, np.ndarray]:
    """(tier name or None, tier rank or -1) of every group."""
    names = np.full(n, None, dtype=object)
    ranks = np.full(n, -1, dtype=np.int64)
    if tiers:
        index = np.fromiter(tiers.keys(), dtype=np.int64, count=len(tiers))
        names[index] = list(tiers.values())
        rank_of = {name: _tier_rank(name) for name in set(tiers.values())}
        ranks[index] = [-1 if rank_of[name] is None else rank_of[name] for name in tiers.values()]
    return names, ranks


def _cable_ns(flat: FlatDesign) -> np.ndarray:
    """Propagation delay of one cable of every bundle."""
    ns_per_m = np.array([NS_PER_M.get(medium, 5.0) for medium in flat.medium_names])
    return flat.length_m * ns_per_m[flat.medium_code]


def _components(graph: UnitGraph, mask_units: np.ndarray, edge_mask: np.ndarray) -> np.ndarray:
    n = graph.units
    src, dst = graph.src[edge_mask], graph.dst[edge_mask]
    keep = mask_units[src] & mask_units[dst]
    return connected_component_labels(n, src[keep], dst[keep])


def _domains_by_tier(graph: UnitGraph, unit_rank: np.ndarray, edge_mask: np.ndarray,
                     max_rank: int):
    """For r = 1 .. max_rank: the connected components of the units of rank 0..r over the
    cables of ``edge_mask`` (every other unit on its own), as labels per unit.

    Tier by tier: the components of the tiers below are contracted to one vertex each and
    only the cables that reach up to tier r are added, so every cable is looked at once."""
    src, dst = graph.src[edge_mask], graph.dst[edge_mask]
    low, high = np.minimum(unit_rank[src], unit_rank[dst]), np.maximum(unit_rank[src], unit_rank[dst])
    # the tier a cable first joins its ends at (cables between compute nodes at tier 1)
    tier = np.where(low >= 0, np.maximum(high, 1), -1)
    labels = np.arange(graph.units)
    for r in range(1, max_rank + 1):
        new = tier == r
        vertices = int(labels.max()) + 1 if len(labels) else 0
        labels = connected_component_labels(vertices, labels[src[new]], labels[dst[new]])[labels]
        yield labels


def _weighted_median_domain(labels: np.ndarray, gpu_weight: np.ndarray) -> tuple[int, int]:
    """(GPU-weighted median component size in GPUs, largest component in GPUs)."""
    sizes = np.bincount(labels, weights=gpu_weight)
    per_unit = sizes[labels][gpu_weight > 0]
    if per_unit.size == 0:
        return 0, 0
    return int(np.median(per_unit)), int(sizes.max())


def analyze_topology(flat: FlatDesign, assumptions: NetworkAssumptions = NetworkAssumptions()) -> Topology:
    diagnostics: list[Diagnostic] = []
    tiers = assign_tiers(flat)
    tier_names, ranks = _tier_arrays(len(flat.multiplicity), tiers)
    max_rank = int(ranks.max(initial=0))
    tier_order = tuple(
        TIER_NAMES[r - 1] if r <= len(TIER_NAMES) else f"tier{r}" for r in range(1, max_rank + 1)
    )
    # Level of every group: 0 for compute, the tier rank for ranked switches, else -1.
    level = np.where(flat.is_compute, 0, ranks)

    scale_out = flat.bundles_of_kind("scale-out")
    la, lb = level[flat.bundle_a], level[flat.bundle_b]
    placed = scale_out & (la >= 0) & (lb >= 0)
    lo, hi = np.minimum(la, lb), np.maximum(la, lb)
    step = placed & (hi - lo == 1)
    layered = not (placed & ~step).any()
    capacity = flat.capacity_gbit_s[step]
    # bincount adds in bundle order, as the per-bundle sums always did
    up_by_tier = np.bincount(lo[step], weights=capacity, minlength=max_rank + 1).tolist()
    down_by_tier = np.bincount(hi[step], weights=capacity, minlength=max_rank + 1).tolist()
    up = up_by_tier[:max(1, max_rank)]
    oversubscription = {
        tier_order[r - 1]: round(down_by_tier[r] / up_by_tier[r], 4)
        for r in range(1, max_rank + 1)
        if up_by_tier[r] > 0
    }

    graph = unit_graph(flat)
    gpus = flat.gpus
    gpu_weight = graph.per_unit(flat.gpus_per_group_unit.astype(float))
    unit_rank = graph.per_unit(level)
    scale_out_edges = scale_out[graph.edge_bundle]
    domains: list[int] = []
    connected = 0
    for labels in _domains_by_tier(graph, unit_rank, scale_out_edges, max_rank):
        median, largest = _weighted_median_domain(labels, gpu_weight)
        domains.append(median)
        connected = largest

    drawn = _drawn_scale_up(flat, graph, gpu_weight, tier_names) if gpus else ()
    facts = (fabric_facts(flat, ranks, step, lo, hi, max_rank, _main_server(flat), assumptions)
             if gpus else None)
    if facts is not None:
        diagnostics.extend(facts.diagnostics)
    fabric = (_fabric_view(flat, tier_names, ranks, tier_order, up, domains, drawn, assumptions,
                           facts)
              if gpus else None)

    compute = flat.compute_groups
    if fabric is not None and fabric.scale_up_domain_gpus < gpus:
        if max_rank == 0:
            part = fabric.connected_gpus
            diagnostics.append(Diagnostic(
                "NO_SCALE_OUT",
                f"compute nodes are not connected by a scale-out fabric: the {gpus:,} GPUs are in "
                f"{-(-gpus // part):,} parts of up to {part:,} (one scale-up domain each); cable "
                f"the nodes' NICs to a common leaf tier to join them",
                tuple(flat.paths[i] for i in compute)))
        else:
            degree = np.bincount(
                np.concatenate([graph.src[scale_out_edges], graph.dst[scale_out_edges]]),
                minlength=graph.units,
            )
            alone = np.zeros(len(flat.multiplicity), dtype=bool)
            alone[graph.unit_group[degree == 0]] = True
            lonely = [flat.paths[i] for i in np.flatnonzero(alone & flat.is_compute)]
            if lonely:
                diagnostics.append(Diagnostic(
                    "GPU_WITHOUT_SCALE_OUT",
                    f"GPUs without a scale-out path in {', '.join(lonely)}: cable their NICs to "
                    f"the fabric's leaf switches to join them", tuple(lonely)))
            elif connected < gpus:
                diagnostics.append(partition_diagnostic(flat, graph, labels, gpu_weight, unit_rank,
                                                        TIER_NAMES))
    if not layered:
        diagnostics.append(Diagnostic(
            "NON_LAYERED_FABRIC",
            "some scale-out links skip a tier or join switches of the same tier; bisection uses a "
            "spectral cut of the device graph", ()))
    bare = [flat.paths[i] for i in np.flatnonzero(flat.kind == "accelerator")]
    if bare:
        diagnostics.append(Diagnostic(
            "ACCELERATOR_OUTSIDE_SERVER",
            f"accelerators drawn on their own ({', '.join(bare)}) are counted but not modelled: "
            f"bandwidth and performance need them inside a server or super-node (e.g. DGX-H100)",
            tuple(bare)))
    diagnostics.extend(port_diagnostics(flat))
    return Topology(flat, tiers, tier_order, tuple(up[:max_rank]), oversubscription, fabric,
                    layered, tuple(domains), connected or gpus, graph, tuple(diagnostics))


@dataclass(frozen=True)
class DrawnScaleUp:
    """One tier of a scale-up fabric drawn across compute nodes (scale-up links through
    scale-up switches): tier 1 joins nodes through the switches they are cabled to, tier 2
    through the switches above those (an NVL576-style second NVLink tier), and so on."""

    domain_gpus: int           # GPU-weighted median connected component up to this tier
    per_gpu_gbit_s: float      # narrowest scale-up capacity below this tier, per GPU
    latency_ns: float          # switches and cables of a path that turns at this tier
    in_network_reduction: bool


def _drawn_scale_up(flat: FlatDesign, graph: UnitGraph, gpu_weight: np.ndarray,
                    tier_names: np.ndarray) -> tuple[DrawnScaleUp, ...]:
    """The scale-up tiers the drawing builds out of several compute nodes (empty if none).

    Connected components of compute units and scale-up switch units over the scale-up cables
    (numpy/scipy, as for the scale-out domains). The per-GPU bandwidth of a tier is the
    narrowest aggregate capacity between the compute nodes and it, divided by the GPUs those
    cables serve, so an under-cabled tray or a tapered upper tier shows as a slower domain.
    """
    compute = flat.is_compute
    switches = tier_names == "scale-up"
    joined = compute | switches
    bundles = (flat.bundles_of_kind("scale-up") & joined[flat.bundle_a]
               & joined[flat.bundle_b])
    if not bundles.any():
        return ()
    depth = _hops_from_compute(flat, bundles, switches)
    # capacity between depth d and d + 1, and the compute groups the first hop serves
    da, db = depth[flat.bundle_a], depth[flat.bundle_b]
    counted = (bundles & (da >= 0) & (db >= 0) & (np.abs(da - db) <= 1)
               & ~((da == db) & (da > 0)))
    # a node-to-node cable (no switch) is a scale-up link at both of its ends
    share = np.where(da == db, 2.0, 1.0)[counted]
    low = np.minimum(da, db)[counted]
    capacity = np.bincount(low, weights=share * flat.capacity_gbit_s[counted]).tolist()
    present = set(low.tolist())
    served = np.zeros(len(flat.multiplicity), dtype=bool)
    served[flat.bundle_a[counted]] = True
    served[flat.bundle_b[counted]] = True
    served &= compute
    served_gpus = int(np.dot(flat.multiplicity[served], flat.gpus_per_group_unit[served]))
    if not served_gpus:
        return ()
    edge_mask = bundles[graph.edge_bundle]
    cable_ns = _cable_ns(flat)
    latency_ns = flat.per_group(_switch_latency_ns)
    reduction = flat.per_group(_reduces_in_network, dtype=bool)
    out: list[DrawnScaleUp] = []
    below_ns = cables_ns = 0.0
    narrowest = math.inf
    for tier in range(1, max(1, int(depth.max())) + 1):
        if tier - 1 not in present:
            break
        narrowest = min(narrowest, capacity[tier - 1])
        members = graph.per_unit((depth >= 0) & (depth <= tier))
        median, _ = _weighted_median_domain(_components(graph, members, edge_mask), gpu_weight)
        at_tier = depth == tier
        switch_ns = (sum(latency_ns[at_tier].tolist()) / int(at_tier.sum())
                     if at_tier.any() else 0.0)
        near = (depth == tier - 1) | (depth == tier)
        spans = bundles & near[flat.bundle_a] & near[flat.bundle_b]
        cables_ns += float(cable_ns[spans].max(initial=0.0))
        out.append(DrawnScaleUp(
            median, narrowest / served_gpus, 2 * below_ns + switch_ns + 2 * cables_ns,
            bool(reduction[at_tier].any())))
        below_ns += switch_ns
    return tuple(out)


def _main_server(flat: FlatDesign) -> ComponentSpec:
    """The compute node model holding the most GPUs: the one the fabric view describes."""
    compute = np.flatnonzero(flat.is_compute)
    gpus_of_group = flat.multiplicity * flat.gpus_per_group_unit
    return flat.specs[flat.spec_row[int(compute[np.argmax(gpus_of_group[compute])])]]


def _fabric_view(flat: FlatDesign, tier_names: np.ndarray, ranks: np.ndarray,
                 tier_order: tuple[str, ...], up: list[float], domains: list[int],
                 drawn: tuple[DrawnScaleUp, ...], a: NetworkAssumptions,
                 facts: FabricFacts | None = None) -> FabricView:
    compute = np.flatnonzero(flat.is_compute)
    server = _main_server(flat)
    catalog = flat.catalog
    accelerator = catalog.get(server.accelerator)
    gpus = flat.gpus
    line = float(accelerator.scale_up_gbyte_s_per_dir)
    effective = float(accelerator.scale_up_effective_gbyte_s or line * a.scale_up_efficiency)
    scale_up_domain = int(flat.per_group(
        lambda spec: int(spec.scale_up_domain) if spec.kind in COMPUTE_KINDS else 0,
        dtype=np.int64)[compute].min())
    if scale_up_domain <= 1:
        line = effective = 0.0
    # NVLS-style in-switch reduction exists when the node's scale-up switches offer it.
    reduction = any(
        bool(catalog.get(item.id).in_network_reduction)
        for item in server.scale_up_switches
    )
    nvls = a.in_network_reduction in ("nvls", "both", "auto")
    sharp = a.in_network_reduction in ("sharp", "both", "auto")
    levels = [NetworkLevel("scale-up", scale_up_domain, line, effective, a.scale_up_latency_us, 0,
                           reduction, in_network_gbyte_s=line * a.nvls_efficiency if reduction and nvls else 0.0)]
    # Drawn tiers: the GPU's own scale-up rate, or less when the drawing gives each GPU fewer
    # scale-up cables than it has links; a tier that joins no more GPUs adds no level.
    accel_line = float(accelerator.scale_up_gbyte_s_per_dir)
    ratio = float(accelerator.scale_up_effective_gbyte_s or
                  accel_line * a.scale_up_efficiency) / accel_line
    for n, tier in enumerate(drawn, start=1):
        if tier.domain_gpus <= levels[-1].domain_gpus:
            continue
        drawn_line = min(accel_line, tier.per_gpu_gbit_s / 8.0)
        name = "scale-up (drawn)" if len(drawn) == 1 else f"scale-up (drawn, tier {n})"
        level = NetworkLevel(name, tier.domain_gpus, drawn_line, drawn_line * ratio,
                             a.scale_up_latency_us + tier.latency_ns / 1000.0, 2 * n - 1,
                             tier.in_network_reduction,
                             in_network_gbyte_s=(drawn_line * a.nvls_efficiency
                                                 if tier.in_network_reduction and nvls else 0.0))
        levels = [level] if levels[-1].domain_gpus <= 1 else levels + [level]
    scale_up_levels = len(levels)
    nic_ratio = a.nic_efficiency
    if server.nic and server.nic in catalog:
        nic = catalog.get(server.nic)
        measured = nic.effective_gbyte_s
        if measured:
            nic_ratio = float(measured) / (float(nic.port_gbit_s) / 8.0)
    latency_ns = flat.per_group(_switch_latency_ns)
    reduction_of = flat.per_group(_reduces_in_network, dtype=bool)
    scale_out = flat.bundles_of_kind("scale-out")
    # rank of the lower end of every bundle, unranked ends (compute, storage...) counting as 0
    ranked = np.maximum(ranks, 0)
    lower = np.minimum(ranked[flat.bundle_a], ranked[flat.bundle_b])
    cable_ns_of = _cable_ns(flat)
    cable_ns = 0.0
    below_ns = 0.0  # switch latency of the tiers under this one, crossed twice on the way
    for r, name in enumerate(tier_order, start=1):
        in_tier = tier_names == name
        latencies = latency_ns[in_tier].tolist()
        switch_ns_tier = sum(latencies) / len(latencies) if latencies else 0.0
        touching = scale_out & (in_tier[flat.bundle_a] | in_tier[flat.bundle_b]) & (lower == r - 1)
        cable_ns += float(cable_ns_of[touching].max(initial=0.0))
        hops = 2 * r - 1
        latency_us = 2 * a.nic_latency_us + (2 * below_ns + switch_ns_tier + 2 * cable_ns) / 1000.0
        below_ns += switch_ns_tier
        per_gpu_gbit = min(up[:r]) / gpus if gpus else 0.0
        domain = max(domains[r - 1], levels[-1].domain_gpus)
        reduces = bool(reduction_of[in_tier].any())
        behaviour = None
        if facts is not None:
            below = r - 2  # the tier whose uplinks this level's traffic is spread over
            behaviour = TierBehaviour(
                facts.mode, facts.paths[below] if below >= 0 else 1,
                facts.sources[below] if below >= 0 else 1,
                facts.flows_per_source[below] if below >= 0 else 1.0,
                (facts.uplink_gbit_s[below] / 8.0 / facts.nic_gbyte_s
                 if below >= 0 and facts.nic_gbyte_s > 0 else 1.0),
                levels[-1].domain_gpus, domain, int(server.accelerators),
                facts.flow_control, facts.selective_retransmit, facts.leaf_buffer_mb_per_port,
                facts.nic_gbyte_s, 2.0 * latency_us, a.qps_per_connection, a.channels_per_nic,
                a.alltoall_peers_in_flight, a.flowlet_splits, a.pfc_hol_efficiency,
                a.retransmit_efficiency)
        levels.append(NetworkLevel(name, domain, per_gpu_gbit / 8.0, per_gpu_gbit / 8.0 * nic_ratio,
                                   latency_us, hops, reduces, behaviour,
                                   per_gpu_gbit / 8.0 * nic_ratio * a.sharp_efficiency
                                   if reduces and sharp else 0.0))
    rails = _rails_without_spine(flat, tier_names) if tier_order == ("leaf",) else 0
    if rails > 1:
        # Rail-only (Wang et al. 2024): no switch joins the rails, so a pair on different rails
        # first crosses the scale-up domain to the GPU on the destination's rail.
        leaf = levels[-1]
        levels[-1] = replace(leaf, latency_us=leaf.latency_us + levels[scale_up_levels - 1].latency_us)
    if levels[-1].domain_gpus < gpus:
        # GPUs the fabric cannot reach: an outer level with no bandwidth, so jobs that need them
        # show as impossible instead of silently using a faster level.
        levels.append(NetworkLevel("unconnected", gpus, 0.0, 0.0, levels[-1].latency_us, 0))
    gpus_per_server = int(server.accelerators)
    return FabricView(gpus, accelerator, gpus_per_server, tuple(levels), scale_up_levels,
                      rails if rails > 1 else 0)


def _rails_without_spine(flat: FlatDesign, tier_names: np.ndarray) -> int:
    """Leaf switch units one compute unit is cabled to (the most over the compute groups), in
    a fabric whose only scale-out tier is the leaves: more than one means rails that only the
    scale-up domain joins. With the even wiring of bundles a unit reaches min(its cables,
    the leaf units of the block instance) distinct leaves per bundle."""
    leaf = tier_names == "leaf"
    compute = flat.is_compute
    a, b = flat.bundle_a, flat.bundle_b
    up = flat.bundles_of_kind("scale-out") & ((compute[a] & leaf[b]) | (compute[b] & leaf[a]))
    if not up.any():
        return 0
    low = np.where(compute[a], a, b)[up]
    high = np.where(compute[a], b, a)[up]
    per_unit = flat.cables[up] // flat.multiplicity[low]
    reach = np.minimum(per_unit, np.maximum(1, flat.multiplicity[high] // flat.owner_instances[up]))
    return int(np.bincount(low, weights=reach).max())


def single_points_of_failure(flat: FlatDesign, tiers: dict[int, str]) -> tuple[int, tuple[str, ...]]:
    """Switch units whose loss cuts some compute, switch or storage unit off the fabric.

    A unit is single-homed when all its links towards switches of a higher tier land on one
    switch unit; with the even wiring of bundles a unit reaches min(cables per unit, switch
    units per block instance) distinct switches. Every unit of a switch group that
    single-homed units hang from is then a single point of failure. Servers themselves are not
    counted (a server's loss interrupts the job anyway, see the reliability analysis).
    """
    n = len(flat.multiplicity)
    tier_names, ranks = _tier_arrays(n, tiers)
    in_tiers = tier_names != None  # noqa: E711 - element-wise on an object array
    rank = np.where(flat.is_compute | (flat.kind == "storage"), 0, -1)
    rank = np.where(in_tiers, np.where(ranks >= 0, ranks, 1), rank)
    # One row per (bundle, direction) that leads up a tier, in bundle order: low end, high end,
    # and how many distinct switch units of the high end one low unit reaches.
    usable = ~flat.bundles_of_kind("scale-up")
    low = np.stack([flat.bundle_a, flat.bundle_b], axis=1).ravel()
    high = np.stack([flat.bundle_b, flat.bundle_a], axis=1).ravel()
    up = (np.repeat(usable, 2) & (rank[low] >= 0) & in_tiers[high] & (rank[high] > rank[low]))
    rows = np.flatnonzero(up)
    low, high = low[rows], high[rows]
    bundle = rows // 2
    per_unit = flat.cables[bundle] / flat.multiplicity[low]
    reachable = np.maximum(1, flat.multiplicity[high] // flat.owner_instances[bundle])
    reach = np.minimum(per_unit, reachable).astype(np.int64)
    # Several bundles between the same two groups: the last one counts (as a mapping would).
    pair = low * n + high
    order = np.argsort(pair, kind="stable")
    last = np.ones(len(order), dtype=bool)
    last[:-1] = pair[order][1:] != pair[order][:-1]
    kept = order[last]
    total = np.bincount(low[kept], weights=reach[kept], minlength=n)
    single = kept[(total[low[kept]] == 1) & (reach[kept] == 1)]
    # Groups in the order their first upward bundle lists them, their switch groups likewise.
    first_row = np.full(n, len(rows))
    np.minimum.at(first_row, low, np.arange(len(rows)))
    single = single[np.argsort(first_row[low[single]], kind="stable")]
    highs, first = np.unique(high[single], return_index=True)
    highs = highs[np.argsort(first)]
    count = int(flat.multiplicity[highs].sum())
    return count, tuple(flat.paths[i] for i in highs.tolist())
