"""Optional storage fabric for generated designs: storage nodes and their own leaf/spine switches.

The storage network is separate from the compute fabric, as in the DGX SuperPOD RA ("Compute,
storage, in-band and out-of-band are separate networks", topologies.md §1.3). Each compute node
attaches with its DPU ports if it has DPUs, else with two 200G ports (DGX H100: two dual-port
ConnectX-7 for storage and in-band; RA storage fabric >= 40 GB/s per node, hardware.md §7).
"""

from __future__ import annotations

import math

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
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


def add_storage(root: Block, catalog: Catalog, storage_id: str | None, storage_nodes: int,
                switch: ComponentSpec, compute_nodes: int, plan) -> None:
    if not storage_id:
        raise GeneratorError("--storage-nodes needs --storage STORAGE_ID")
    storage = catalog.require(storage_id, "storage")
    if storage_nodes < 1:
        raise GeneratorError(f"--storage-nodes must be positive, got {storage_nodes}")
    speed = DEFAULT_STORAGE_LINK_GBIT_S
    radix = switch.port_count_at(speed) or switch.port_count_at(switch.native_port_gbit_s)
    if switch.port_count_at(speed) == 0:
        speed = switch.native_port_gbit_s
    per_node = DEFAULT_STORAGE_LINKS_PER_NODE
    storage_ports = int(storage["ports"])
    endpoints = compute_nodes * per_node + storage_nodes * storage_ports
    down = radix // 2
    leaves = math.ceil(endpoints / down)
    spines = 0 if leaves == 1 else math.ceil(leaves * (radix - down) / radix)
    if leaves > radix:
        raise GeneratorError(
            f"the storage fabric needs {leaves} leaves, more than 2 tiers of {switch.id} allow"
        )
    fabric = Block("storage-fabric", "Storage fabric", x=-400.0, y=0.0, role="storage")
    fabric.children["storage"] = Node("storage", storage.id, storage_nodes, "Storage", x=0, y=160)
    fabric.children["leaf"] = Node("leaf", switch.id, leaves, "Storage leaf", x=0, y=0, tier="storage-leaf")
    fabric.links.append(Link("s1", "storage", "leaf", "storage", speed,
                             storage_nodes * storage_ports, 10.0))
    if spines:
        fabric.children["spine"] = Node("spine", switch.id, spines, "Storage spine", x=0, y=-160,
                                        tier="storage-spine")
        fabric.links.append(Link("s2", "leaf", "spine", "storage", speed,
                                 leaves * (radix - down), 30.0))
    root.children["storage-fabric"] = fabric
    for n, (path, units) in enumerate(_compute_groups(root)):
        root.links.append(Link(f"st{n + 1}", path, "storage-fabric/leaf", "storage", speed,
                               units * per_node, 30.0))
