"""Collective times on the hierarchical fabric (alpha-beta with pipelined hierarchy).

A group of ``n`` ranks placed with ``stride`` on the GPU numbering spans several levels of the
fabric. At level l the group has ``n_l`` members per inner domain; the collective runs as a
pipelined hierarchy (NCCL rings/trees run chunks through all links at once), so the bandwidth
term is set by the busiest class of links, not the sum of the phases:

    t_bw = max(t_scale_up, max_l sum_{j >= l} factor(n_j) * (S / m_j) / B_l)

with ``m_l`` the members inside one level-(l-1) domain (they split the data, each using its own
NIC) and ``B_l`` the level's effective per-GPU bandwidth. For a multi-node DGX H100 all-reduce
this gives busbw = min(NVLink ~370, 8 NICs x 47 GB/s) ~ 370-376 GB/s per rank: the engine rule
and the measurements in ../shared/reference/topologies.md §7 (nccl-tests #212, #290, #309).

The latency term is the best of a hierarchical ring (2(n_l - 1) steps per level) and a tree
(2 log2 n steps at the outermost level's latency), plus a per-step protocol overhead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.fabric import FabricView

# NCCL per-step protocol latency, LL protocol (topologies.md §6, citing "Demystifying NCCL").
DEFAULT_PROTOCOL_STEP_US = 1.0


@dataclass(frozen=True)
class GroupSpan:
    """How a group of ranks spreads over the fabric levels."""

    members_per_level: tuple[int, ...]  # n_l: group members added at each level (product = n)
    levels: tuple[int, ...]             # fabric level index of each entry

    @property
    def size(self) -> int:
        return math.prod(self.members_per_level)


def group_span(fabric: FabricView, n: int, stride: int = 1) -> GroupSpan:
    """Split a group of ``n`` ranks at ``stride`` into members per fabric level."""
    if n <= 1:
        return GroupSpan((1,), (0,))
    members: list[int] = []
    levels: list[int] = []
    inside = 1
    for index, level in enumerate(fabric.levels):
        capacity = max(1, level.domain_gpus // max(1, stride)) if level.domain_gpus >= stride else 1
        here = min(n, capacity)
        if index == len(fabric.levels) - 1:
            here = n
        if here > inside:
            factor = math.ceil(here / inside)
            members.append(factor)
            levels.append(index)
            inside *= factor
        if inside >= n:
            break
    if not members:
        members, levels = [n], [0]
    return GroupSpan(tuple(members), tuple(levels))


def _pipelined_time_s(fabric: FabricView, traffic: list[tuple[int, float]], efficiency: float) -> float:
    """Time to move ``traffic`` [(level, bytes per GPU whose farthest level is that one)].

    Scale-up traffic runs on its own links, concurrently with the network. Network traffic of
    every level crosses the GPU's NIC, and traffic of level l and above also crosses the links
    of level l; the busiest link class sets the pace: max_l (sum_{j >= l} bytes_j) / B_l.
    """
    scale_up = 0.0
    network = 0.0
    for level_index, _ in traffic:
        level = fabric.levels[level_index]
        bandwidth = level.effective_gbyte_s * 1e9 * efficiency
        if level_index == 0:
            load = sum(b for i, b in traffic if i == 0)
        else:
            load = sum(b for i, b in traffic if i >= level_index)
        if load <= 0:
            continue
        if bandwidth <= 0:
            return math.inf
        if level_index == 0:
            scale_up = load / bandwidth
        else:
            network = max(network, load / bandwidth)
    return max(scale_up, network)


def _bandwidth_time_s(
    fabric: FabricView, span: GroupSpan, nbytes: float, factor_fn, efficiency: float
) -> float:
    traffic = []
    inside = 1
    for n_l, level_index in zip(span.members_per_level, span.levels):
        traffic.append((level_index, factor_fn(n_l) * nbytes / inside))
        inside *= n_l
    return _pipelined_time_s(fabric, traffic, efficiency)


def _latency_s(fabric: FabricView, span: GroupSpan, steps_fn, protocol_us: float) -> float:
    ring = sum(
        steps_fn(n_l) * (fabric.levels[i].latency_us + protocol_us)
        for n_l, i in zip(span.members_per_level, span.levels)
    )
    outer = fabric.levels[span.levels[-1]]
    tree = 2 * math.ceil(math.log2(max(2, span.size))) * (outer.latency_us + protocol_us)
    return min(ring, tree) * 1e-6


def allreduce_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
) -> float:
    """Time of an all-reduce of ``nbytes`` per rank over ``n`` ranks placed at ``stride``."""
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    bw = _bandwidth_time_s(fabric, span, nbytes, lambda k: 2 * (k - 1) / k, efficiency)
    return bw + _latency_s(fabric, span, lambda k: 2 * (k - 1), protocol_us)


def reduce_scatter_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
) -> float:
    """Reduce-scatter (or all-gather) of a ``nbytes`` buffer per rank."""
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    bw = _bandwidth_time_s(fabric, span, nbytes, lambda k: (k - 1) / k, efficiency)
    return bw + _latency_s(fabric, span, lambda k: k - 1, protocol_us)


allgather_time_s = reduce_scatter_time_s


def alltoall_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
) -> float:
    """All-to-all where each rank holds ``nbytes`` spread evenly over the ``n`` ranks.

    The share of a rank's data bound for ranks first reached at level l is (inside_l - inside_l-1)/n;
    the busiest link class sets the pace (see ``_pipelined_time_s``).
    """
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    traffic = []
    inside = 1
    for n_l, level_index in zip(span.members_per_level, span.levels):
        # Data whose destination lies outside the level-(l-1) domain but inside level l's.
        traffic.append((level_index, nbytes * (inside * n_l - inside) / n))
        inside *= n_l
    worst = _pipelined_time_s(fabric, traffic, efficiency)
    latency_us = sum(fabric.levels[i].latency_us + protocol_us for i in span.levels)
    return worst + latency_us * 1e-6


def p2p_time_s(
    fabric: FabricView,
    nbytes: float,
    distance_gpus: int,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
) -> float:
    """Point-to-point send between two ranks ``distance_gpus`` apart on the GPU numbering."""
    if nbytes <= 0:
        return 0.0
    level = fabric.levels[fabric.level_for_span(distance_gpus + 1)]
    bandwidth = level.effective_gbyte_s * 1e9 * efficiency
    if bandwidth <= 0:
        return math.inf
    return nbytes / bandwidth + (level.latency_us + protocol_us) * 1e-6


def allreduce_busbw_gbyte_s(fabric: FabricView, nbytes: float, n: int, efficiency: float = 1.0) -> float:
    """nccl-tests bus bandwidth of an all-reduce: (S / t) * 2(n-1)/n."""
    t = allreduce_time_s(fabric, nbytes, n, 1, efficiency)
    if t <= 0 or math.isinf(t):
        return 0.0
    return nbytes / t * 2 * (n - 1) / n / 1e9
