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
fabric's link speed are split into several links of that speed (a 400G port on 200G links is
two of them), so each storage node keeps its bandwidth.
"""

from __future__ import annotations

import math

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import LEAF_SPINE_M, NODE_LEAF_M, SPINE_CORE_M, plan_clos
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
    if server.get("dpu") and server.get("dpus"):
        dpu = catalog.require(server["dpu"], "dpu")
        return int(server["dpus"]) * int(dpu["ports"]), float(dpu["port_gbit_s"])
    return DEFAULT_STORAGE_LINKS_PER_NODE, DEFAULT_STORAGE_LINK_GBIT_S


def add_storage(root: Block, catalog: Catalog, storage_id: str | None, storage_nodes: int,
                switch: ComponentSpec, compute_nodes: int, server: ComponentSpec,
                tiers: str | int = "auto") -> None:
    """Add ``storage_nodes`` x ``storage_id`` and their fabric of ``switch`` under ``root``,
    linked to every compute-node group of ``root``."""
    if not storage_id:
        raise GeneratorError("--storage-nodes needs --storage STORAGE_ID")
    storage = catalog.require(storage_id, "storage")
    if storage_nodes < 1:
        raise GeneratorError(f"--storage-nodes must be positive, got {storage_nodes}")
    if switch["role"] != "scale-out":
        raise GeneratorError(f"--storage-switch {switch.id} is a scale-up switch; pick a scale-out switch")
    per_node, speed = compute_storage_ports(server, catalog)
    radix = switch.port_count_at(speed)
    if radix == 0:
        # the switch cannot run the compute side's speed: its native ports, one per node port
        speed = switch.native_port_gbit_s
        radix = switch.port_count_at(speed)
    storage_port_gbit_s = float(storage.get("port_gbit_s") or speed)
    storage_links_per_node = int(storage["ports"]) * max(1, math.ceil(storage_port_gbit_s / speed))
    endpoints = compute_nodes * per_node + storage_nodes * storage_links_per_node
    try:
        plan = plan_clos(endpoints, 1, radix, tiers)
    except GeneratorError as exc:
        raise GeneratorError(f"the storage fabric of {endpoints:,} ports on {switch.id}: {exc}") from None
    fabric = Block("storage-fabric", "Storage fabric", x=-400.0, y=0.0, role="storage")
    fabric.children["storage"] = Node("storage", storage.id, storage_nodes, "Storage", x=0, y=160)
    fabric.children["leaf"] = Node("leaf", switch.id, plan.leaves, "Storage leaf", x=0, y=0,
                                   tier="storage-leaf")
    fabric.links.append(Link("s1", "storage", "leaf", "storage", speed,
                             storage_nodes * storage_links_per_node, NODE_LEAF_M))
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
