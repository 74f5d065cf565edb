"""Fabric-manager appliances for generated InfiniBand fabrics (UFM).

The DGX SuperPOD H100 RA hangs 4 UFM appliances off compute-fabric leaves, one NDR 200G cable
each, and drops one DGX per 32-node scalable unit so the leaves have ports for them
(topologies.md §1.3 item 3, §2 Table 4: 252 = 248 + 4 compute-fabric cables at 1 SU). The
appliances take leaf ports and draw power; they carry no training traffic.
"""

from __future__ import annotations

import math

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import NODE_LEAF_M, ClosPlan
from core.model import Block, Link, Node

DEFAULT_APPLIANCE = "UFM-Appliance"


def _su_groups(root: Block) -> list[tuple[str, Block, int]]:
    """(path, block, instances in the design) of every scalable-unit block."""
    out = []
    for path, block in root.iter_blocks():
        if block.role != "su":
            continue
        instances = 1
        item = root
        for part in path.split("/"):
            item = item.children[part]
            instances *= item.count
        out.append((path, block, instances))
    return out


def _free_ports_per_leaf(su: Block, plan: ClosPlan) -> int:
    leaves = su.children["leaf"].count
    used = math.ceil(su.children["nodes"].count * plan.endpoints_per_node / leaves)
    return plan.leaf_down - used


def add_fabric_managers(root: Block, catalog: Catalog, plan: ClosPlan, switch: ComponentSpec,
                        count: int, appliance_id: str = DEFAULT_APPLIANCE) -> None:
    """Add ``count`` appliances cabled to the first scalable unit whose leaves have free ports."""
    if count < 0:
        raise GeneratorError(f"--ufm must not be negative, got {count}")
    if count == 0:
        return
    appliance = catalog.require(appliance_id, "appliance")
    speed = float(appliance.port_gbit_s)
    if switch.port_count_at(speed) == 0:
        raise GeneratorError(f"switch {switch.id} has no {speed:g} Gb/s ports for {appliance.id}")
    free = 0
    for path, su, instances in _su_groups(root):
        leaves = su.children["leaf"].count * instances
        per_leaf = _free_ports_per_leaf(su, plan)
        free = max(free, leaves * per_leaf)
        if math.ceil(count / leaves) <= per_leaf:
            root.children["ufm"] = Node("ufm", appliance.id, count, "Fabric managers (UFM)",
                                        x=-400.0, y=260.0)
            root.links.append(Link("ufm", "ufm", f"{path}/leaf", "scale-out", speed,
                                   count * int(appliance.ports), NODE_LEAF_M, "fiber"))
            return
    if free:
        raise GeneratorError(
            f"{count} {appliance.id} need {count} free leaf ports in one scalable unit; the "
            f"roomiest has {free}")
    raise GeneratorError(
        f"no free leaf ports for {count} {appliance.id}: every leaf's {plan.leaf_down} down "
        f"ports hold compute nodes (the DGX SuperPOD drops one node per scalable unit for them, "
        f"e.g. {plan.su_nodes - 1} instead of {plan.su_nodes} per SU)")
