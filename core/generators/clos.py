"""Folded-Clos sizing and construction shared by the fat-tree and super-node generators.

Sizing follows Al-Fares et al. (SIGCOMM 2008) as tabulated in ../shared/reference/topologies.md
§1: a leaf of radix k has d = k*r/(1+r) ports down and u = k - d up; a 2-tier fabric holds up
to k*d endpoints, a 3-tier one up to k pods of (k/2 leaves x d). Where the endpoints run
slower than the switch-to-switch links (400G NICs on an 800G switch), k counts the switch's
ports at the uplink speed, each down port carries ``down_per_port`` endpoint links (a breakout)
and r stays down:up in bandwidth: u = k / (1 + g*r/b) with g the uplink-to-endpoint speed
ratio and b the links per down port, d = u*g*r endpoint links (g = b = 1: the formula above). The scalable-unit (SU) grouping reproduces the DGX SuperPOD tables (§2):
32 DGX H100 x 8 rails on 8 leaves per SU with QM9700.

A compute node exposes ``e`` scale-out endpoints (its NIC ports). In an SU of ``s`` nodes every
leaf takes ``q`` of the rails for all ``s`` nodes (q = 1 for a full SU: rail-optimised), so an
SU has ceil(e/q) leaves and leaf l carries rails l*q ... l*q+q-1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.errors import GeneratorError
from core.model import Block, Link, Node

# Cable lengths by tier (E: typical in-row / cross-row / cross-hall runs; users edit them per link).
NODE_LEAF_M = 10.0
LEAF_SPINE_M = 30.0
SPINE_CORE_M = 100.0


@dataclass(frozen=True)
class ClosPlan:
    """Switch counts and the block layout of a generated fabric."""

    tiers: int
    radix: int
    leaf_down: int
    leaf_up: int
    spine_down: int
    spine_up: int
    nodes: int
    endpoints_per_node: int
    su_nodes: int          # nodes per full SU
    su_leaves: int         # leaves per full SU
    sus: list[int]         # nodes in each SU (last may be partial)
    pods: list[list[int]]  # SUs (their node counts) in each pod; one pod for 2 tiers
    leaves: int
    spines: int
    cores: int
    spines_per_pod: list[int]
    core_links_per_pod: list[int] = ()  # type: ignore[assignment]
    down_per_port: int = 1  # endpoint links per leaf port (2: each port a 2x breakout)

    @property
    def switches_by_tier(self) -> dict[str, int]:
        out = {"leaf": self.leaves, "spine": self.spines}
        if self.tiers == 3:
            out["core"] = self.cores
        return out


def _su_leaves(nodes_in_su: int, endpoints: int, leaf_down: int) -> int:
    rails_per_leaf = max(1, min(endpoints, leaf_down // max(1, nodes_in_su)))
    return math.ceil(endpoints / rails_per_leaf)


def leaves_for_su(plan: "ClosPlan", nodes_in_su: int) -> int:
    """Leaves of a scalable unit of ``nodes_in_su`` nodes in ``plan`` (for generators that lay
    the plan out themselves, e.g. planes.py)."""
    return _su_leaves(nodes_in_su, plan.endpoints_per_node, plan.leaf_down)


def spine_count(leaves: int, leaf_up: int, spine_down: int) -> int:
    """Spines for ``leaves`` leaves with ``leaf_up`` uplinks each: the fewest that have enough
    down ports *and* divide every leaf's uplinks evenly.

    NVIDIA sizes spines this way ("design-for-max", topologies.md §1.3): it reproduces 16 spines
    for 3 SU of DGX H100 (12 would do by ports alone) and 18/36 spines for 4/8 SU of B300-XDR.
    """
    minimum = math.ceil(leaves * leaf_up / spine_down)
    if minimum >= leaf_up:
        return minimum
    return next(s for s in range(minimum, leaf_up + 1) if leaf_up % s == 0)


def _split(total: int, size: int) -> list[int]:
    full, rest = divmod(total, size)
    return [size] * full + ([rest] if rest else [])


def plan_clos(
    nodes: int,
    endpoints_per_node: int,
    radix: int,
    tiers: str | int = "auto",
    oversubscription: float = 1.0,
    pod_nodes: int | None = None,
    pod_oversubscription: float = 1.0,
    *,
    down_per_port: int = 1,
    speed_ratio: float = 1.0,
) -> ClosPlan:
    """Size a 2- or 3-tier folded Clos for ``nodes`` nodes with ``endpoints_per_node`` ports each.

    ``oversubscription`` is down:up at the leaf; ``pod_nodes`` fixes the pod (island) size and
    ``pod_oversubscription`` the spine-to-core ratio (computing islands, topologies.md §5).
    ``radix`` counts switch ports at the switch-to-switch speed, ``speed_ratio`` is that speed
    over the endpoints' and ``down_per_port`` the endpoint links one leaf port carries.
    """
    if nodes < 1:
        raise GeneratorError(f"need at least one node, got {nodes}")
    if radix < 2:
        raise GeneratorError(f"switch radix {radix} is too small")
    if not (1 <= oversubscription < math.inf and 1 <= pod_oversubscription < math.inf):  # NaN too
        raise GeneratorError("oversubscription ratios are down:up and must be at least 1 (and finite)")
    if down_per_port < 1 or not 1 <= speed_ratio < math.inf:
        raise GeneratorError("uplinks must be at least as fast as the endpoint links")
    e = endpoints_per_node
    k = radix
    # Exact ratio with whole ports: u = floor(k / (1 + g r / b)) up, d = floor(u g r) down
    # (in endpoint links, b of them per port); g = b = 1 gives u = floor(k / (1 + r)).
    down_bandwidth = speed_ratio * oversubscription
    u = int(k // (1 + down_bandwidth / down_per_port))
    d = int(u * down_bandwidth)
    while u and -(-d // down_per_port) + u > k:  # a fractional ratio rounded past the ports
        d -= 1
    if d < 1 or u < 1:
        raise GeneratorError(f"oversubscription {oversubscription}:1 leaves no ports on a radix-{k} leaf")
    su_nodes = d  # one cable per rail per node: a one-rail leaf serves d nodes
    su_leaves = _su_leaves(su_nodes, e, d)
    sus = _split(nodes, su_nodes)
    leaves = sum(_su_leaves(s, e, d) for s in sus)

    if pod_nodes is not None and tiers == 2:
        raise GeneratorError("computing islands need a third (joining) tier; use --tiers 3 or auto")
    want3 = tiers == 3 or (tiers == "auto" and (leaves > k or pod_nodes is not None))
    if tiers not in ("auto", 2, 3):
        raise GeneratorError(f"tiers must be auto, 2 or 3, got {tiers!r}")
    if not want3:
        if leaves > k:
            raise GeneratorError(
                f"{nodes * e} endpoints need {leaves} leaves, more than a radix-{k} spine can "
                f"reach in 2 tiers (max {k * d} endpoints); use 3 tiers"
            )
        spines = spine_count(leaves, u, k)
        return ClosPlan(2, k, d, u, k, 0, nodes, e, su_nodes, su_leaves, sus, [sus], leaves,
                        spines, 0, [spines], down_per_port=down_per_port)

    spine_up = int(k // (1 + pod_oversubscription))
    spine_down = int(spine_up * pod_oversubscription)
    if spine_down < 1 or spine_up < 1:
        raise GeneratorError(f"island oversubscription {pod_oversubscription}:1 leaves no spine ports")
    if su_leaves > spine_down:
        # Nodes with many rails (super-nodes): shrink the SU until its leaves fit under a spine.
        su_nodes = next((s for s in range(su_nodes, 0, -1) if _su_leaves(s, e, d) <= spine_down), 0)
        if not su_nodes:
            raise GeneratorError(
                f"a node with {e} endpoints cannot fit one pod of radix-{k} spines"
            )
        su_leaves = _su_leaves(su_nodes, e, d)
        sus = _split(nodes, su_nodes)
        leaves = sum(_su_leaves(s, e, d) for s in sus)
    sus_per_pod = spine_down // su_leaves
    if pod_nodes is not None:
        if pod_nodes % su_nodes and pod_nodes > su_nodes:
            raise GeneratorError(
                f"an island of {pod_nodes} nodes is not a whole number of {su_nodes}-node scalable units"
            )
        pod_sus = _split(min(pod_nodes, nodes), su_nodes)
        pod_leaves = sum(_su_leaves(s, e, d) for s in pod_sus)
        if pod_leaves > spine_down:
            raise GeneratorError(
                f"an island of {pod_nodes} nodes needs {pod_leaves} leaves but a radix-{k} spine "
                f"at {pod_oversubscription:g}:1 reaches only {spine_down} (max "
                f"{sus_per_pod * su_nodes} nodes per island)"
            )
        pods = []
        remaining = nodes
        while remaining > 0:
            take = min(pod_nodes, remaining)
            pods.append(_split(take, su_nodes))
            remaining -= take
    else:
        pods = [sus[i:i + sus_per_pod] for i in range(0, len(sus), sus_per_pod)]
    if len(pods) > k:
        max_endpoints = k * sus_per_pod * su_nodes * e
        raise GeneratorError(
            f"{nodes * e} endpoints exceed what 3 tiers of radix-{k} switches allow "
            f"(max {max_endpoints} at this oversubscription)"
        )
    spines_per_pod = [
        spine_count(sum(_su_leaves(s, e, d) for s in pod), u, spine_down) for pod in pods
    ]
    spines = sum(spines_per_pod)
    # An island's uplinks carry its leaves' uplink capacity divided by the island ratio
    # (topologies.md §5: U = P*b/r), never more than its spines' up ports.
    core_links_per_pod = [
        min(n_spines * spine_up,
            math.ceil(sum(_su_leaves(s, e, d) for s in pod) * u / pod_oversubscription))
        for pod, n_spines in zip(pods, spines_per_pod)
    ]
    cores = math.ceil(sum(core_links_per_pod) / k)
    return ClosPlan(3, k, d, u, spine_down, spine_up, nodes, e, su_nodes, su_leaves,
                    [s for pod in pods for s in pod], pods, leaves, spines, cores, spines_per_pod,
                    core_links_per_pod, down_per_port)


def group_counts(values: list[int]) -> list[tuple[int, int]]:
    """Run-length encode: [32, 32, 32, 7] -> [(32, 3), (7, 1)] (repetition stored once)."""
    out: list[tuple[int, int]] = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1] + 1)
        else:
            out.append((v, 1))
    return out


def build_clos_blocks(
    plan: ClosPlan,
    node_catalog_id: str,
    switch_catalog_id: str,
    speed_gbit_s: float,
    root: Block,
    medium: str = "fiber",
    up_speed_gbit_s: float | None = None,
) -> None:
    """Add SU / pod blocks, switches and link bundles for ``plan`` into ``root``: node-to-leaf
    links at ``speed_gbit_s``, switch-to-switch links at ``up_speed_gbit_s`` (default the same)."""
    e = plan.endpoints_per_node
    up_speed = up_speed_gbit_s or speed_gbit_s
    step = 260.0

    def make_su(nodes_in_su: int, su_id: str, count: int, x: float, y: float) -> Block:
        leaves = _su_leaves(nodes_in_su, e, plan.leaf_down)
        su = Block(su_id, f"SU ({nodes_in_su} nodes)" if count == 1 else "Scalable unit",
                   count=count, x=x, y=y, role="su")
        su.children["nodes"] = Node("nodes", node_catalog_id, nodes_in_su, "Compute nodes", x=0, y=160)
        su.children["leaf"] = Node("leaf", switch_catalog_id, leaves, "Leaf", x=0, y=0, tier="leaf")
        su.links.append(Link("l1", "nodes", "leaf", "scale-out", speed_gbit_s, nodes_in_su * e,
                             NODE_LEAF_M, medium))
        return su

    def add_sus(block: Block, su_sizes: list[int], y: float) -> list[str]:
        ids = []
        for n, (size, count) in enumerate(group_counts(su_sizes)):
            su_id = "su" if n == 0 else f"su-{size}"
            block.children[su_id] = make_su(size, su_id, count, n * step, y)
            ids.append(su_id)
        return ids

    if plan.tiers == 2:
        su_ids = add_sus(root, plan.sus, 200.0)
        root.children["spine"] = Node("spine", switch_catalog_id, plan.spines, "Spine",
                                      x=(len(su_ids) - 1) * step / 2, y=0, tier="spine")
        for n, su_id in enumerate(su_ids):
            su = root.children[su_id]
            leaves = su.children["leaf"].count * su.count
            root.links.append(Link(f"l{n + 1}", f"{su_id}/leaf", "spine", "scale-out", up_speed,
                                   leaves * plan.leaf_up, LEAF_SPINE_M, medium))
        return

    pod_ratio = plan.spine_down / plan.spine_up
    pods = group_counts([tuple(p) for p in plan.pods])  # type: ignore[misc]
    pod_ids = []
    for n, (pod_sus, count) in enumerate(pods):
        pod_id = "pod" if n == 0 else f"pod-{n + 1}"
        pod = Block(pod_id, "Pod" if count > 1 else f"Pod ({sum(pod_sus)} nodes)", count=count,
                    x=n * step, y=200.0, role="pod")
        su_ids = add_sus(pod, list(pod_sus), 200.0)
        leaves = sum(_su_leaves(s, e, plan.leaf_down) for s in pod_sus)
        spines = spine_count(leaves, plan.leaf_up, plan.spine_down)
        core_links = min(spines * plan.spine_up,
                         math.ceil(leaves * plan.leaf_up / pod_ratio))
        pod.children["spine"] = Node("spine", switch_catalog_id, spines, "Spine",
                                     x=(len(su_ids) - 1) * step / 2, y=0, tier="spine")
        for m, su_id in enumerate(su_ids):
            su = pod.children[su_id]
            pod.links.append(Link(f"l{m + 1}", f"{su_id}/leaf", "spine", "scale-out", up_speed,
                                  su.children["leaf"].count * su.count * plan.leaf_up,
                                  LEAF_SPINE_M, medium))
        root.children[pod_id] = pod
        pod_ids.append((pod_id, core_links * count))
    root.children["core"] = Node("core", switch_catalog_id, plan.cores, "Core",
                                 x=(len(pod_ids) - 1) * step / 2, y=0, tier="core")
    for n, (pod_id, core_links) in enumerate(pod_ids):
        root.links.append(Link(f"l{n + 1}", f"{pod_id}/spine", "core", "scale-out", up_speed,
                               core_links, SPINE_CORE_M, medium))
