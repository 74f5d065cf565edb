"""Flatten a hierarchical design into arrays the analyses can use at 100k+ GPUs.

Two levels of flattening:

* ``FlatDesign`` - one row per *node* of the design tree (a "group" of identical units) and one
  row per link bundle, with total multiplicities. Its size follows the drawing, not the GPU count.
* ``UnitGraph`` - one row per *unit* (a server, a switch) and one edge per cable, as numpy arrays
  (CSR-ready), built only when an analysis needs device-level connectivity. No Python object per
  device is created.

Wiring rule of a bundle: in each instance of the owning block, cable ``j`` of ``c`` joins unit
``j // (c / a_units)`` of end A with unit ``j % b_units`` of end B - every A unit gets an equal
share of cables, spread round-robin over the B units. This reproduces rail-optimised
server-to-leaf wiring and even leaf-to-spine spreading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.catalog import COMPUTE_KINDS, Catalog, ComponentSpec
from core.errors import DesignError
from core.limits import check_design_size
from core.model import Block, Design, Node


@dataclass(frozen=True)
class Group:
    path: str
    node: Node
    spec: ComponentSpec
    multiplicity: int       # total units in the design
    instances: tuple[int, ...]  # block-count chain from the root to the node's block


@dataclass(frozen=True)
class Bundle:
    link_id: str
    owner_path: str
    a: int                  # group index
    b: int
    kind: str
    speed_gbit_s: float
    cables: int             # total cables in the design
    owner_instances: int    # instances of the owning block
    length_m: float
    medium: str

    @property
    def capacity_gbit_s(self) -> float:
        return self.cables * self.speed_gbit_s


@dataclass(frozen=True)
class FlatDesign:
    name: str
    groups: tuple[Group, ...]
    bundles: tuple[Bundle, ...]
    index: dict[str, int] = field(repr=False)
    catalog: Catalog = field(repr=False, default=None)  # type: ignore[assignment]

    def group(self, path: str) -> Group:
        return self.groups[self.index[path]]

    @property
    def compute_groups(self) -> list[int]:
        return [i for i, g in enumerate(self.groups) if g.spec.kind in COMPUTE_KINDS]

    def gpus_per_unit(self, i: int) -> int:
        group = self.groups[i]
        return int(group.spec["accelerators"]) if group.spec.kind in COMPUTE_KINDS else 0

    @property
    def gpus(self) -> int:
        return sum(self.groups[i].multiplicity * self.gpus_per_unit(i) for i in self.compute_groups)

    def bundles_of(self, i: int) -> list[Bundle]:
        return [b for b in self.bundles if b.a == i or b.b == i]


def flatten(design: Design, catalog: Catalog) -> FlatDesign:
    """Multiply out block counts; resolve every link endpoint to a group."""
    check_design_size(design, catalog)  # refuse what would not fit before anything is expanded
    groups: list[Group] = []
    index: dict[str, int] = {}
    pending: list[tuple[str, int, object]] = []  # (owner path, owner instances, link)

    def walk(block: Block, prefix: str, chain: tuple[int, ...]) -> None:
        instances = 1
        for c in chain:
            instances *= c
        for link in block.links:
            pending.append((prefix.rstrip("/"), instances, link))
        for child_id, child in block.children.items():
            path = prefix + child_id
            if isinstance(child, Block):
                if child.count < 1:
                    raise DesignError(f"{path}: block count must be at least 1")
                walk(child, path + "/", chain + (child.count,))
                continue
            if child.count < 1:
                raise DesignError(f"{path}: count must be at least 1")
            if child.catalog_id not in catalog:
                raise DesignError(f"{path}: unknown component id {child.catalog_id!r}")
            spec = catalog.get(child.catalog_id)
            index[path] = len(groups)
            groups.append(Group(path, child, spec, child.count * instances, chain))

    walk(design.root, "", (design.root.count,))
    bundles: list[Bundle] = []
    for owner, instances, link in pending:
        ends = []
        for end in (link.a, link.b):
            full = f"{owner}/{end}" if owner else end
            if full not in index:
                raise DesignError(f"link {link.id} in {owner or 'design'}: no component at {end!r}")
            ends.append(index[full])
        bundles.append(
            Bundle(link.id, owner, ends[0], ends[1], link.kind, float(link.speed_gbit_s),
                   link.count * instances, instances, float(link.length_m), link.medium)
        )
    return FlatDesign(design.name, tuple(groups), tuple(bundles), index, catalog)


@dataclass(frozen=True)
class UnitGraph:
    """Device-level graph: units numbered group by group; edges one per cable."""

    offsets: np.ndarray       # offsets[g] = first unit of group g; offsets[-1] = total units
    unit_group: np.ndarray    # group index of each unit
    src: np.ndarray           # edge endpoints (unit indices)
    dst: np.ndarray
    edge_bundle: np.ndarray   # bundle index of each edge

    @property
    def units(self) -> int:
        return int(self.offsets[-1])


def bundle_edges(flat: FlatDesign, offsets: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit endpoints of every cable of bundle ``k`` (see the module docstring for the rule)."""
    bundle = flat.bundles[k]
    inst = bundle.owner_instances
    per_inst = bundle.cables // inst
    ga, gb = flat.groups[bundle.a], flat.groups[bundle.b]
    a_units = max(1, ga.multiplicity // inst)
    b_units = max(1, gb.multiplicity // inst)
    j = np.arange(per_inst, dtype=np.int64)
    share = max(1, -(-per_inst // a_units))
    local_a = np.minimum(j // share, a_units - 1)
    local_b = j % b_units
    base = np.arange(inst, dtype=np.int64)[:, None]
    src = offsets[bundle.a] + (base * a_units + local_a[None, :]).ravel()
    dst = offsets[bundle.b] + (base * b_units + local_b[None, :]).ravel()
    return src, dst


def unit_graph(flat: FlatDesign, kinds: tuple[str, ...] | None = None) -> UnitGraph:
    """Expand groups to units and bundles to cables (only bundles of ``kinds`` if given)."""
    sizes = np.array([g.multiplicity for g in flat.groups], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    unit_group = np.repeat(np.arange(len(flat.groups), dtype=np.int32), sizes)
    srcs, dsts, owners = [], [], []
    for k, bundle in enumerate(flat.bundles):
        if kinds is not None and bundle.kind not in kinds:
            continue
        s, d = bundle_edges(flat, offsets, k)
        srcs.append(s)
        dsts.append(d)
        owners.append(np.full(len(s), k, dtype=np.int32))
    empty = np.zeros(0, dtype=np.int64)
    return UnitGraph(
        offsets,
        unit_group,
        np.concatenate(srcs) if srcs else empty,
        np.concatenate(dsts) if dsts else empty,
        np.concatenate(owners) if owners else np.zeros(0, dtype=np.int32),
    )
