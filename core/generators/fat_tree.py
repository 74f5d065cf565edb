"""``generate fat-tree``: a compute fabric of servers on a folded Clos (DESIGN.md options)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from core.catalog import COMPUTE_KINDS, Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import ClosPlan, build_clos_blocks, plan_clos
from core.generators.management import add_fabric_managers
from core.generators.media import require_matching_optics
from core.generators.planes import (
    build_plane_blocks, build_rail_blocks, choose_plane_mode, choose_rail_mode)
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
    planes: int = 1          # independent Clos planes sharing the servers (core/generators/planes.py)
    rail_only: bool = False  # one switch per rail, no spine


def scale_out_endpoints(spec: ComponentSpec, catalog: Catalog) -> tuple[int, float]:
    """(ports, Gb/s per port) a compute node offers to the compute fabric."""
    if not spec.nic or not spec.nics:
        raise GeneratorError(f"{spec.id} has no scale-out NICs in the catalog")
    nic = catalog.get(spec.nic)
    return int(spec.nics) * int(nic.ports), float(nic.port_gbit_s)


def switch_radix(switch: ComponentSpec, speed_gbit_s: float) -> int:
    radix = switch.port_count_at(speed_gbit_s)
    if radix == 0:
        offered = ", ".join(f"{c}x{s}G" for s, c in switch.ports_by_gbit_s.items())
        raise GeneratorError(
            f"switch {switch.id} has no {speed_gbit_s:g} Gb/s ports (offers {offered})"
        )
    return radix


@dataclass(frozen=True)
class FabricPorts:
    """How a generated fabric uses its switch's ports: endpoint links at ``down_gbit_s``,
    ``down_per_port`` of them per leaf port, and switch-to-switch links at ``up_gbit_s``."""

    radix: int            # switch ports at up_gbit_s: the radix every tier is sized in
    down_gbit_s: float
    up_gbit_s: float
    down_per_port: int = 1

    @property
    def speed_ratio(self) -> float:
        return self.up_gbit_s / self.down_gbit_s


def fabric_port_choices(switch: ComponentSpec, endpoint_gbit_s: float) -> list[FabricPorts]:
    """The ways to run ``switch`` for endpoints at ``endpoint_gbit_s``, best first.

    Endpoints slower than the switch's native ports take a breakout (or downshift) of the
    leaf's ports; the switch-to-switch tiers run at the native speed first (a 2x breakout's
    uplinks need half the cables and modules at the speed the ports were built for), else at
    the endpoint speed too, whose larger radix reaches more endpoints in the same tiers.
    """
    at_endpoint = FabricPorts(switch_radix(switch, endpoint_gbit_s), endpoint_gbit_s,
                              endpoint_gbit_s)
    native_gbit_s = switch.native_port_gbit_s
    if native_gbit_s <= endpoint_gbit_s:
        return [at_endpoint]
    native = switch.port_count_at(native_gbit_s)
    if at_endpoint.radix % native:  # not a whole number of links per port: no clean breakout
        return [at_endpoint]
    return [FabricPorts(native, endpoint_gbit_s, native_gbit_s, at_endpoint.radix // native),
            at_endpoint]


def plan_fabric(nodes: int, endpoints_per_node: int, switch: ComponentSpec,
                endpoint_gbit_s: float, tiers: str | int = "auto", oversubscription: float = 1.0,
                pod_nodes: int | None = None, pod_oversubscription: float = 1.0,
                ) -> tuple[ClosPlan, FabricPorts]:
    """The Clos plan of the first port choice (fabric_port_choices) that needs the fewest
    tiers: native-speed uplinks unless they cost a tier the endpoint speed's radix saves."""
    best: tuple[ClosPlan, FabricPorts] | None = None
    error: GeneratorError | None = None
    for ports in fabric_port_choices(switch, endpoint_gbit_s):
        try:
            plan = plan_clos(nodes, endpoints_per_node, ports.radix, tiers, oversubscription,
                             pod_nodes, pod_oversubscription, down_per_port=ports.down_per_port,
                             speed_ratio=ports.speed_ratio)
        except GeneratorError as problem:
            error = problem  # the last choice reaches furthest: its message says the limit
            continue
        if best is None or plan.tiers < best[0].tiers:
            best = (plan, ports)
    if best is None:
        raise error  # type: ignore[misc]
    return best


def port_metadata(ports: FabricPorts) -> dict:
    """The link speeds a generator chose, for the project's metadata (and the user)."""
    return {"link_gbit_s": {"endpoint": ports.down_gbit_s, "switch": ports.up_gbit_s},
            "endpoint_links_per_port": ports.down_per_port}


def generate_fat_tree(options: FatTreeOptions, catalog: Catalog) -> Design:
    server = catalog.require(options.server, *COMPUTE_KINDS)
    switch = catalog.require(options.switch, "switch")
    if switch.role != "scale-out":
        raise GeneratorError(f"{switch.id} is a scale-up switch; pick a scale-out switch")
    gpus_per_node = int(server.accelerators)
    if options.gpus < 1:
        raise GeneratorError(f"--gpus must be positive, got {options.gpus}")
    if options.gpus % gpus_per_node:
        raise GeneratorError(
            f"{options.gpus} GPUs is not a multiple of the {gpus_per_node} GPUs per {server.id}"
        )
    nodes = options.gpus // gpus_per_node
    if options.rail_only or options.planes != 1:
        return _generate_planes(options, catalog, server, switch, nodes)
    endpoints, speed = scale_out_endpoints(server, catalog)
    require_matching_optics(server, switch, speed, catalog)
    plan, ports = plan_fabric(nodes, endpoints, switch, speed, _tiers(options),
                              options.oversubscription, _island_nodes(options, gpus_per_node),
                              options.island_oversubscription)
    name = options.name or f"{options.gpus:,} x {server.id} on {switch.id} ({plan.tiers}-tier)"
    root = Block("root", name)
    build_clos_blocks(plan, server.id, switch.id, speed, root, up_speed_gbit_s=ports.up_gbit_s)
    add_fabric_managers(root, catalog, plan, switch, options.ufm_appliances)
    if options.storage or options.storage_nodes:
        storage_switch = _storage_switch(options, catalog, switch)
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
        **port_metadata(ports),
    }
    return Design(name, root, metadata=metadata)


def _island_nodes(options: FatTreeOptions, gpus_per_node: int) -> int | None:
    """Nodes per island (pod) of ``--island-gpus``, None without islands."""
    if options.island_gpus is None:
        return None
    if options.island_gpus < gpus_per_node or options.island_gpus % gpus_per_node:
        raise GeneratorError(
            f"--island-gpus {options.island_gpus} must be a positive multiple of {gpus_per_node}")
    return options.island_gpus // gpus_per_node


def _tiers(options: FatTreeOptions) -> str | int:
    return options.tiers if options.tiers == "auto" else int(options.tiers)


def _storage_switch(options: FatTreeOptions, catalog: Catalog, switch: ComponentSpec) -> ComponentSpec:
    """The storage fabric's switch: ``--storage-switch``, else the compute fabric's."""
    return catalog.require(options.storage_switch, "switch") if options.storage_switch else switch


def _generate_planes(options: FatTreeOptions, catalog: Catalog, server: ComponentSpec,
                     switch: ComponentSpec, nodes: int) -> Design:
    """``--planes N`` / ``--rail-only``: the servers shared by N planes (or rails), each plane
    sized like a whole fabric on its share of the endpoints (core/generators/planes.py)."""
    if options.ufm_appliances:
        raise GeneratorError("--ufm is not supported with --planes or --rail-only")
    if options.rail_only:
        if options.planes != 1:
            raise GeneratorError("--rail-only already gives every rail its own switch; drop --planes")
        if options.island_gpus is not None or options.oversubscription != 1.0 or options.tiers not in ("auto", 1, "1"):
            raise GeneratorError("--rail-only has one tier: no --tiers, --oversubscription or islands")
        choice = choose_rail_mode(server, catalog, switch, nodes)
        plan = None
        by_tier = {"leaf": choice.planes}
    else:
        choice = choose_plane_mode(server, catalog, switch, options.planes)
        plan = plan_clos(nodes, choice.per_plane_endpoints, switch_radix(switch, choice.gbit_s),
                         _tiers(options), options.oversubscription,
                         _island_nodes(options, int(server.accelerators)),
                         options.island_oversubscription)
        by_tier = {tier: n * choice.planes for tier, n in plan.switches_by_tier.items()}
    require_matching_optics(server, switch, choice.gbit_s, catalog)
    shape = ("rail-only" if options.rail_only
             else f"{choice.planes} planes x {plan.tiers}-tier at {choice.gbit_s:g}G")
    name = options.name or f"{options.gpus:,} x {server.id} on {switch.id} ({shape})"
    root = Block("root", name)
    if plan is None:
        build_rail_blocks(nodes, choice, server.id, switch.id, root)
    else:
        build_plane_blocks(plan, choice, server.id, switch.id, root)
    if options.storage or options.storage_nodes:
        if options.storage_fabric != "separate":
            # converged storage joins the compute fabric's top tier; planes have no shared top
            raise GeneratorError("--planes and --rail-only take storage on its own fabric only "
                                 "(--storage-fabric separate)")
        storage_switch = _storage_switch(options, catalog, switch)
        add_storage(root, catalog, options.storage, options.storage_nodes, storage_switch, nodes,
                    server)
    metadata = {
        "generator": "fat-tree",
        "options": {k: v for k, v in asdict(options).items() if v is not None},
        "rail_optimized": True,
        "switches_by_tier": by_tier,
        "planes": choice.to_json(),
    }
    if plan is not None:
        metadata["switches_per_plane_by_tier"] = plan.switches_by_tier
    return Design(name, root, metadata=metadata)
