"""``generate fat-tree``: a compute fabric of servers on a folded Clos (DESIGN.md options)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from core.catalog import COMPUTE_KINDS, Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import build_clos_blocks, plan_clos
from core.generators.management import add_fabric_managers
from core.generators.storage import add_converged_storage, add_storage
from core.model import Block, Design


@dataclass(frozen=True)
class FatTreeOptions:
    gpus: int
    server: str
    switch: str
    tiers: str | int = "auto"
    oversubscription: float = 1.0
    island_gpus: int | None = None
    island_oversubscription: float = 1.0
    storage: str | None = None
    storage_nodes: int = 0
    storage_switch: str | None = None  # the storage fabric's switch (default: ``switch``)
    storage_fabric: str = "separate"   # or "converged": storage on the compute fabric
    ufm_appliances: int = 0
    name: str | None = None


def scale_out_endpoints(spec: ComponentSpec, catalog: Catalog) -> tuple[int, float]:
    """(ports, Gb/s per port) a compute node offers to the compute fabric."""
    if not spec.get("nic") or not spec.get("nics"):
        raise GeneratorError(f"{spec.id} has no scale-out NICs in the catalog")
    nic = catalog.get(spec["nic"])
    return int(spec["nics"]) * int(nic["ports"]), float(nic["port_gbit_s"])


def switch_radix(switch: ComponentSpec, speed_gbit_s: float) -> int:
    radix = switch.port_count_at(speed_gbit_s)
    if radix == 0:
        offered = ", ".join(f"{c}x{s}G" for s, c in switch["ports_by_gbit_s"].items())
        raise GeneratorError(
            f"switch {switch.id} has no {speed_gbit_s:g} Gb/s ports (offers {offered})"
        )
    return radix


def generate_fat_tree(options: FatTreeOptions, catalog: Catalog) -> Design:
    server = catalog.require(options.server, *COMPUTE_KINDS)
    switch = catalog.require(options.switch, "switch")
    if switch["role"] != "scale-out":
        raise GeneratorError(f"{switch.id} is a scale-up switch; pick a scale-out switch")
    gpus_per_node = int(server["accelerators"])
    if options.gpus < 1:
        raise GeneratorError(f"--gpus must be positive, got {options.gpus}")
    if options.gpus % gpus_per_node:
        raise GeneratorError(
            f"{options.gpus} GPUs is not a multiple of the {gpus_per_node} GPUs per {server.id}"
        )
    nodes = options.gpus // gpus_per_node
    endpoints, speed = scale_out_endpoints(server, catalog)
    radix = switch_radix(switch, speed)
    pod_nodes = None
    if options.island_gpus is not None:
        if options.island_gpus < gpus_per_node or options.island_gpus % gpus_per_node:
            raise GeneratorError(
                f"--island-gpus {options.island_gpus} must be a positive multiple of {gpus_per_node}"
            )
        pod_nodes = options.island_gpus // gpus_per_node
    tiers = options.tiers if options.tiers == "auto" else int(options.tiers)
    plan = plan_clos(nodes, endpoints, radix, tiers, options.oversubscription, pod_nodes,
                     options.island_oversubscription)
    name = options.name or f"{options.gpus:,} x {server.id} on {switch.id} ({plan.tiers}-tier)"
    root = Block("root", name)
    build_clos_blocks(plan, server.id, switch.id, speed, root)
    add_fabric_managers(root, catalog, plan, switch, options.ufm_appliances)
    if options.storage or options.storage_nodes:
        storage_switch = (catalog.require(options.storage_switch, "switch")
                          if options.storage_switch else switch)
        if options.storage_fabric == "converged":
            add_converged_storage(root, catalog, options.storage, options.storage_nodes,
                                  storage_switch, plan, speed)
        elif options.storage_fabric == "separate":
            add_storage(root, catalog, options.storage, options.storage_nodes, storage_switch,
                        nodes, server)
        else:
            raise GeneratorError(
                f"--storage-fabric must be separate or converged, got {options.storage_fabric!r}")
    metadata = {
        "generator": "fat-tree",
        "options": {k: v for k, v in asdict(options).items() if v is not None},
        "rail_optimized": endpoints == gpus_per_node,
        "switches_by_tier": plan.switches_by_tier,
    }
    return Design(name, root, metadata=metadata)
