"""Multi-plane and rail-only scale-out fabrics (``--planes N``, ``--rail-only``).

**Planes.** N independent folded-Clos planes that are never joined at the top (DeepSeek's
multi-plane fat-tree, NVIDIA's ConnectX-8/Spectrum-X multi-plane designs, Alibaba HPN's dual
plane; docs/reference/planes.md). A server's scale-out endpoints are divided evenly
among the planes: with one port per NIC and as many NICs as planes every GPU-NIC pair has its
own plane; a NIC that runs its cage as k ports of S/k (ConnectX-8: 1 x 800G, 2 x 400G or
4 x 200G) can put one port on each of k planes. Each plane is sized by ``plan_clos`` on its own
share of the endpoints and stored ONCE, as a block with count N (the way scalable units and
pods are repeated), so a 1,000,000-GPU design stays a few dozen drawn items.

Layout (why it is shaped this way: a link bundle is wired round-robin within one instance of
the block that owns it, core/flatten.py, so the block tree must make that rule produce the
real cabling):

* 2 tiers: ``nodes`` at the root, ``plane`` (count N) holding the plane's ``leaf`` and
  ``spine`` switches; the root bundle ``plane/leaf -> nodes``. A plane's leaves are numbered
  rail-major (leaf ``l * SUs + i`` is rail ``l`` of scalable unit ``i``), so the round-robin
  rule sends each leaf's cables to the servers of its own SU: the unit graph is the real one.
* 3 tiers: ``pod`` blocks each holding their ``nodes`` and a ``plane`` block (count N) with the
  pod's leaves and spines of that plane; ``core-plane`` (count N) holds each plane's core
  switches. The spine-to-core bundle is owned by the root: the plane's counts and capacities
  are exact, but its cables are spread over the core switches of every plane (the unit graph
  joins planes at the core). No analysis reads that wiring: domains stop below the core tier
  and bisection, bandwidth, hops and the BOM are counted per group.

A partial scalable unit (nodes not a multiple of the SU size) gets its own ``partial-nodes``
and ``partial-leaf`` groups so each bundle stays regular.

**Rail-only** (Wang et al., "Rail-only: a low-cost high-performance network for training LLMs
with trillion parameters", 2023/2024): no spine at all. Endpoint r of every server (its rail)
is cabled to the one switch of rail r; traffic between rails crosses the scale-up domain
(NVLink) first. One switch per rail reaches at most its radix of servers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import (
    LEAF_SPINE_M, NODE_LEAF_M, SPINE_CORE_M, ClosPlan, group_counts, leaves_for_su, spine_count)
from core.model import PLANE_ROLE, RAIL_ROLE, Block, Link, Node

MAX_PLANES = 64  # more planes than any NIC has ports: refused before anything is sized


@dataclass(frozen=True)
class PlaneChoice:
    """How a server's NICs are run and divided among the planes."""

    planes: int
    gbit_s: float            # port speed of the chosen NIC mode (and of every plane's links)
    ports_per_nic: int       # ports of one NIC in that mode
    nics: int
    nic_id: str

    @property
    def endpoints_per_node(self) -> int:
        return self.nics * self.ports_per_nic

    @property
    def per_plane_endpoints(self) -> int:
        return self.endpoints_per_node // self.planes

    @property
    def nic_spans_planes(self) -> bool:
        """Every NIC has a port on every plane (so a plane lost costs each GPU 1/N, not its NIC)."""
        return self.ports_per_nic % self.planes == 0

    def to_json(self) -> dict:
        return {"planes": self.planes, "gbit_s": self.gbit_s, "ports_per_nic": self.ports_per_nic,
                "nics_per_node": self.nics, "nic": self.nic_id,
                "per_plane_endpoints_per_node": self.per_plane_endpoints,
                "nic_spans_planes": self.nic_spans_planes}


def _server_nic(server: ComponentSpec, catalog: Catalog) -> tuple[ComponentSpec, int]:
    if not server.nic or not server.nics:
        raise GeneratorError(f"{server.id} has no scale-out NICs in the catalog")
    return catalog.get(server.nic), int(server.nics)


def _offered(switch: ComponentSpec) -> str:
    return ", ".join(f"{c}x{s}G" for s, c in switch.ports_by_gbit_s.items())


def _nic_modes(nic: ComponentSpec, switch: ComponentSpec) -> tuple[list, list]:
    """The NIC's (speed, ports) modes, fastest first, and those ``switch`` has ports for."""
    modes = sorted(((float(speed), int(count)) for speed, count in nic.port_modes().items()),
                   reverse=True)
    return modes, [(s, p) for s, p in modes if switch.port_count_at(s) > 0]


def choose_plane_mode(server: ComponentSpec, catalog: Catalog, switch: ComponentSpec,
                      planes: int) -> PlaneChoice:
    """The NIC mode for ``planes`` planes on ``switch``.

    Among the modes the switch also offers at that speed, prefer one where every NIC puts a
    port on every plane (a plane lost then costs each GPU 1/N of its bandwidth instead of
    cutting some GPUs' NICs off), then any mode whose endpoints divide evenly among the
    planes; the fastest such mode first (fewer cables and optics for the same bandwidth).
    """
    if not 1 <= planes <= MAX_PLANES:
        raise GeneratorError(f"--planes must be between 1 and {MAX_PLANES}, got {planes}")
    nic, nics = _server_nic(server, catalog)
    modes, served = _nic_modes(nic, switch)
    if not served:
        raise GeneratorError(
            f"switch {switch.id} ({_offered(switch)}) offers none of {nic.id}'s port speeds "
            f"({', '.join(f'{p}x{s:g}G' for s, p in modes)})")
    spanning = [(s, p) for s, p in served if p % planes == 0]
    dividing = [(s, p) for s, p in served if (nics * p) % planes == 0]
    chosen = (spanning or dividing or [None])[0]
    if chosen is None:
        counts = sorted({nics * p for _, p in served})
        raise GeneratorError(
            f"--planes {planes} does not divide {server.id}'s scale-out endpoints: {nics} x "
            f"{nic.id} give {' or '.join(map(str, counts))} ports at the speeds {switch.id} "
            f"offers; use a divisor of {counts[-1]}")
    speed, ports = chosen
    return PlaneChoice(planes, speed, ports, nics, nic.id)


def choose_rail_mode(server: ComponentSpec, catalog: Catalog, switch: ComponentSpec,
                     nodes: int) -> PlaneChoice:
    """The NIC mode for a rail-only fabric: one switch per rail must take every server, so the
    fastest mode whose switch radix reaches ``nodes`` servers."""
    nic, nics = _server_nic(server, catalog)
    modes, served = _nic_modes(nic, switch)
    if not served:
        raise GeneratorError(
            f"switch {switch.id} ({_offered(switch)}) offers none of {nic.id}'s port speeds")
    fits = [(s, p) for s, p in served if switch.port_count_at(s) >= nodes]
    if not fits:
        widest = max(switch.port_count_at(s) for s, _ in served)
        raise GeneratorError(
            f"a rail-only fabric has one {switch.id} per rail, which reaches at most {widest} "
            f"servers; {nodes} {server.id} need a spine (drop --rail-only) or planes (--planes)")
    speed, ports = fits[0]
    return PlaneChoice(nics * ports, speed, ports, nics, nic.id)


def _class_ids(full: bool) -> tuple[str, str]:
    """(node group id, leaf group id) of an SU size class: the full SUs, then a partial one."""
    return ("nodes", "leaf") if full else ("partial-nodes", "partial-leaf")


def _add_unit(owner: Block, su_sizes: list[int], plan: ClosPlan, choice: PlaneChoice,
              node_id: str, switch_id: str, spines: int) -> Block:
    """Servers of ``su_sizes`` in ``owner``, and a ``plane`` block (count N) with their leaves
    and ``spines`` spines of one plane, cabled as the module docstring says."""
    q = plan.endpoints_per_node
    n = choice.planes
    plane = Block(PLANE_ROLE, "Plane", count=n, x=0.0, y=0.0, role=PLANE_ROLE)
    step = 260.0
    for index, (size, count) in enumerate(group_counts(su_sizes)):
        node_gid, leaf_gid = _class_ids(size == plan.su_nodes)
        leaves = leaves_for_su(plan, size)
        owner.children[node_gid] = Node(node_gid, node_id, size * count,
                                        "Compute nodes" if index == 0 else f"Compute nodes ({size}-node SU)",
                                        x=index * step, y=260.0)
        plane.children[leaf_gid] = Node(leaf_gid, switch_id, leaves * count, "Leaf",
                                        x=index * step, y=120.0, tier="leaf")
        if spines:
            plane.links.append(Link(f"l{index + 1}", leaf_gid, "spine", "scale-out", choice.gbit_s,
                                    leaves * count * plan.leaf_up, LEAF_SPINE_M))
        # Leaf side first: the round-robin rule then gives each leaf the servers of its own SU.
        owner.links.append(Link(f"p{index + 1}", f"{PLANE_ROLE}/{leaf_gid}", node_gid, "scale-out",
                                choice.gbit_s, size * count * q * n, NODE_LEAF_M))
    if spines:
        plane.children["spine"] = Node("spine", switch_id, spines, "Spine", x=0.0, y=0.0,
                                       tier="spine")
    owner.children[PLANE_ROLE] = plane
    return plane


def build_plane_blocks(plan: ClosPlan, choice: PlaneChoice, node_id: str, switch_id: str,
                       root: Block) -> None:
    """Add ``plan`` (one plane's Clos) as N planes sharing the servers into ``root``."""
    if plan.tiers == 2:
        _add_unit(root, plan.sus, plan, choice, node_id, switch_id, plan.spines)
        return
    pod_ratio = plan.spine_down / plan.spine_up
    step = 320.0
    core_links = []
    for n, (pod_sus, count) in enumerate(group_counts([tuple(p) for p in plan.pods])):
        pod_id = "pod" if n == 0 else f"pod-{n + 1}"
        pod = Block(pod_id, "Pod" if count > 1 else f"Pod ({sum(pod_sus)} nodes)", count=count,
                    x=n * step, y=240.0, role="pod")
        leaves = sum(leaves_for_su(plan, s) for s in pod_sus)
        spines = spine_count(leaves, plan.leaf_up, plan.spine_down)
        _add_unit(pod, list(pod_sus), plan, choice, node_id, switch_id, spines)
        # as build_clos_blocks: the pod's uplink capacity over the island ratio, at most its ports
        per_plane = min(spines * plan.spine_up, math.ceil(leaves * plan.leaf_up / pod_ratio))
        core_links.append((pod_id, per_plane * count * choice.planes))
        root.children[pod_id] = pod
    cores = Block("core-plane", "Core plane", count=choice.planes,
                  x=(len(core_links) - 1) * step / 2, y=0.0, role=PLANE_ROLE)
    cores.children["core"] = Node("core", switch_id, plan.cores, "Core", x=0.0, y=0.0, tier="core")
    root.children["core-plane"] = cores
    for n, (pod_id, cables) in enumerate(core_links):
        root.links.append(Link(f"c{n + 1}", f"{pod_id}/{PLANE_ROLE}/spine", "core-plane/core",
                               "scale-out", choice.gbit_s, cables, SPINE_CORE_M))


def build_rail_blocks(nodes: int, choice: PlaneChoice, node_id: str, switch_id: str,
                      root: Block) -> None:
    """``nodes`` servers and one switch per rail (endpoint index), no spine."""
    rails = choice.endpoints_per_node
    root.children["nodes"] = Node("nodes", node_id, nodes, "Compute nodes", x=0.0, y=260.0)
    rail = Block(RAIL_ROLE, "Rail", count=rails, x=0.0, y=0.0, role=RAIL_ROLE)
    rail.children["switch"] = Node("switch", switch_id, 1, "Rail switch", x=0.0, y=0.0,
                                   tier="leaf")
    root.children[RAIL_ROLE] = rail
    # Switch side first: rail r's switch takes endpoint r of every server.
    root.links.append(Link("r1", f"{RAIL_ROLE}/switch", "nodes", "scale-out", choice.gbit_s,
                           nodes * rails, NODE_LEAF_M))
