"""``generate supernode``: N super-nodes (every scale-up system of the catalog: GB200/GB300
NVL72, CloudMatrix384, ...) on a scale-out Clos, optionally of P independent planes.

The scale-up domain lives inside the super-node's catalog entry (72 or 384 accelerators, its
NVLink/UB switch chips); the generator joins the super-nodes' NICs with a rail-grouped folded
Clos (core/generators/clos.py), 3 tiers once 2 are not enough.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from core.catalog import Catalog
from core.errors import GeneratorError
from core.generators.clos import build_clos_blocks, plan_clos
from core.generators.fat_tree import plan_fabric, port_metadata, scale_out_endpoints, switch_radix
from core.generators.media import require_matching_optics
from core.generators.planes import (
    build_plane_blocks, build_rail_blocks, choose_plane_mode, choose_rail_mode)
from core.model import Block, Design, Link, Node

# The default scale-out switch, by the speed of the system's NIC ports: NVIDIA's reference
# fabrics (GB200 NVL72's 400G ConnectX-7 on Quantum-2 QM9700, shared/reference/topologies.md;
# GB300 NVL72's 800G ConnectX-8 on Quantum-X800 Q3400, docs/reference/hardware-2025-26.md
# [NV-RA], P/S) and Tomahawk 6, the one 1.6T switch of the catalog, for ConnectX-9. A speed not
# listed takes the first of these with ports at that speed.
DEFAULT_SWITCHES = {400.0: "QM9700", 800.0: "Q3400", 1600.0: "TH6"}


def default_switch(system, catalog: Catalog) -> str:
    """The switch ``generate supernode`` uses without ``--switch``: one whose ports run at the
    system's NIC speed (a GB300 NVL72's 800G ConnectX-8 on Q3400, not on 400G QM9700)."""
    if not system.nic or system.nic not in catalog:
        raise GeneratorError(f"{system.id} has no scale-out NICs in the catalog")
    gbit_s = catalog.get(system.nic).native_port_gbit_s
    preferred = DEFAULT_SWITCHES.get(gbit_s)
    if preferred in catalog:
        return preferred
    fallback = [s for s in DEFAULT_SWITCHES.values()
                if s in catalog and catalog.get(s).port_count_at(gbit_s)]
    if not fallback:
        raise GeneratorError(f"no default switch has {gbit_s:g}G ports for {system.id}'s NICs; "
                             f"pick one with --switch")
    return fallback[0]


@dataclass(frozen=True)
class SupernodeOptions:
    system: str
    count: int
    switch: str | None = None
    name: str | None = None
    planes: int = 1  # independent scale-out planes between the super-nodes (core/generators/planes.py)
    rail_only: bool = False  # one switch per rail (NIC index of every system), no spine


def generate_supernode(options: SupernodeOptions, catalog: Catalog) -> Design:
    system = catalog.require(options.system, "supernode", "server")
    if options.count < 1:
        raise GeneratorError(f"--count must be positive, got {options.count}")
    name = options.name or f"{options.count} x {system.id}" + (
        " (rail-only)" if options.rail_only else
        f" ({options.planes} planes)" if options.planes != 1 else "")
    root = Block("root", name)
    metadata = {"generator": "supernode",
                "options": {k: v for k, v in asdict(options).items() if v is not None}}
    if options.count == 1 and options.switch is None and options.planes == 1 and not options.rail_only:
        root.children["nodes"] = Node("nodes", system.id, 1, system.name, x=0, y=0)
        return Design(name, root, metadata=metadata)
    switch = catalog.require(options.switch or default_switch(system, catalog), "switch")
    if switch.role != "scale-out":
        raise GeneratorError(f"{switch.id} is a scale-up switch; pick a scale-out switch")
    if options.rail_only:
        # Rail-only's own setting (Wang et al. 2024): large scale-up domains, one switch per rail
        if options.planes != 1:
            raise GeneratorError("--rail-only already gives every rail its own switch; drop --planes")
        choice = choose_rail_mode(system, catalog, switch, options.count)
        require_matching_optics(system, switch, choice.gbit_s, catalog)
        build_rail_blocks(options.count, choice, system.id, switch.id, root)
        metadata["switches_by_tier"] = {"leaf": choice.planes}
        metadata["planes"] = choice.to_json()
        return Design(name, root, metadata=metadata)
    if options.planes != 1:
        choice = choose_plane_mode(system, catalog, switch, options.planes)
        require_matching_optics(system, switch, choice.gbit_s, catalog)
        plan = plan_clos(options.count, choice.per_plane_endpoints, switch_radix(switch, choice.gbit_s))
        build_plane_blocks(plan, choice, system.id, switch.id, root)
        metadata["switches_by_tier"] = {t: n * choice.planes for t, n in plan.switches_by_tier.items()}
        metadata["switches_per_plane_by_tier"] = plan.switches_by_tier
        metadata["planes"] = choice.to_json()
        return Design(name, root, metadata=metadata)
    endpoints, speed = scale_out_endpoints(system, catalog)
    require_matching_optics(system, switch, speed, catalog)
    plan, ports = plan_fabric(options.count, endpoints, switch, speed)
    build_clos_blocks(plan, system.id, switch.id, speed, root, up_speed_gbit_s=ports.up_gbit_s)
    metadata["switches_by_tier"] = plan.switches_by_tier
    metadata.update(port_metadata(ports))
    return Design(name, root, metadata=metadata)


def nvl72_rack_from_parts(racks: int) -> Block:
    """``racks`` GB200 NVL72 racks drawn from their parts, as a user would on the canvas: 18
    compute trays cabled to 18 NVLink5 switch chips, one link per GPU to each chip
    (hardware.md §3). The NVLink domain then comes from the drawn links (core/topology.py),
    not from the GB200-NVL72 catalog entry."""
    parts = {
        "trays": Node("trays", "GB200-Compute-Tray", 18, "Compute trays", x=0.0, y=160.0),
        "nvlink": Node("nvlink", "NVLink5-Switch-Chip", 18, "NVLink switch chips", x=0.0, y=0.0)}
    return Block("rack", "NVL72 rack", count=racks, x=0.0, y=220.0, role="rack",
                 children=parts,
                 links=[Link("nvl", "trays", "nvlink", "scale-up", 400.0, 18 * 72, 2.0, "copper")])
