"""Derive the network structure of a flattened design: switch tiers, GPU domains, FabricView.

Tiers: a scale-out switch one scale-out hop from a compute node is a ``leaf``, two hops a
``spine``, three a ``core`` (an explicit ``tier`` on the node wins). Domains: the GPUs that can
reach each other through switches of tier <= t are found with connected components on the
device-level graph (numpy/scipy, no Python object per device); the domain size of a level is the
GPU-weighted median component. The per-GPU bandwidth of level t is the smallest aggregate
up-capacity of the tiers below it divided by the GPUs, i.e. b / prod(r_i) for a Clos with
oversubscription r_i (topologies.md §1.2, §5).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from core.catalog import COMPUTE_KINDS, ComponentSpec
from core.diagnostics import Diagnostic
from core.fabric import FabricView, NetworkLevel
from core.flatten import FlatDesign, UnitGraph, unit_graph

TIER_NAMES = ("leaf", "spine", "core")
# Propagation (topologies.md §6; hardware.md §6): fiber ~5.0 ns/m, copper ~4.5 ns/m (P).
NS_PER_M = {"fiber": 5.0, "copper": 4.5}


# Bounds of the assumptions below (core/settings.py reads them from the field metadata).
# An effective rate is more than nothing and at most the line rate; latencies and sizes are
# not negative.
_EFFICIENCY = {"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}
_LATENCY_US = {"min": 0.0, "unit": "µs"}


@dataclass(frozen=True)
class NetworkAssumptions:
    # NCCL-effective / line rate on the scale-up fabric when the catalog has no measured
    # figure: 370 / 450 GB/s on H100 NVLink4 (nccl-tests #212, topologies.md §7).
    scale_up_efficiency: float = field(default=0.82, metadata=_EFFICIENCY)
    # Per-NIC NCCL-effective / line rate when the NIC entry has no measured figure:
    # 46-48 of 50 GB/s for NDR 400G (nccl-tests #290, topologies.md §7).
    nic_efficiency: float = field(default=0.94, metadata=_EFFICIENCY)
    # One-way NIC TX+RX latency per side (SimAI NIC 500 ns; kentino 0.3-0.8 us; topologies.md §6).
    nic_latency_us: float = field(default=0.5, metadata=_LATENCY_US)
    # GPU-to-GPU one-way latency inside the scale-up domain (E: chosen so an 8-GPU tree
    # all-reduce of 8 B lands near the 12.5 us measured on 8 Hopper GPUs, topologies.md §7).
    scale_up_latency_us: float = field(default=1.0, metadata=_LATENCY_US)
    # NCCL per-step protocol latency, LL protocol (topologies.md §6).
    protocol_step_us: float = field(default=1.0, metadata=_LATENCY_US)
    # Message size for the reported large-message bus bandwidths (nccl-tests sweeps to 8-16 GB).
    busbw_message_bytes: float = field(default=8e9, metadata={"min": 0.0, "min_exclusive": True, "unit": "bytes"})
    # Hand-drawn, non-layered graphs up to this many devices get a spectral min-bisection.
    spectral_bisection_max_units: int = field(default=50_000, metadata={"min": 0, "unit": "devices"})


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


def _is_scale_out_switch(spec: ComponentSpec) -> bool:
    return spec.kind == "switch" and spec["role"] == "scale-out"


def _hops_from_compute(flat: FlatDesign, bundle_ids: list[int], through: set[int]) -> dict[int, int]:
    """Hops of each group from the compute groups over ``bundle_ids``, passing only through the
    groups in ``through`` (BFS on groups; compute groups are at 0)."""
    neighbours: dict[int, set[int]] = {}
    for k in bundle_ids:
        b = flat.bundles[k]
        neighbours.setdefault(b.a, set()).add(b.b)
        neighbours.setdefault(b.b, set()).add(b.a)
    depth = dict.fromkeys(flat.compute_groups, 0)
    queue: deque[int] = deque(depth)
    while queue:
        i = queue.popleft()
        for j in neighbours.get(i, ()):
            if j in through and j not in depth:
                depth[j] = depth[i] + 1
                queue.append(j)
    return depth


def assign_tiers(flat: FlatDesign) -> dict[int, str]:
    """Tier name of every switch group (BFS over scale-out bundles from compute groups)."""
    tiers: dict[int, str] = {}
    storage_touch = {end for b in flat.bundles if b.kind in ("storage", "frontend")
                     for end in (b.a, b.b)}
    depth = _hops_from_compute(
        flat, [k for k, b in enumerate(flat.bundles) if b.kind == "scale-out"],
        {i for i, g in enumerate(flat.groups) if _is_scale_out_switch(g.spec)})
    for i, group in enumerate(flat.groups):
        spec = group.spec
        if spec.kind != "switch":
            continue
        if group.node.tier:
            tiers[i] = group.node.tier
        elif spec["role"] == "scale-up":
            tiers[i] = "scale-up"
        elif i in depth:
            d = depth[i]
            tiers[i] = TIER_NAMES[d - 1] if d <= len(TIER_NAMES) else f"tier{d}"
        elif i in storage_touch:
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


def _components(graph: UnitGraph, mask_units: np.ndarray, edge_mask: np.ndarray) -> np.ndarray:
    n = graph.units
    src, dst = graph.src[edge_mask], graph.dst[edge_mask]
    keep = mask_units[src] & mask_units[dst]
    src, dst = src[keep], dst[keep]
    matrix = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, labels = connected_components(matrix, directed=False)
    return labels


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
    rank_of = {i: _tier_rank(name) for i, name in tiers.items()}
    max_rank = max((r for r in rank_of.values() if r), default=0)
    tier_order = tuple(
        TIER_NAMES[r - 1] if r <= len(TIER_NAMES) else f"tier{r}" for r in range(1, max_rank + 1)
    )
    compute = set(flat.compute_groups)

    def level_of(i: int) -> int | None:
        if i in compute:
            return 0
        return rank_of.get(i)

    up = [0.0] * max(1, max_rank)
    down_by_tier: dict[int, float] = {}
    up_by_tier: dict[int, float] = {}
    layered = True
    for bundle in flat.bundles:
        if bundle.kind != "scale-out":
            continue
        la, lb = level_of(bundle.a), level_of(bundle.b)
        if la is None or lb is None:
            continue
        lo, hi = min(la, lb), max(la, lb)
        if hi - lo != 1:
            layered = False
            continue
        if lo < len(up):
            up[lo] += bundle.capacity_gbit_s
        down_by_tier[hi] = down_by_tier.get(hi, 0.0) + bundle.capacity_gbit_s
        up_by_tier[lo] = up_by_tier.get(lo, 0.0) + bundle.capacity_gbit_s
    oversubscription = {
        tier_order[r - 1]: round(down_by_tier.get(r, 0.0) / up_by_tier[r], 4)
        for r in range(1, max_rank + 1)
        if up_by_tier.get(r, 0.0) > 0
    }

    graph = unit_graph(flat)
    gpus = flat.gpus
    gpu_weight = np.zeros(graph.units)
    for i in flat.compute_groups:
        gpu_weight[graph.offsets[i]:graph.offsets[i + 1]] = flat.gpus_per_unit(i)
    unit_rank = np.full(graph.units, -1, dtype=np.int64)
    for i in range(len(flat.groups)):
        level = level_of(i)
        if level is not None:
            unit_rank[graph.offsets[i]:graph.offsets[i + 1]] = level
    scale_out_edges = np.isin(
        graph.edge_bundle, [k for k, b in enumerate(flat.bundles) if b.kind == "scale-out"]
    )
    domains: list[int] = []
    connected = 0
    for r in range(1, max_rank + 1):
        mask = (unit_rank >= 0) & (unit_rank <= r)
        labels = _components(graph, mask, scale_out_edges)
        median, largest = _weighted_median_domain(labels, gpu_weight)
        domains.append(median)
        connected = largest

    drawn = _drawn_scale_up(flat, graph, gpu_weight, tiers) if gpus else ()
    fabric = (_fabric_view(flat, tiers, rank_of, tier_order, up, domains, drawn, assumptions)
              if gpus else None)

    if fabric is not None and fabric.scale_up_domain_gpus < gpus:
        if max_rank == 0:
            diagnostics.append(Diagnostic(
                "NO_SCALE_OUT", "compute nodes are not connected by a scale-out fabric",
                tuple(flat.groups[i].path for i in compute)))
        else:
            degree = np.bincount(
                np.concatenate([graph.src[scale_out_edges], graph.dst[scale_out_edges]]),
                minlength=graph.units,
            )
            lonely = [
                flat.groups[i].path for i in compute
                if (degree[graph.offsets[i]:graph.offsets[i + 1]] == 0).any()
            ]
            if lonely:
                diagnostics.append(Diagnostic(
                    "GPU_WITHOUT_SCALE_OUT",
                    f"GPUs without a scale-out path in {', '.join(lonely)}", tuple(lonely)))
            elif connected < gpus:
                diagnostics.append(Diagnostic(
                    "FABRIC_PARTITIONED",
                    f"the scale-out fabric is split: the largest connected part holds {connected:,} "
                    f"of {gpus:,} GPUs", ()))
    if not layered:
        diagnostics.append(Diagnostic(
            "NON_LAYERED_FABRIC",
            "some scale-out links skip a tier or join switches of the same tier; bisection uses a "
            "spectral cut of the device graph", ()))
    bare = [g.path for g in flat.groups if g.spec.kind == "accelerator"]
    if bare:
        diagnostics.append(Diagnostic(
            "ACCELERATOR_OUTSIDE_SERVER",
            f"accelerators drawn on their own ({', '.join(bare)}) are counted but not modelled: "
            f"bandwidth and performance need them inside a server or super-node (e.g. DGX-H100)",
            tuple(bare)))
    diagnostics.extend(_port_diagnostics(flat, tiers))
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
                    tiers: dict[int, str]) -> tuple[DrawnScaleUp, ...]:
    """The scale-up tiers the drawing builds out of several compute nodes (empty if none).

    Connected components of compute units and scale-up switch units over the scale-up cables
    (numpy/scipy, as for the scale-out domains). The per-GPU bandwidth of a tier is the
    narrowest aggregate capacity between the compute nodes and it, divided by the GPUs those
    cables serve, so an under-cabled tray or a tapered upper tier shows as a slower domain.
    """
    compute = set(flat.compute_groups)
    switches = {i for i, t in tiers.items() if t == "scale-up"}
    bundle_ids = [k for k, b in enumerate(flat.bundles)
                  if b.kind == "scale-up" and {b.a, b.b} <= compute | switches]
    depth = _hops_from_compute(flat, bundle_ids, switches)
    # capacity between depth d and d + 1, and the compute groups the first hop serves
    capacity: dict[int, float] = {}
    served: set[int] = set()
    for k in bundle_ids:
        b = flat.bundles[k]
        da, db = depth.get(b.a), depth.get(b.b)
        if da is None or db is None or abs(da - db) > 1 or (da == db and da > 0):
            continue
        # a node-to-node cable (no switch) is a scale-up link at both of its ends
        share = 2.0 if da == db == 0 else 1.0
        capacity[min(da, db)] = capacity.get(min(da, db), 0.0) + share * b.capacity_gbit_s
        served.update(end for end in (b.a, b.b) if end in compute)
    served_gpus = sum(flat.groups[i].multiplicity * flat.gpus_per_unit(i) for i in served)
    if not served_gpus:
        return ()
    edge_mask = np.isin(graph.edge_bundle, bundle_ids)
    out: list[DrawnScaleUp] = []
    below_ns = cables_ns = 0.0
    narrowest = math.inf
    for tier in range(1, max(1, *depth.values()) + 1):
        if tier - 1 not in capacity:
            break
        narrowest = min(narrowest, capacity[tier - 1])
        groups = [i for i, d in depth.items() if d <= tier]
        members = np.zeros(graph.units, dtype=bool)
        for i in groups:
            members[graph.offsets[i]:graph.offsets[i + 1]] = True
        median, _ = _weighted_median_domain(_components(graph, members, edge_mask), gpu_weight)
        at_tier = [i for i, d in depth.items() if d == tier]
        switch_ns = (sum(float(flat.groups[i].spec["latency_ns"]) for i in at_tier) / len(at_tier)
                     if at_tier else 0.0)
        cables_ns += max(
            (flat.bundles[k].length_m * NS_PER_M.get(flat.bundles[k].medium, 5.0)
             for k in bundle_ids
             if {depth.get(flat.bundles[k].a), depth.get(flat.bundles[k].b)} <= {tier - 1, tier}),
            default=0.0)
        out.append(DrawnScaleUp(
            median, narrowest / served_gpus, 2 * below_ns + switch_ns + 2 * cables_ns,
            any(bool(flat.groups[i].spec.get("in_network_reduction")) for i in at_tier)))
        below_ns += switch_ns
    return tuple(out)


def _fabric_view(flat, tiers, rank_of, tier_order, up, domains, drawn: tuple[DrawnScaleUp, ...],
                 a: NetworkAssumptions) -> FabricView:
    compute = flat.compute_groups
    main = max(compute, key=lambda i: flat.groups[i].multiplicity * flat.gpus_per_unit(i))
    server = flat.groups[main].spec
    catalog = flat.catalog
    accelerator = catalog.get(server["accelerator"])
    gpus = flat.gpus
    line = float(accelerator["scale_up_gbyte_s_per_dir"])
    effective = float(accelerator.get("scale_up_effective_gbyte_s") or line * a.scale_up_efficiency)
    scale_up_domain = min(int(flat.groups[i].spec["scale_up_domain"]) for i in compute)
    if scale_up_domain <= 1:
        line = effective = 0.0
    # NVLS-style in-switch reduction exists when the node's scale-up switches offer it.
    reduction = any(
        bool(catalog.get(item["id"]).get("in_network_reduction"))
        for item in server.get("scale_up_switches") or []
    )
    levels = [NetworkLevel("scale-up", scale_up_domain, line, effective, a.scale_up_latency_us, 0,
                           reduction)]
    # Drawn tiers: the GPU's own scale-up rate, or less when the drawing gives each GPU fewer
    # scale-up cables than it has links; a tier that joins no more GPUs adds no level.
    accel_line = float(accelerator["scale_up_gbyte_s_per_dir"])
    ratio = float(accelerator.get("scale_up_effective_gbyte_s") or
                  accel_line * a.scale_up_efficiency) / accel_line
    for n, tier in enumerate(drawn, start=1):
        if tier.domain_gpus <= levels[-1].domain_gpus:
            continue
        drawn_line = min(accel_line, tier.per_gpu_gbit_s / 8.0)
        name = "scale-up (drawn)" if len(drawn) == 1 else f"scale-up (drawn, tier {n})"
        level = NetworkLevel(name, tier.domain_gpus, drawn_line, drawn_line * ratio,
                             a.scale_up_latency_us + tier.latency_ns / 1000.0, 2 * n - 1,
                             tier.in_network_reduction)
        levels = [level] if levels[-1].domain_gpus <= 1 else levels + [level]
    scale_up_levels = len(levels)
    nic_ratio = a.nic_efficiency
    if server.get("nic") and server.get("nic") in catalog:
        nic = catalog.get(server["nic"])
        measured = nic.get("effective_gbyte_s")
        if measured:
            nic_ratio = float(measured) / (float(nic["port_gbit_s"]) / 8.0)
    cable_ns = 0.0
    below_ns = 0.0  # switch latency of the tiers under this one, crossed twice on the way
    for r, name in enumerate(tier_order, start=1):
        tier_groups = [i for i, t in tiers.items() if t == name]
        latencies = [float(flat.groups[i].spec["latency_ns"]) for i in tier_groups]
        switch_ns_tier = sum(latencies) / len(latencies) if latencies else 0.0
        lengths = [
            (b.length_m * NS_PER_M.get(b.medium, 5.0))
            for b in flat.bundles
            if b.kind == "scale-out" and (b.a in tier_groups or b.b in tier_groups)
            and min(rank_of.get(b.a) or 0, rank_of.get(b.b) or 0) == r - 1
        ]
        cable_ns += max(lengths, default=0.0)
        hops = 2 * r - 1
        latency_us = 2 * a.nic_latency_us + (2 * below_ns + switch_ns_tier + 2 * cable_ns) / 1000.0
        below_ns += switch_ns_tier
        per_gpu_gbit = min(up[:r]) / gpus if gpus else 0.0
        domain = max(domains[r - 1], levels[-1].domain_gpus)
        reduction = any(bool(flat.groups[i].spec.get("in_network_reduction")) for i in tier_groups)
        levels.append(NetworkLevel(name, domain, per_gpu_gbit / 8.0, per_gpu_gbit / 8.0 * nic_ratio,
                                   latency_us, hops, reduction))
    if levels[-1].domain_gpus < gpus:
        # GPUs the fabric cannot reach: an outer level with no bandwidth, so jobs that need them
        # show as impossible instead of silently using a faster level.
        levels.append(NetworkLevel("unconnected", gpus, 0.0, 0.0, levels[-1].latency_us, 0))
    gpus_per_server = int(server["accelerators"])
    return FabricView(gpus, accelerator, gpus_per_server, tuple(levels), scale_up_levels)


def _node_ports(spec: ComponentSpec, catalog, link_class: str) -> tuple[int, float]:
    """(ports, Gb/s per port) a node offers to links of ``link_class``.

    Compute nodes give their NICs to the compute fabric ("scale-out") and their DPUs to the
    storage/front-end networks; without DPUs those networks use host ports the catalog does not
    list (DGX H100: two dual-port ConnectX-7 for storage and in-band), so they are not checked.
    """
    if spec.kind in COMPUTE_KINDS:
        if link_class == "scale-up":
            return int(spec.get("scale_up_ports") or 0), float(spec.get("scale_up_port_gbit_s") or 0)
        field_id, field_n = ("nic", "nics") if link_class == "scale-out" else ("dpu", "dpus")
        device_id = spec.get(field_id)
        if device_id not in catalog or not spec.get(field_n):
            return 0, 0.0
        device = catalog.get(device_id)
        return int(spec[field_n]) * int(device["ports"]), float(device["port_gbit_s"])
    return int(spec["ports"]), float(spec["port_gbit_s"])


def _port_diagnostics(flat: FlatDesign, tiers: dict[int, str]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    # group -> link class ("scale-out", "scale-up" or "other") -> speed -> cables per unit
    usage: dict[int, dict[str, dict[float, float]]] = {}
    speeds: set[float] = set()
    for bundle in flat.bundles:
        link_class = bundle.kind if bundle.kind in ("scale-out", "scale-up") else "other"
        for end in (bundle.a, bundle.b):
            per_unit = bundle.cables / flat.groups[end].multiplicity
            by_speed = usage.setdefault(end, {}).setdefault(link_class, {})
            by_speed[bundle.speed_gbit_s] = by_speed.get(bundle.speed_gbit_s, 0.0) + per_unit
        if bundle.kind == "scale-out" and all(
                flat.groups[end].spec.kind in (*COMPUTE_KINDS, "switch") for end in (bundle.a, bundle.b)):
            # appliances (a UFM on NDR 200G) may run slower without mixing the data fabric
            speeds.add(bundle.speed_gbit_s)
    catalog = flat.catalog
    for i, by_class in usage.items():
        group = flat.groups[i]
        spec = group.spec
        if spec.kind == "switch":
            by_speed: dict[float, float] = {}
            for per_class in by_class.values():
                for speed, cables in per_class.items():
                    by_speed[speed] = by_speed.get(speed, 0.0) + cables
            fraction = 0.0
            for speed, cables in by_speed.items():
                ports = spec.port_count_at(speed)
                if ports == 0:
                    out.append(Diagnostic(
                        "PORT_SPEED_UNSUPPORTED",
                        f"{group.path} ({spec.id}) has no {speed:g} Gb/s ports", (group.path,)))
                    continue
                fraction += cables / ports
            if fraction > 1 + 1e-9:
                used = ", ".join(f"{c:g} x {s:g}G" for s, c in by_speed.items())
                out.append(Diagnostic(
                    "SWITCH_PORTS_EXCEEDED",
                    f"{group.path} ({spec.id}): {used} links per switch use {fraction:.0%} of its ports",
                    (group.path,)))
            continue
        if spec.kind not in COMPUTE_KINDS and spec.kind not in ("storage", "nic", "dpu", "appliance"):
            continue
        for link_class, by_speed in by_class.items():
            ports, port_speed = _node_ports(spec, catalog, link_class)
            if not ports and link_class == "scale-up" and spec.kind in COMPUTE_KINDS:
                out.append(Diagnostic(
                    "NO_SCALE_UP_PORTS",
                    f"{group.path} ({spec.id}) lists no scale-up ports that leave the node; its "
                    f"drawn scale-up links are modelled as drawn", (group.path,)))
                continue
            if not ports:
                continue
            cables = sum(by_speed.values())
            if cables > ports + 1e-9:
                out.append(Diagnostic(
                    "NODE_PORTS_EXCEEDED",
                    f"{group.path} ({spec.id}): {cables:g} {link_class} links per unit but only "
                    f"{ports} ports", (group.path,)))
            fast = [s for s in by_speed if s > port_speed + 1e-9]
            if fast:
                out.append(Diagnostic(
                    "LINK_FASTER_THAN_PORT",
                    f"{group.path} ({spec.id}): {max(fast):g} Gb/s links exceed its {port_speed:g} Gb/s ports",
                    (group.path,)))
    if len(speeds) > 1:
        out.append(Diagnostic(
            "MIXED_LINK_SPEEDS",
            "scale-out links run at mixed speeds: " + ", ".join(f"{s:g}G" for s in sorted(speeds)),
            ()))
    return out

def single_points_of_failure(flat: FlatDesign, tiers: dict[int, str]) -> tuple[int, tuple[str, ...]]:
    """Switch units whose loss cuts some compute, switch or storage unit off the fabric.

    A unit is single-homed when all its links towards switches of a higher tier land on one
    switch unit; with the even wiring of bundles a unit reaches min(cables per unit, switch
    units per block instance) distinct switches. Every unit of a switch group that
    single-homed units hang from is then a single point of failure. Servers themselves are not
    counted (a server's loss interrupts the job anyway, see the reliability analysis).
    """
    rank: dict[int, int] = {i: 0 for i in flat.compute_groups}
    for i, group in enumerate(flat.groups):
        if group.spec.kind == "storage":
            rank[i] = 0
        tier = tiers.get(i)
        if tier is not None:
            r = _tier_rank(tier)
            rank[i] = r if r is not None else 1
    targets: dict[int, dict[int, int]] = {}
    for bundle in flat.bundles:
        if bundle.kind == "scale-up":
            continue
        for low, high in ((bundle.a, bundle.b), (bundle.b, bundle.a)):
            if low not in rank or high not in tiers or rank[high] <= rank[low]:
                continue
            group_low, group_high = flat.groups[low], flat.groups[high]
            per_unit = bundle.cables / group_low.multiplicity
            reachable = max(1, group_high.multiplicity // bundle.owner_instances)
            targets.setdefault(low, {})[high] = int(min(per_unit, reachable))
    count = 0
    paths: list[str] = []
    for low, ups in targets.items():
        if sum(ups.values()) == 1:
            high = max(ups, key=ups.get)  # the one switch group reached (others may count 0 units)
            if flat.groups[high].path not in paths:
                paths.append(flat.groups[high].path)
                count += flat.groups[high].multiplicity
    return count, tuple(paths)
