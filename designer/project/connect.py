"""Sensible defaults for a link drawn between two components (the user edits them after).

Inputs only: kind, speed, cable count and length proposed from the catalog entries of the two
ends. No metric is derived here; the evaluator judges whatever the user settles on.
"""

from __future__ import annotations

from core.catalog import COMPUTE_KINDS, Catalog, ComponentSpec
from core.model import Block, Design, Link, Node

TIER_RANK = {"core": 3, "spine": 2, "leaf": 1}


def components_inside(design: Design, block_path: str, child_id: str) -> list[str]:
    """Paths (relative to ``block_path``) of the components a link to ``child_id`` may end on."""
    child = design.block(block_path).children[child_id]
    if isinstance(child, Node):
        return [child_id]
    return [f"{child_id}/{path}" for path, _ in child.iter_nodes()]


def preferred_endpoint(design: Design, catalog: Catalog, block_path: str, candidates: list[str]) -> str:
    """Of the components inside a block, the one an outside link most likely lands on:
    its top-tier scale-out switch (a SU's leaf, a pod's spine), else its first component."""
    def rank(rel: str) -> tuple[int, int]:
        node = _node(design, block_path, rel)
        spec = catalog.get(node.catalog_id) if node.catalog_id in catalog else None
        is_switch = spec is not None and spec.kind == "switch" and spec.role == "scale-out"
        return (1 if is_switch else 0, TIER_RANK.get(node.tier, 0))
    return max(candidates, key=rank)


def _node(design: Design, block_path: str, rel: str) -> Node:
    return design.node(f"{block_path}/{rel}" if block_path else rel)


def units(design: Design, block_path: str, rel: str) -> int:
    """Units of the component at ``rel`` per instance of the block at ``block_path``."""
    block = design.block(block_path)
    total = 1
    item: Node | Block = block
    for part in rel.split("/"):
        assert isinstance(item, Block)
        item = item.children[part]
        total *= item.count
    return total


def _offered_speed(spec: ComponentSpec, catalog: Catalog, kind: str) -> float | None:
    """Port speed of a fixed-speed end (NIC-attached node, storage, NIC); None for switches."""
    if spec.kind in COMPUTE_KINDS and kind == "scale-up":
        return float(spec.scale_up_port_gbit_s or 0) or None
    if spec.kind in COMPUTE_KINDS and spec.nic and spec.nic in catalog:
        return float(catalog.get(spec.nic).port_gbit_s)
    if spec.kind in ("storage", "nic", "dpu"):
        return float(spec.port_gbit_s)
    return None


def _ports(spec: ComponentSpec, catalog: Catalog, kind: str) -> int | None:
    if spec.kind in COMPUTE_KINDS and kind == "scale-up":
        return int(spec.scale_up_ports or 0) or None
    if spec.kind in COMPUTE_KINDS and spec.nic and spec.nics:
        return int(spec.nics) * int(catalog.get(spec.nic).ports)
    if spec.kind == "storage":
        return int(spec.ports)
    return None


def default_link(design: Design, catalog: Catalog, block_path: str, a: str, b: str) -> Link:
    nodes = [_node(design, block_path, a), _node(design, block_path, b)]
    specs = [catalog.get(n.catalog_id) for n in nodes]
    kind = "scale-out"
    if any(s.kind == "storage" for s in specs) or any(n.tier == "storage" for n in nodes):
        kind = "storage"
    elif any(s.kind == "switch" and s.role == "scale-up" for s in specs):
        kind = "scale-up"
    fixed = [s for s in (_offered_speed(x, catalog, kind) for x in specs) if s]
    if fixed:
        speed = min(fixed)
    else:
        speed = min(s.native_port_gbit_s for s in specs if s.kind == "switch") if any(
            s.kind == "switch" for s in specs) else 400.0
    unit_counts = [units(design, block_path, a), units(design, block_path, b)]
    cables = max(unit_counts)
    for spec, n in zip(specs, unit_counts):
        ports = _ports(spec, catalog, kind)
        if ports:
            cables = n * ports
            break
    edge = any(s.kind in COMPUTE_KINDS or s.kind == "storage" for s in specs)
    if kind == "scale-up":  # copper inside the rack (NVL72 spine cartridges, ~1-2 m)
        return Link("link", a, b, kind, float(speed), int(cables), 2.0, "copper")
    return Link("link", a, b, kind, float(speed), int(cables), 10.0 if edge else 30.0, "fiber")
