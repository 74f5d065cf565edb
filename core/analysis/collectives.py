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

**Message-size efficiency** (``size_aware=True``, used by the performance model): NCCL reaches
its large-message bus bandwidth only for large buffers, and the loss grows with the number of
nodes a ring spans (chunking, protocol switches, flow control). We use SimAI's measured ratio
tables (aliyun/SimAI ``astra-sim-alibabacloud/inputs/ratio/{nic,nvlink,ata}_ratio.csv``, P;
topologies.md §8) the way SimAI's ``calbusbw.cc`` ``getValue`` does: the ratio at the
collective's buffer size, divided by the ratio at 16 GB (the effective bandwidths in the
catalog are already large-message NCCL figures). The column is chosen from the group's
placement: inside one scale-up domain -> "1 Node (NVLink)"; several members per node across
N nodes -> "N Node (NIC)", read at the ring's length (a group with m < 8 members per node uses
the column of N m / 8 nodes, as the table's columns are rings of 8N GPUs); one member per node
(rail-aligned DP/PP groups, several rings at once) -> "Multi 16/32/64". Between columns we interpolate in log2(nodes), between rows in
size; below 16 MB the 16 MB value holds (the alpha term covers small messages), beyond the
largest column the last one holds.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from core.analysis.load_balance import pattern_fraction
from core.fabric import FabricView

# NCCL per-step protocol latency, LL protocol (topologies.md §6, citing "Demystifying NCCL").
DEFAULT_PROTOCOL_STEP_US = 1.0

# --- SimAI message-size efficiency tables (P: aliyun/SimAI astra-sim-alibabacloud/inputs/ratio,
# nic_ratio.csv @26b4574 and ata_ratio.csv @2fd28fe; topologies.md §8 quotes the 16 MB / 128 MB
# / 1 GB / 16 GB points). Rows: buffer size in bytes, 16 MiB ... 16 GiB (x2 per row).
_RATIO_SIZES = tuple(float(2 ** k) for k in range(24, 35))
# nic_ratio.csv: "1 Node (NVLink)" and "N Node-8N GPU (NIC)" columns (all-reduce, RS, AG).
_NIC_RATIO_NODES = (1, 2, 4, 8, 16, 32, 64, 128)
_NIC_RATIO = (
    (0.45, 0.32, 0.24, 0.13, 0.05, 0.044, 0.021, 0.0087),
    (0.55, 0.47, 0.38, 0.24, 0.11, 0.052, 0.042, 0.021225),
    (0.65, 0.50, 0.53, 0.39, 0.21, 0.106, 0.051, 0.04405),
    (0.69, 0.67, 0.67, 0.54, 0.38, 0.205, 0.107, 0.0533),
    (0.73, 0.85, 0.77, 0.69, 0.57, 0.387, 0.209, 0.1027),
    (0.76, 0.89, 0.85, 0.78, 0.73, 0.562, 0.384, 0.1902),
    (0.77, 0.92, 0.93, 0.90, 0.76, 0.74, 0.563, 0.314575),
    (0.78, 0.94, 0.94, 0.94, 0.92, 0.758, 0.745, 0.553525),
    (0.79, 0.95, 0.95, 0.95, 0.95, 0.923, 0.755, 0.740175),
    (0.80, 0.95, 0.96, 0.96, 0.96, 0.953, 0.914, 0.7648),
    (0.81, 0.96, 0.96, 0.96, 0.96, 0.957, 0.958, 0.919175),
)
# nic_ratio.csv "Multi 16 / Multi 32 / Muiti 64": one GPU per node in each ring, all rails at
# once (SimAI's group_split_mask 7), i.e. Megatron's DP / PP groups at stride >= the node.
_MULTI_RATIO_NODES = (16, 32, 64)
_MULTI_RATIO = (
    (0.86, 0.86, 0.77), (0.92, 0.90, 0.80), (0.94, 0.91, 0.83), (0.94, 0.92, 0.87),
    (0.94, 0.93, 0.91), (0.95, 0.94, 0.93), (0.96, 0.95, 0.94), (0.96, 0.96, 0.95),
    (0.96, 0.96, 0.95), (0.96, 0.96, 0.96), (0.96, 0.96, 0.96),
)
# ata_ratio.csv: all-to-all, "1 Node (NVLink)" and 2/4/8/16-node columns (blank beyond 16).
_ATA_RATIO_NODES = (1, 2, 4, 8, 16)
_ATA_RATIO = (
    (0.44, 0.52, 0.67, 0.64, 0.62), (0.51, 0.63, 0.68, 0.67, 0.66), (0.60, 0.72, 0.83, 0.82, 0.66),
    (0.65, 0.76, 0.90, 0.85, 0.72), (0.70, 0.79, 0.92, 0.87, 0.75), (0.71, 0.80, 0.94, 0.89, 0.81),
    (0.74, 0.81, 0.94, 0.92, 0.85), (0.76, 0.81, 0.95, 0.93, 0.88), (0.77, 0.80, 0.95, 0.94, 0.89),
    (0.78, 0.80, 0.95, 0.94, 0.90), (0.78, 0.80, 0.95, 0.94, 0.90),
)


def _interp_column(table, columns, nodes: float, row: int) -> float:
    values = table[row]
    if nodes <= columns[0]:
        return values[0]
    if nodes >= columns[-1]:
        return values[-1]
    x = math.log2(nodes)
    for i in range(1, len(columns)):
        if nodes <= columns[i]:
            x0, x1 = math.log2(columns[i - 1]), math.log2(columns[i])
            return values[i - 1] + (values[i] - values[i - 1]) * (x - x0) / (x1 - x0)
    return values[-1]


def _table_ratio(table, columns, nodes: float, nbytes: float) -> float:
    """SimAI getValue: ratio at ``nbytes`` (linear in size between rows) / ratio at 16 GiB."""
    last = _interp_column(table, columns, nodes, len(_RATIO_SIZES) - 1)
    if nbytes <= _RATIO_SIZES[0]:
        value = _interp_column(table, columns, nodes, 0)
    elif nbytes >= _RATIO_SIZES[-1]:
        value = last
    else:
        i = min(int(math.log2(nbytes)) - 24, len(_RATIO_SIZES) - 2)
        s0, s1 = _RATIO_SIZES[i], _RATIO_SIZES[i + 1]
        v0 = _interp_column(table, columns, nodes, i)
        v1 = _interp_column(table, columns, nodes, i + 1)
        value = v0 + (v1 - v0) * (nbytes - s0) / (s1 - s0)
    return min(1.0, value / last) if last > 0 else 1.0


def message_efficiency(kind: str, nbytes: float, nodes: int, members_per_node: int) -> float:
    """Fraction of the large-message bus bandwidth a collective of ``nbytes`` reaches (SimAI).

    ``kind`` is "allreduce", "reduce_scatter", "allgather" or "alltoall"; ``nodes`` the
    scale-up domains the group spans and ``members_per_node`` its ranks in each.
    """
    if nbytes <= 0:
        return 1.0
    nodes = max(1, nodes)
    if kind == "alltoall":
        if nodes > 1 and members_per_node <= 1:
            return _table_ratio(_MULTI_RATIO, _MULTI_RATIO_NODES, nodes, nbytes)
        return _table_ratio(_ATA_RATIO, _ATA_RATIO_NODES, nodes, nbytes)
    if nodes > 1 and members_per_node <= 1:
        return _table_ratio(_MULTI_RATIO, _MULTI_RATIO_NODES, nodes, nbytes)
    if 1 < members_per_node < 8:
        # The "N Node" columns are rings of 8N GPUs; the loss follows the ring's length (at 64
        # nodes SimAI measures 0.99 of the 16 GB figure for a 128 MB ring of 64 GPUs, one per
        # node, "Multi 64", but 0.12 for 512 GPUs, "N Node"). A group with fewer members per
        # node reads the column of the same number of ranks: nodes x members / 8.
        nodes = max(1, nodes * members_per_node / 8)
    return _table_ratio(_NIC_RATIO, _NIC_RATIO_NODES, nodes, nbytes)


def span_nodes(span: "GroupSpan") -> tuple[int, int]:
    """(scale-up domains spanned, members per domain) of a group span."""
    per_node = 1
    nodes = 1
    for n_l, level in zip(span.members_per_level, span.levels):
        if level == 0:
            per_node *= n_l
        else:
            nodes *= n_l
    return nodes, per_node


class GroupSpan(NamedTuple):
    """How a group of ranks spreads over the fabric levels (a tuple, not a frozen dataclass:
    every collective of every layout the parallelism search tries makes one)."""

    members_per_level: tuple[int, ...]  # n_l: group members added at each level (product = n)
    levels: tuple[int, ...]             # fabric level index of each entry

    @property
    def size(self) -> int:
        return math.prod(self.members_per_level)


def group_span(fabric: FabricView, n: int, stride: int = 1) -> GroupSpan:
    """Split a group of ``n`` ranks at ``stride`` into members per fabric level."""
    if n <= 1:
        return GroupSpan((1,), (0,))
    return _span_of(tuple(level.domain_gpus for level in fabric.levels), n, stride)


# The serving search and its what-ifs ask for the same few group sizes on one fabric thousands of
# times (every decode step of every curve point): the split depends only on the levels' domains.
@functools.lru_cache(maxsize=4096)
def _span_of(domains: tuple[int, ...], n: int, stride: int) -> GroupSpan:
    members: list[int] = []
    levels: list[int] = []
    inside = 1
    for index, domain_gpus in enumerate(domains):
        capacity = max(1, domain_gpus // max(1, stride)) if domain_gpus >= stride else 1
        here = min(n, capacity)
        if index == len(domains) - 1:
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


def _pipelined_time_s(fabric: FabricView, traffic: list[tuple[int, float]], efficiency: float,
                      pattern: str, reduced: frozenset[int] = frozenset()) -> float:
    """Time to move ``traffic`` [(level, bytes per GPU whose farthest level is that one)].

    Scale-up traffic runs on its own links, concurrently with the network. Network traffic of
    every level crosses the GPU's NIC, and traffic of level l and above also crosses the links
    of level l; the busiest link class sets the pace: max_l (sum_{j >= l} bytes_j) / B_l, with
    B_l the level's effective rate times the fraction its load balancing and congestion leave
    the collective's ``pattern`` (core/analysis/load_balance.py). Levels in ``reduced`` reduce
    in the network, at their in-network rate.
    """
    scale_up = 0.0
    network = 0.0
    for level_index, _ in traffic:
        level = fabric.levels[level_index]
        if level_index in reduced:
            bandwidth = level.in_network_gbyte_s * 1e9 * efficiency
        else:
            bandwidth = (level.effective_gbyte_s * 1e9 * efficiency
                         * pattern_fraction(level.behaviour, pattern))
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
    fabric: FabricView, span: GroupSpan, nbytes: float, factor_fn, efficiency: float,
    pattern: str, in_network: bool = False
) -> float:
    """Bandwidth time of a ring-like collective; ``in_network`` (all-reduce): a level whose
    switches reduce moves S / inside once instead of factor(n_l) times."""
    traffic = []
    reduced = set()
    inside = 1
    for n_l, level_index in zip(span.members_per_level, span.levels):
        if in_network and fabric.levels[level_index].in_network_gbyte_s > 0:
            reduced.add(level_index)
            traffic.append((level_index, nbytes / inside))
        else:
            traffic.append((level_index, factor_fn(n_l) * nbytes / inside))
        inside *= n_l
    return _pipelined_time_s(fabric, traffic, efficiency, pattern, frozenset(reduced))


def _latency_s(fabric: FabricView, span: GroupSpan, steps_fn, protocol_us: float) -> float:
    ring = sum(
        steps_fn(n_l) * (fabric.levels[i].latency_us + protocol_us)
        for n_l, i in zip(span.members_per_level, span.levels)
    )
    outer = fabric.levels[span.levels[-1]]
    tree = 2 * math.ceil(math.log2(max(2, span.size))) * (outer.latency_us + protocol_us)
    return min(ring, tree) * 1e-6


def _size_factor(kind: str, span: GroupSpan, nbytes: float, size_aware: bool) -> float:
    if not size_aware:
        return 1.0
    nodes, per_node = span_nodes(span)
    return message_efficiency(kind, nbytes, nodes, per_node)


def allreduce_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
    size_aware: bool = False,
) -> float:
    """Time of an all-reduce of ``nbytes`` per rank over ``n`` ranks placed at ``stride``.

    ``size_aware`` applies the SimAI message-size efficiency (module docstring).
    """
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    efficiency *= _size_factor("allreduce", span, nbytes, size_aware)
    bw = _bandwidth_time_s(fabric, span, nbytes, lambda k: 2 * (k - 1) / k, efficiency,
                           "hierarchical", in_network=True)
    return bw + _latency_s(fabric, span, lambda k: 2 * (k - 1), protocol_us)


def reduce_scatter_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
    size_aware: bool = False,
) -> float:
    """Reduce-scatter (or all-gather) of a ``nbytes`` buffer per rank."""
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    efficiency *= _size_factor("reduce_scatter", span, nbytes, size_aware)
    bw = _bandwidth_time_s(fabric, span, nbytes, lambda k: (k - 1) / k, efficiency,
                           "hierarchical")
    return bw + _latency_s(fabric, span, lambda k: k - 1, protocol_us)


allgather_time_s = reduce_scatter_time_s


def alltoall_time_s(
    fabric: FabricView,
    nbytes: float,
    n: int,
    stride: int = 1,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
    size_aware: bool = False,
) -> float:
    """All-to-all where each rank holds ``nbytes`` spread evenly over the ``n`` ranks.

    The share of a rank's data bound for ranks first reached at level l is (inside_l - inside_l-1)/n;
    the busiest link class sets the pace (see ``_pipelined_time_s``).
    """
    if n <= 1 or nbytes <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    efficiency *= _size_factor("alltoall", span, nbytes, size_aware)
    traffic = []
    inside = 1
    for n_l, level_index in zip(span.members_per_level, span.levels):
        # Data whose destination lies outside the level-(l-1) domain but inside level l's.
        traffic.append((level_index, nbytes * (inside * n_l - inside) / n))
        inside *= n_l
    rails = fabric.rails_via_scale_up
    if rails > 1 and fabric.levels[0].domain_gpus > 1:
        # Rail-only: (r-1)/r of the traffic leaving the scale-up domain is bound for another
        # rail and is forwarded over the scale-up links to the GPU on that rail first.
        network = sum(b for i, b in traffic if i >= fabric.first_scale_out)
        traffic.append((0, network * (rails - 1) / rails))
    return _alltoall_s(fabric, traffic, efficiency, span, protocol_us)


def _alltoall_s(fabric: FabricView, traffic: list[tuple[int, float]], efficiency: float, span,
                protocol_us: float) -> float:
    """An all-to-all's ``traffic`` at the pace of its busiest link class, plus one protocol
    step and switch latency per level it spans."""
    worst = _pipelined_time_s(fabric, traffic, efficiency, "alltoall")
    latency_us = sum(fabric.levels[i].latency_us + protocol_us for i in span.levels)
    return worst + latency_us * 1e-6


def expert_alltoall_time_s(
    fabric: FabricView,
    tokens: float,
    bytes_per_token: float,
    top_k: int,
    n: int,
    stride: int = 1,
    route_nodes: int = 0,
    dedup_per_node: bool = False,
    efficiency: float = 1.0,
    protocol_us: float = DEFAULT_PROTOCOL_STEP_US,
    size_aware: bool = False,
) -> float:
    """One MoE dispatch (or combine) over an expert-parallel group of ``n`` ranks at ``stride``:
    each rank sends ``tokens`` tokens of ``bytes_per_token`` to the ranks of their ``top_k``
    experts (spread evenly over the group).

    The copies bound for GPUs of the rank's own scale-up domain (an 8-GPU node, an NVL72 rack)
    go over the scale-up links; the rest cross the NIC, over the levels their destinations lie
    at. A plain all-to-all (NCCL, Megatron's alltoall dispatcher) sends every copy on its own:
    top_k (n - m)/n copies per token leave the domain of m members. Kernels that send a token
    once per destination node and forward it there over NVLink (``dedup_per_node``: DeepEP,
    DeepSeek-V3 §3.2.2, P) send one copy per distinct remote node: (N - 1)(1 - (1 - 1/N)^k) of
    N nodes for uniform routing, or M (N - 1)/N when routing is limited to M nodes
    (``route_nodes``, DeepSeek-V3 §2.1.2: M = 4); the forwarded copies then load the scale-up
    links. Without deduplication the routing limit saves no network bytes.
    """
    if n <= 1 or tokens <= 0 or bytes_per_token <= 0 or top_k <= 0:
        return 0.0
    span = group_span(fabric, n, stride)
    up = fabric.first_scale_out  # levels below it are the scale-up domain ("a node" here)
    per_node = math.prod(n_l for n_l, i in zip(span.members_per_level, span.levels) if i < up)
    nodes = max(1, n // per_node)
    copies = tokens * top_k
    # destinations first reached at each level of the span, as a share of the group
    shares: list[tuple[int, float]] = []
    inside = 1
    for n_l, level_index in zip(span.members_per_level, span.levels):
        shares.append((level_index, (inside * n_l - inside) / n))
        inside *= n_l
    local = [(i, share) for i, share in shares if i < up]
    local_share = sum(share for _, share in local)
    remote_share = (nodes - 1) / nodes
    if dedup_per_node and nodes > 1:
        if route_nodes and route_nodes < nodes:
            distinct_remote = min(route_nodes, top_k) * remote_share
        else:
            distinct_remote = (nodes - 1) * (1.0 - (1.0 - 1.0 / nodes) ** top_k)
        network_copies = tokens * distinct_remote
        # arrived once per node, then forwarded to the node's other GPUs over the scale-up links
        forwarded = copies * remote_share * (per_node - 1) / per_node
    else:
        network_copies = copies * remote_share
        forwarded = 0.0
    traffic: list[tuple[int, float]] = []
    for level_index, share in local:
        inner = share / local_share if local_share > 0 else 0.0
        traffic.append((level_index, (copies * share + forwarded * inner) * bytes_per_token))
    remote = [(i, share) for i, share in shares if i >= up]
    remote_total = sum(share for _, share in remote)
    for level_index, share in remote:
        traffic.append((level_index, network_copies * bytes_per_token * share / remote_total))
    efficiency *= _size_factor("alltoall", span, copies * bytes_per_token, size_aware)
    return _alltoall_s(fabric, traffic, efficiency, span, protocol_us)


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
    bandwidth = level.effective_gbyte_s * 1e9 * efficiency * pattern_fraction(level.behaviour, "p2p")
    if bandwidth <= 0:
        return math.inf
    return nbytes / bandwidth + (level.latency_us + protocol_us) * 1e-6


def allreduce_busbw_gbyte_s(fabric: FabricView, nbytes: float, n: int, efficiency: float = 1.0) -> float:
    """nccl-tests bus bandwidth of an all-reduce: (S / t) * 2(n-1)/n."""
    t = allreduce_time_s(fabric, nbytes, n, 1, efficiency)
    if t <= 0 or math.isinf(t):
        return 0.0
    return nbytes / t * 2 * (n - 1) / n / 1e9
