"""Bandwidth and latency of the drawn fabric (pure functions of a ``Topology``).

* Per-GPU scale-up and scale-out bandwidth, oversubscription per tier: from the flattened
  bundles (core/topology.py).
* Bisection: exact for layered Clos and island designs, min over tiers of the aggregate
  up-capacity / 2 (= N*b / (2*prod r), topologies.md §1.1, §5). For non-layered hand-drawn graphs
  a spectral bisection of the device graph (Fiedler vector of the capacity-weighted Laplacian,
  split at the GPU-weighted median) gives a balanced cut whose capacity is reported: an upper
  bound on the true minimum bisection, and exact on the regular fabrics we test it against.
* Collectives: large-message all-reduce bus bandwidth and all-to-all per GPU over all GPUs on
  the hierarchical model of core/analysis/collectives.py; small-message all-reduce latency is
  the best of ring and tree (alpha model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.analysis.collectives import allreduce_busbw_gbyte_s, allreduce_time_s, alltoall_time_s
from core.analysis.dpu import storage_path_stages
from core.analysis.load_balance import HASHED, incast_buffer_need_mb, tier_fractions
from core.diagnostics import Diagnostic
from core.fabric import UNCONNECTED
from core.topology import NetworkAssumptions, Topology


@dataclass(frozen=True)
class BandwidthResult:
    scale_up_domain_gpus: int
    per_gpu_scale_up_gbyte_s: float
    per_gpu_scale_out_gbit_s: float
    bisection_tbit_s: float
    bisection_method: str
    oversubscription_by_tier: dict[str, float]
    allreduce_busbw_gbyte_s: float
    alltoall_per_gpu_gbyte_s: float
    storage_read_gbyte_s: float
    storage_write_gbyte_s: float
    per_gpu_by_level_gbit_s: dict[str, float]
    diagnostics: tuple[Diagnostic, ...] = ()
    # fabric behaviour (core/analysis/load_balance.py): the mode the scale-out tiers run,
    # the fraction of line rate per tier and collective pattern, the effective (NCCL rate x the
    # pattern's fraction) and line rate per GPU per tier in Gb/s, the reduction in the network
    load_balancing: str | None = None
    effective_fraction_by_tier: dict[str, dict[str, float]] = field(default_factory=dict)
    effective_by_tier_gbit_s: dict[str, dict[str, float]] = field(default_factory=dict)
    in_network_reduction: str = "none"


@dataclass(frozen=True)
class LatencyResult:
    max_switch_hops: int
    # None when some GPUs have no path to others (a fabric in parts): no latency to quote
    gpu_to_gpu_max_us: float | None
    gpu_to_gpu_mean_us: float | None
    allreduce_small_us: float
    by_level_us: dict[str, float]


def _spectral_bisection_gbit_s(topology: Topology) -> float:
    # scipy.sparse here, not at the top: a layered fabric never needs it, and importing it is
    # ~0.1 s of every start of the window (core/components.py)
    from scipy.sparse import coo_matrix, identity  # noqa: PLC0415
    from scipy.sparse.csgraph import laplacian  # noqa: PLC0415
    from scipy.sparse.linalg import LinearOperator, eigsh, splu  # noqa: PLC0415

    graph = topology.graph
    flat = topology.flat
    n = graph.units
    capacity = flat.speed_gbit_s[graph.edge_bundle]
    matrix = coo_matrix((capacity, (graph.src, graph.dst)), shape=(n, n))
    matrix = (matrix + matrix.T).tocsr()
    lap = laplacian(matrix.astype(float))
    gpu_weight = graph.per_unit(flat.gpus_per_group_unit.astype(float))
    if n < 3:
        return 0.0
    # Shift-invert needs (L - sigma I)^-1. eigsh factorises it with a column ordering (COLAMD)
    # meant for unsymmetric matrices, whose fill-in around high-degree switches made a
    # 17,000-unit graph take minutes; a symmetric minimum-degree ordering takes seconds.
    sigma = -1e-3
    factor = splu((lap - sigma * identity(n)).tocsc(), permc_spec="MMD_AT_PLUS_A")
    inverse = LinearOperator((n, n), matvec=factor.solve, dtype=float)
    values, vectors = eigsh(lap, k=2, sigma=sigma, which="LM", OPinv=inverse)
    fiedler = vectors[:, int(np.argmax(values))]
    order = np.argsort(fiedler, kind="stable")
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    # Sweep cut: the capacity crossing every prefix of the Fiedler order, via a difference
    # array; among the prefixes that split the GPUs most evenly, take the cheapest.
    low = np.minimum(position[graph.src], position[graph.dst])
    high = np.maximum(position[graph.src], position[graph.dst])
    delta = np.zeros(n + 1)
    np.add.at(delta, low + 1, capacity)
    np.add.at(delta, high + 1, -capacity)
    cut = np.cumsum(delta)[1:n]            # cut[i-1] = capacity crossing prefix of size i
    left_gpus = np.cumsum(gpu_weight[order])[:-1]
    imbalance = np.abs(left_gpus - left_gpus[-1] / 2 - gpu_weight[order][-1] / 2)
    candidates = np.flatnonzero(imbalance <= imbalance.min() + 1e-9)
    return float(cut[candidates].min())


def _dpu_cap_gbyte_s(flat, side: np.ndarray) -> float:
    """What the DPUs the compute nodes' storage links leave from pass (their storage and network
    engines, core/analysis/dpu.py; unencrypted): infinite without DPUs on those links."""
    compute = flat.is_compute
    n = len(compute)
    own_gbit_s = (np.bincount(flat.bundle_a[side], flat.capacity_gbit_s[side], minlength=n)
                  + np.bincount(flat.bundle_b[side], flat.capacity_gbit_s[side], minlength=n))
    start = compute & (own_gbit_s > 0)
    stages = storage_path_stages(flat, start, np.where(start, own_gbit_s, 0.0), False, 1.0)
    return min((s.gbyte_s for s in stages if not s.small_reads_only), default=math.inf)


def _storage_gbyte_s(topology: Topology) -> tuple[float, float]:
    """Storage (read, write) throughput GPUs can reach: min(storage devices, their links,
    compute-side links), the links and the compute side worked out once for both."""
    flat = topology.flat
    storage = flat.kind == "storage"
    if not storage.any():
        return 0.0, 0.0
    # Link capacity of every storage group, added bundle by bundle as listed.
    touching = np.flatnonzero(storage[flat.bundle_a] | storage[flat.bundle_b])
    ends = np.stack([flat.bundle_a[touching], flat.bundle_b[touching]], axis=1)
    ends[ends[:, 0] == ends[:, 1], 1] = -1  # a bundle from a group to itself counts once
    ends = ends.ravel()
    links_gbit_s = np.bincount(ends[ends >= 0], weights=np.repeat(
        flat.capacity_gbit_s[touching], 2)[ends >= 0], minlength=len(storage))
    read_gbyte_s = write_gbyte_s = 0.0
    for i in np.flatnonzero(storage).tolist():
        multiplicity = int(flat.multiplicity[i])
        link_gbyte_s = float(links_gbit_s[i]) / 8.0 / multiplicity
        spec = flat.specs[flat.spec_row[i]]
        read_gbyte_s += multiplicity * min(float(spec.read_gbyte_s), link_gbyte_s)
        write_gbyte_s += multiplicity * min(float(spec.write_gbyte_s), link_gbyte_s)
    compute = flat.is_compute
    side = (flat.bundles_of_kind("storage", "frontend")
            & (compute[flat.bundle_a] | compute[flat.bundle_b]))
    if side.any():
        compute_side = sum(flat.capacity_gbit_s[side].tolist()) / 8.0
        compute_side = min(compute_side, _dpu_cap_gbyte_s(flat, side))
    elif topology.up_capacity_gbit_s:
        compute_side = topology.up_capacity_gbit_s[0] / 8.0
    else:
        compute_side = 0.0
    return min(read_gbyte_s, compute_side), min(write_gbyte_s, compute_side)


# A hashed tier below this fraction for a pattern gets a warning naming the collisions.
COLLISION_WARNING_FRACTION = 0.8
# All-to-all incast that keeps less than this at the last hop gets a warning.
INCAST_WARNING_FRACTION = 0.9


def in_network_reduction_used(fabric) -> str:
    """none | sharp | nvls | both: where the job's all-reduce reduces in the network."""
    nvls = any(lv.in_network_gbyte_s > 0 for lv in fabric.levels[:fabric.first_scale_out])
    sharp = any(lv.in_network_gbyte_s > 0 for lv in fabric.levels[fabric.first_scale_out:])
    return {(False, False): "none", (True, False): "nvls", (False, True): "sharp",
            (True, True): "both"}[(nvls, sharp)]


def _fabric_behaviour(fabric) -> tuple[str | None, dict, dict, list[Diagnostic]]:
    """(mode, fraction per tier and pattern, effective vs line rate per tier, diagnostics)."""
    fractions: dict[str, dict[str, float]] = {}
    rates: dict[str, dict[str, float]] = {}
    diagnostics: list[Diagnostic] = []
    mode = None
    for level in fabric.levels[fabric.first_scale_out:]:
        b = level.behaviour
        if b is None:
            continue
        mode = b.mode
        f = tier_fractions(b)
        fractions[level.name] = {p: round(v, 4) for p, v in f.by_pattern.items()}
        rates[level.name] = {
            "line": round(level.per_gpu_gbit_s, 3),
            **{p: round(level.effective_gbyte_s * 8.0 * v, 3) for p, v in f.by_pattern.items()}}
        worst = min(("hierarchical", "alltoall", "p2p"), key=lambda p: f.load_balance[p])
        if b.mode in HASHED and b.paths > 1 and f.load_balance[worst] < COLLISION_WARNING_FRACTION:
            diagnostics.append(Diagnostic(
                "ECMP_COLLISIONS",
                f"{level.name} tier: {b.mode} hashes {f.flows[worst]:.0f} flows of a {worst} "
                f"collective over {b.paths} uplinks per switch; the most loaded link leaves it "
                f"{f.load_balance[worst]:.0%} of line rate (all-to-all "
                f"{f.load_balance['alltoall']:.0%}): adaptive routing, more queue pairs "
                f"(network.qps_per_connection with ecmp-qp) or less oversubscription help", ()))
        if f.incast < INCAST_WARNING_FRACTION and level is fabric.levels[fabric.first_scale_out]:
            diagnostics.append(Diagnostic(
                "INCAST_RISK",
                f"all-to-all incast at the last hop: {b.alltoall_peers_in_flight} senders per "
                f"receiver need {incast_buffer_need_mb(b):.1f} MB per leaf port, the leaf has "
                f"{b.buffer_mb_per_port:.2f} MB; with {b.flow_control} flow control and "
                f"{b.mode} all-to-all keeps {f.incast:.0%} of line rate there (deep buffers, "
                f"a scheduled fabric or adaptive routing with its congestion control avoid it)",
                ()))
    return mode, fractions, rates, diagnostics


def analyze_bandwidth(topology: Topology, assumptions: NetworkAssumptions = NetworkAssumptions()) -> BandwidthResult:
    fabric = topology.fabric
    diagnostics: list[Diagnostic] = []
    if fabric is None:
        return BandwidthResult(0, 0.0, 0.0, 0.0, "none", {}, 0.0, 0.0, 0.0, 0.0, {})
    gpus = fabric.gpus
    per_gpu_out_gbit_s = topology.up_capacity_gbit_s[0] / gpus if topology.up_capacity_gbit_s else 0.0
    if topology.layered or topology.graph.units > assumptions.spectral_bisection_max_units:
        capacities = list(topology.up_capacity_gbit_s)
        if not capacities:
            bisection_gbit_s = fabric.scale_up.per_gpu_gbit_s * gpus / 2 if fabric.scale_up_domain_gpus >= gpus else 0.0
            method = "scale-up domain" if bisection_gbit_s else "none"
        else:
            bisection_gbit_s = min(capacities) / 2
            method = "tiers" if topology.layered else "tiers (graph too large for a spectral cut)"
        if topology.connected_gpus < gpus:
            bisection_gbit_s, method = 0.0, "partitioned"
    else:
        bisection_gbit_s = _spectral_bisection_gbit_s(topology)
        method = "spectral"
    n = gpus
    size = assumptions.busbw_message_bytes
    busbw = allreduce_busbw_gbyte_s(fabric, size, n) if n > 1 else 0.0
    a2a_time = alltoall_time_s(fabric, size, n)
    alltoall = size * (n - 1) / n / a2a_time / 1e9 if n > 1 and 0 < a2a_time < float("inf") else 0.0
    by_level = {level.name: round(level.per_gpu_gbit_s, 3) for level in fabric.levels}
    storage_read_gbyte_s, storage_write_gbyte_s = _storage_gbyte_s(topology)
    mode, fractions, rates, behaviour_diagnostics = _fabric_behaviour(fabric)
    diagnostics.extend(behaviour_diagnostics)
    return BandwidthResult(
        scale_up_domain_gpus=fabric.scale_up_domain_gpus,
        per_gpu_scale_up_gbyte_s=fabric.scale_up.per_gpu_gbyte_s,
        per_gpu_scale_out_gbit_s=per_gpu_out_gbit_s,
        bisection_tbit_s=bisection_gbit_s / 1000.0,
        bisection_method=method,
        oversubscription_by_tier=dict(topology.oversubscription),
        allreduce_busbw_gbyte_s=busbw,
        alltoall_per_gpu_gbyte_s=alltoall,
        storage_read_gbyte_s=storage_read_gbyte_s,
        storage_write_gbyte_s=storage_write_gbyte_s,
        per_gpu_by_level_gbit_s=by_level,
        diagnostics=tuple(diagnostics),
        load_balancing=mode,
        effective_fraction_by_tier=fractions,
        in_network_reduction=in_network_reduction_used(fabric),
        effective_by_tier_gbit_s=rates,
    )


def analyze_latency(topology: Topology, assumptions: NetworkAssumptions = NetworkAssumptions()) -> LatencyResult:
    fabric = topology.fabric
    if fabric is None or fabric.gpus <= 1:
        return LatencyResult(0, 0.0, 0.0, 0.0, {})
    levels = [lv for lv in fabric.levels if lv.name != UNCONNECTED]
    gpus = fabric.gpus
    reachable = fabric.connected_gpus >= gpus
    mean = 0.0
    inner = 1
    for level in levels:
        pairs_share = (min(level.domain_gpus, gpus) - inner) / (gpus - 1)
        mean += max(0.0, pairs_share) * level.latency_us
        inner = min(level.domain_gpus, gpus)
    outer = levels[-1]
    small = allreduce_time_s(fabric, 8.0, gpus, 1, 1.0, assumptions.protocol_step_us) * 1e6
    return LatencyResult(
        max_switch_hops=outer.switch_hops,
        gpu_to_gpu_max_us=outer.latency_us if reachable else None,
        gpu_to_gpu_mean_us=mean if reachable else None,
        allreduce_small_us=small,
        by_level_us={lv.name: lv.latency_us for lv in levels},
    )

