"""Optional storage fabric for generated designs: storage nodes on their own folded Clos.

The storage network is separate from the compute fabric, as in the DGX SuperPOD RA ("Compute,
storage, in-band and out-of-band are separate networks", topologies.md §1.3), with its own
switch type (``--storage-switch``; the compute switch by default). Each compute node attaches
with its DPU ports if it has DPUs (the server's north-south / storage NICs, e.g. 2 x
BlueField-3 on a DGX B200), else with two 200G ports (DGX H100: two dual-port ConnectX-7 for
storage and in-band; RA storage fabric >= 40 GB/s per node, hardware.md §7).

Compute and storage ports together are the fabric's endpoints, sized by ``plan_clos`` like the
compute fabric: two tiers while one spine layer reaches every leaf, three beyond (thousands of
storage nodes, article 003's >3,000-node global file system). Storage ports faster than the
fabric's link speed run at their own speed where the switch has ports of it (a 400G link
takes the share of the switch two 200G ports would), else they are split into links of the
fabric's speed (a 400G port as two 200G links), so each storage node keeps its bandwidth.

**Converged** (``add_converged_storage``; Sugon's scaleX puts storage on the one 400G RDMA
fabric, article 000): the storage nodes hang on leaves of the storage switch that join the
compute fabric's top tier - its spines in two tiers (the storage leaves are one more group of
leaves), its cores in three (with storage spines, one more pod). The top tier grows by the
switches their uplinks need; the compute servers reach storage over their compute NICs. The
storage leaves' uplinks run at the compute fabric's link speed.
"""

from __future__ import annotations

import dataclasses
import math

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import LEAF_SPINE_M, NODE_LEAF_M, SPINE_CORE_M, ClosPlan, plan_clos
from core.generators.media import require_matching_optics
from core.model import Block, Link, Node

DEFAULT_STORAGE_LINKS_PER_NODE = 2
DEFAULT_STORAGE_LINK_GBIT_S = 200.0


def _compute_groups(root: Block) -> list[tuple[str, int]]:
    """(path of every compute-node group, its units) for linking to the storage fabric."""
    out = []
    for path, node in root.iter_nodes():
        if path.endswith("nodes"):
            units = node.count
            parts = path.split("/")[:-1]
            block = root
            for part in parts:
                block = block.children[part]
                units *= block.count
            out.append((path, units))
    return out


def compute_storage_ports(server: ComponentSpec, catalog: Catalog) -> tuple[int, float]:
    """(ports, Gb/s per port) a compute node offers to the storage fabric: its DPUs' ports,
    else the default two 200G storage ports."""
    if server.dpu and server.dpus:
        dpu = catalog.require(server.dpu, "dpu")
        return int(server.dpus) * int(dpu.ports), float(dpu.port_gbit_s)
    return DEFAULT_STORAGE_LINKS_PER_NODE, DEFAULT_STORAGE_LINK_GBIT_S


def _storage_links(storage: ComponentSpec, switch: ComponentSpec,
                   fabric_gbit_s: float) -> tuple[int, float, float]:
    """(links per storage node, Gb/s per link, the share of a ``fabric_gbit_s`` port each
    link takes on ``switch``): the node's own ports at their own speed where the switch runs
    it, else split into links of the fabric's speed where the storage lists that mode. Any
    other pairing would be built invalid (links faster than the storage's ports, or more
    links than it has ports: issue 22), so it is refused."""
    ports = int(storage.ports)
    port_gbit_s = float(storage.port_gbit_s or fabric_gbit_s)
    at_own_speed = switch.port_count_at(port_gbit_s)
    if at_own_speed:
        return ports, port_gbit_s, switch.port_count_at(fabric_gbit_s) / at_own_speed
    split = math.ceil(port_gbit_s / fabric_gbit_s)
    if fabric_gbit_s < port_gbit_s and storage.port_count_at(fabric_gbit_s) >= ports * split:
        return ports * split, fabric_gbit_s, 1.0
    raise GeneratorError(
        f"{switch.id} has no {port_gbit_s:g} Gb/s ports for {storage.id}'s {ports} x "
        f"{port_gbit_s:g}G ports, and {storage.id} lists no {fabric_gbit_s:g}G mode to run "
        f"them at; pick a --storage-switch with {port_gbit_s:g}G ports")


def _storage_entry(catalog: Catalog, storage_id: str | None, storage_nodes: int,
                   switch: ComponentSpec) -> ComponentSpec:
    """The storage entry asked for, once the storage options make sense together."""
    if not storage_id:
        raise GeneratorError("--storage-nodes needs --storage STORAGE_ID")
    storage = catalog.require(storage_id, "storage")
    if storage_nodes < 1:
        raise GeneratorError(f"--storage-nodes must be positive, got {storage_nodes}")
    if switch.role != "scale-out":
        raise GeneratorError(f"--storage-switch {switch.id} is a scale-up switch; pick a scale-out switch")
    return storage


def add_storage(root: Block, catalog: Catalog, storage_id: str | None, storage_nodes: int,
                switch: ComponentSpec, compute_nodes: int, server: ComponentSpec,
                tiers: str | int = "auto") -> None:
    """Add ``storage_nodes`` x ``storage_id`` and their fabric of ``switch`` under ``root``,
    linked to every compute-node group of ``root``."""
    storage = _storage_entry(catalog, storage_id, storage_nodes, switch)
    per_node, speed = compute_storage_ports(server, catalog)
    radix = switch.port_count_at(speed)
    if radix == 0:
        # the switch cannot run the compute side's speed: its native ports, one per node port,
        # where they are slower (a downshift of the node's port); faster links than the DPU's
        # ports would be built invalid (LINK_FASTER_THAN_PORT), so that is refused
        if switch.native_port_gbit_s > speed and server.dpu and server.dpus:
            raise GeneratorError(
                f"{switch.id} has no {speed:g} Gb/s ports for {server.id}'s {speed:g}G "
                f"storage ports ({server.dpu}); pick a --storage-switch with {speed:g}G ports")
        speed = switch.native_port_gbit_s
        radix = switch.port_count_at(speed)
    storage_links, storage_gbit_s, port_share = _storage_links(storage, switch, speed)
    require_matching_optics(storage, switch, storage_gbit_s, catalog, scale_out=False)
    require_matching_optics(server, switch, speed, catalog, scale_out=False, length_m=LEAF_SPINE_M)
    endpoints = compute_nodes * per_node + math.ceil(storage_nodes * storage_links * port_share)
    try:
        plan = plan_clos(endpoints, 1, radix, tiers)
    except GeneratorError as exc:
        raise GeneratorError(f"the storage fabric of {endpoints:,} ports on {switch.id}: {exc}") from None
    fabric = Block("storage-fabric", "Storage fabric", x=-400.0, y=0.0, role="storage")
    fabric.children["storage"] = Node("storage", storage.id, storage_nodes, "Storage", x=0, y=160)
    fabric.children["leaf"] = Node("leaf", switch.id, plan.leaves, "Storage leaf", x=0, y=0,
                                   tier="storage-leaf")
    fabric.links.append(Link("s1", "storage", "leaf", "storage", storage_gbit_s,
                             storage_nodes * storage_links, NODE_LEAF_M))
    if plan.spines and plan.leaves > 1:
        fabric.children["spine"] = Node("spine", switch.id, plan.spines, "Storage spine", x=0,
                                        y=-160, tier="storage-spine")
        fabric.links.append(Link("s2", "leaf", "spine", "storage", speed,
                                 plan.leaves * plan.leaf_up, LEAF_SPINE_M))
    if plan.tiers == 3:
        fabric.children["core"] = Node("core", switch.id, plan.cores, "Storage core", x=0,
                                       y=-320, tier="storage-core")
        fabric.links.append(Link("s3", "spine", "core", "storage", speed,
                                 sum(plan.core_links_per_pod), SPINE_CORE_M))
    root.children["storage-fabric"] = fabric
    for n, (path, units) in enumerate(_compute_groups(root)):
        root.links.append(Link(f"st{n + 1}", path, "storage-fabric/leaf", "storage", speed,
                               units * per_node, LEAF_SPINE_M))


def add_converged_storage(root: Block, catalog: Catalog, storage_id: str | None,
                          storage_nodes: int, switch: ComponentSpec, plan: ClosPlan,
                          speed_gbit_s: float) -> None:
    """Add ``storage_nodes`` x ``storage_id`` on leaves of ``switch`` joined to the top tier of
    the compute fabric ``plan`` built under ``root`` with links of ``speed_gbit_s``."""
    storage = _storage_entry(catalog, storage_id, storage_nodes, switch)
    radix = switch.port_count_at(speed_gbit_s)
    if radix < 2:
        raise GeneratorError(
            f"--storage-switch {switch.id} has no {speed_gbit_s:g} Gb/s ports for the compute fabric")
    links, link_gbit_s, port_share = _storage_links(storage, switch, speed_gbit_s)
    require_matching_optics(storage, switch, link_gbit_s, catalog, scale_out=False)
    down = radix // 2                      # non-blocking storage leaves: half down, half up
    up = radix - down
    leaves = math.ceil(storage_nodes * links * port_share / down)
    fabric = Block("storage-fabric", "Storage (converged)", x=-400.0, y=0.0, role="storage")
    fabric.children["storage"] = Node("storage", storage.id, storage_nodes, "Storage", x=0, y=160)
    fabric.children["leaf"] = Node("leaf", switch.id, leaves, "Storage leaf", x=0, y=0,
                                   tier="storage-leaf")
    fabric.links.append(Link("s1", "storage", "leaf", "storage", link_gbit_s,
                             storage_nodes * links, NODE_LEAF_M))
    if plan.tiers == 2:
        top, top_links = "spine", leaves * up
        used = plan.leaves * plan.leaf_up
        uplink_from, length = "storage-fabric/leaf", LEAF_SPINE_M
    else:
        spines = math.ceil(leaves * up / down)
        fabric.children["spine"] = Node("spine", switch.id, spines, "Storage spine", x=0,
                                        y=-160, tier="storage-spine")
        fabric.links.append(Link("s2", "leaf", "spine", "storage", speed_gbit_s, leaves * up,
                                 LEAF_SPINE_M))
        top, top_links = "core", spines * up
        used = sum(plan.core_links_per_pod)
        uplink_from, length = "storage-fabric/spine", SPINE_CORE_M
    top_node = root.children[top]
    needed = math.ceil((used + top_links) / plan.radix)
    if top == "spine" and needed > max(top_node.count, plan.leaf_up):
        # a compute leaf joins every spine only while there are no more than its uplinks
        raise GeneratorError(
            f"converged storage needs {needed} spines but a compute leaf reaches only "
            f"{plan.leaf_up}; use --tiers 3 or --storage-fabric separate")
    if top == "core" and len(plan.pods) + 1 > plan.radix:
        raise GeneratorError(
            f"converged storage would be pod {len(plan.pods) + 1} of a core that joins at most "
            f"{plan.radix}; use --storage-fabric separate")
    root.children[top] = dataclasses.replace(top_node, count=max(top_node.count, needed))
    root.children["storage-fabric"] = fabric
    root.links.append(Link("st1", uplink_from, top, "storage", speed_gbit_s, top_links, length))
