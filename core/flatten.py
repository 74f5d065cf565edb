"""Flatten a hierarchical design into arrays the analyses can use at 100k+ GPUs.

Two levels of flattening:

* ``FlatDesign`` - one row per *node* of the design tree (a "group" of identical units) and one
  row per link bundle, with total multiplicities. Its size follows the drawing, not the GPU count.
  The rows are numpy arrays, so a design whose 100,000 servers are each drawn on their own (an
  import from an inventory system, with a link per cable) costs array operations, not Python
  loops over groups times bundles.
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
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Any, Callable

import numpy as np

from core.catalog import COMPUTE_KINDS, Catalog, ComponentSpec
from core.errors import DesignError
from core.limits import check_design_size
from core.model import LINK_KINDS, MEDIA, Block, Design, Link, Node


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
class LinkBlock:
    """The links one block owns, as drawn: the source of a run of consecutive bundle rows."""

    owner_path: str
    instances: int          # instances of the block in the design
    links: list[Link]


class Codes(dict):
    """Small integer codes of hashable values: the ``known`` ones in their order, then every new
    value the next code as it is first looked up (``codes[value]``)."""

    def __init__(self, known: tuple = ()):
        super().__init__((value, code) for code, value in enumerate(known))

    def __missing__(self, key) -> int:
        self[key] = code = len(self)
        return code

    @property
    def names(self) -> tuple:
        return tuple(self)


@dataclass(frozen=True, eq=False)
class FlatDesign:
    """Groups (index ``i``) and bundles (index ``k``) as parallel arrays.

    ``groups`` and ``bundles`` give the same rows as objects, built on first use, for callers
    that want one row at a time; analyses use the arrays.
    """

    name: str
    catalog: Catalog = field(repr=False)
    index: dict[str, int] = field(repr=False)    # group path -> group index
    # --- groups ------------------------------------------------------------------------
    paths: tuple[str, ...] = field(repr=False)
    nodes: tuple[Node, ...] = field(repr=False)
    specs: tuple[ComponentSpec, ...] = field(repr=False)      # distinct specs of the design
    spec_row: np.ndarray = field(repr=False)                  # group -> row of ``specs``
    chains: tuple[tuple[int, ...], ...] = field(repr=False)   # block-count chain per group
    multiplicity: np.ndarray = field(repr=False)              # total units per group
    # the cooling its nearest enclosing block sets, per group ("" when none does)
    block_cooling: tuple[str, ...] = field(repr=False)
    # --- bundles -----------------------------------------------------------------------
    bundle_a: np.ndarray = field(repr=False)         # group index of end A
    bundle_b: np.ndarray = field(repr=False)
    kind_code: np.ndarray = field(repr=False)        # link kind, index into ``kind_names``
    kind_names: tuple[str, ...] = field(repr=False)
    speed_gbit_s: np.ndarray = field(repr=False)
    cables: np.ndarray = field(repr=False)           # total cables in the design
    owner_instances: np.ndarray = field(repr=False)  # instances of the owning block
    length_m: np.ndarray = field(repr=False)
    medium_code: np.ndarray = field(repr=False)      # index into ``medium_names``
    medium_names: tuple[str, ...] = field(repr=False)
    link_blocks: tuple[LinkBlock, ...] = field(repr=False)

    # --- per-group values -------------------------------------------------------------
    def per_group(self, value: Callable[[ComponentSpec], Any], dtype=float) -> np.ndarray:
        """``value(spec)`` for every group, evaluated once per distinct catalog entry."""
        return np.array([value(spec) for spec in self.specs], dtype=dtype)[self.spec_row]

    @cached_property
    def kind(self) -> np.ndarray:
        """Catalog kind of every group (object array of str)."""
        return self.per_group(lambda spec: spec.kind, dtype=object)

    @cached_property
    def is_compute(self) -> np.ndarray:
        return self.per_group(lambda spec: spec.kind in COMPUTE_KINDS, dtype=bool)

    @cached_property
    def gpus_per_group_unit(self) -> np.ndarray:
        """GPUs in one unit of every group (0 outside compute nodes)."""
        return self.per_group(
            lambda spec: int(spec.accelerators) if spec.kind in COMPUTE_KINDS else 0,
            dtype=np.int64)

    @cached_property
    def compute_groups(self) -> list[int]:
        return np.flatnonzero(self.is_compute).tolist()

    @cached_property
    def gpus(self) -> int:
        return int(np.dot(self.multiplicity, self.gpus_per_group_unit))

    def group_paths(self, groups: np.ndarray) -> tuple[str, ...]:
        """The paths of ``groups`` (an index or mask array), in that order."""
        return tuple(self._path_array[groups].tolist())

    @cached_property
    def _path_array(self) -> np.ndarray:
        return _objects(self.paths)

    # --- per-bundle values ------------------------------------------------------------
    @cached_property
    def capacity_gbit_s(self) -> np.ndarray:
        return self.cables * self.speed_gbit_s

    @cached_property
    def speed_values(self) -> np.ndarray:
        """The distinct link speeds of the design, ascending."""
        return np.unique(self.speed_gbit_s)

    @cached_property
    def speed_code(self) -> np.ndarray:
        """Index of every bundle's speed in ``speed_values``."""
        return np.searchsorted(self.speed_values, self.speed_gbit_s)

    @cached_property
    def length_values(self) -> np.ndarray:
        """The distinct cable lengths of the design, ascending."""
        return np.unique(self.length_m)

    @cached_property
    def length_code(self) -> np.ndarray:
        """Index of every bundle's length in ``length_values``."""
        return np.searchsorted(self.length_values, self.length_m)

    def bundles_of_kind(self, *kinds: str) -> np.ndarray:
        """Bundle mask: the bundles whose link kind is one of ``kinds``."""
        return np.array([name in kinds for name in self.kind_names])[self.kind_code]

    def bundles_of_medium(self, medium: str) -> np.ndarray:
        """Bundle mask: the bundles of cables of ``medium``."""
        return np.array([name == medium for name in self.medium_names])[self.medium_code]

    # --- rows as objects --------------------------------------------------------------
    @cached_property
    def groups(self) -> tuple[Group, ...]:
        return tuple(
            Group(path, node, self.specs[row], multiplicity, counts)
            for path, node, row, multiplicity, counts in zip(
                self.paths, self.nodes, self.spec_row.tolist(), self.multiplicity.tolist(),
                self.chains)
        )

    @cached_property
    def bundles(self) -> tuple[Bundle, ...]:
        links = [(lb.owner_path, lb.instances, link) for lb in self.link_blocks for link in lb.links]
        return tuple(
            Bundle(link.id, owner, a, b, link.kind, speed, cables, instances, length, link.medium)
            for (owner, instances, link), a, b, speed, cables, length in zip(
                links, self.bundle_a.tolist(), self.bundle_b.tolist(),
                self.speed_gbit_s.tolist(), self.cables.tolist(), self.length_m.tolist())
        )


def flatten(design: Design, catalog: Catalog) -> FlatDesign:
    """Multiply out block counts; resolve every link endpoint to a group.

    Each block's components and links are read one attribute at a time over the whole list
    (``map``/``attrgetter`` into numpy), the cheapest way through 100,000s of Python objects.
    """
    check_design_size(design, catalog)  # refuse what would not fit before anything is expanded
    groups = _GroupColumns(catalog)
    link_blocks: list[LinkBlock] = []

    def walk(block: Block, prefix: str, block_counts: tuple[int, ...], instances: int,
             cooling: str) -> None:
        if block.links:
            link_blocks.append(LinkBlock(prefix.rstrip("/"), instances, block.links))
        ids = list(block.children)
        children = list(block.children.values())
        # Runs of components between child blocks go in at once, blocks recurse in order.
        types = list(map(type, children))
        start = 0
        for at in _positions(types, Block):
            groups.add(prefix, ids[start:at], children[start:at], block_counts, instances, cooling)
            child, path = children[at], prefix + ids[at]
            if child.count < 1:
                raise DesignError(f"{path}: block count must be at least 1")
            walk(child, path + "/", block_counts + (child.count,), instances * child.count,
                 child.cooling or cooling)
            start = at + 1
        groups.add(prefix, ids[start:], children[start:], block_counts, instances, cooling)

    walk(design.root, "", (design.root.count,), design.root.count, design.root.cooling)
    kinds, media = Codes(LINK_KINDS), Codes(MEDIA)
    a, b, kind, speed, cables, instances, length, medium = _link_columns(
        link_blocks, groups.index, kinds, media)
    return FlatDesign(
        design.name, catalog, groups.index, tuple(groups.paths), tuple(groups.nodes),
        tuple(groups.specs), np.array(groups.spec_rows, dtype=np.int64), tuple(groups.chains),
        np.array(groups.multiplicity, dtype=np.int64), tuple(groups.cooling),
        a, b, kind, kinds.names, speed, cables, instances, length, medium, media.names,
        tuple(link_blocks))


def _positions(values: list, value) -> list[int]:
    """Indices of ``value`` in ``values`` (list.index, so a C loop rather than a Python one)."""
    out: list[int] = []
    try:
        while True:
            out.append(values.index(value, out[-1] + 1 if out else 0))
    except ValueError:
        return out


class _GroupColumns:
    """The group rows of ``flatten``, added a block's run of components at a time."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.index: dict[str, int] = {}
        self.paths: list[str] = []
        self.nodes: list[Node] = []
        self.spec_rows: list[int] = []
        self.chains: list[tuple[int, ...]] = []
        self.multiplicity: list[int] = []
        self.cooling: list[str] = []
        self.specs: list[ComponentSpec] = []
        self.spec_row_of: dict[str, int] = {}

    def add(self, prefix: str, ids: list[str], nodes: list[Node], block_counts: tuple[int, ...],
            instances: int, cooling: str) -> None:
        if not nodes:
            return
        counts = list(map(attrgetter("count"), nodes))
        catalog_ids = list(map(attrgetter("catalog_id"), nodes))
        for catalog_id in dict.fromkeys(catalog_ids):
            if catalog_id not in self.spec_row_of and catalog_id in self.catalog:
                self.spec_row_of[catalog_id] = len(self.specs)
                self.specs.append(self.catalog.get(catalog_id))
        rows = list(map(self.spec_row_of.get, catalog_ids))
        if min(counts) < 1 or None in rows:
            # the first bad component, as a walk one by one would meet it
            for child_id, count, row, catalog_id in zip(ids, counts, rows, catalog_ids):
                if count < 1:
                    raise DesignError(f"{prefix}{child_id}: count must be at least 1")
                if row is None:
                    raise DesignError(f"{prefix}{child_id}: unknown component id {catalog_id!r}")
        paths = [prefix + child_id for child_id in ids] if prefix else ids
        self.index.update(zip(paths, range(len(self.paths), len(self.paths) + len(paths))))
        self.paths += paths
        self.nodes += nodes
        self.spec_rows += rows
        self.chains += [block_counts] * len(nodes)
        self.multiplicity += [count * instances for count in counts]
        self.cooling += [cooling] * len(nodes)


def _link_columns(link_blocks: list[LinkBlock], index: dict[str, int], kinds: Codes,
                  media: Codes) -> tuple[np.ndarray, ...]:
    """(end A, end B, kind, speed, cables, owner instances, length, medium) of every link, one
    attribute at a time over all blocks' links."""
    links = list(chain.from_iterable(lb.links for lb in link_blocks))
    n = len(links)

    def column(name: str, dtype, convert=None) -> np.ndarray:
        values = map(attrgetter(name), links)
        return np.fromiter(values if convert is None else map(convert, values), dtype, count=n)

    def ends(end: str) -> np.ndarray | None:
        """Group index of end ``end`` of every link, None if some end names no component."""
        names = chain.from_iterable(
            map(f"{lb.owner_path}/".__add__, map(attrgetter(end), lb.links)) if lb.owner_path
            else map(attrgetter(end), lb.links) for lb in link_blocks)
        try:
            return np.fromiter(map(index.__getitem__, names), np.int64, count=n)
        except KeyError:
            return None

    ends_a, ends_b = ends("a"), ends("b")
    counts = column("count", np.int64)
    if ends_a is None or ends_b is None or (n and counts.min() < 1):
        for lb in link_blocks:
            _raise_bad_link(lb, index)
    instances = np.repeat(np.array([lb.instances for lb in link_blocks], dtype=np.int64),
                          [len(lb.links) for lb in link_blocks])
    return (ends_a, ends_b, column("kind", np.int32, kinds.__getitem__),
            column("speed_gbit_s", float), counts * instances, instances,
            column("length_m", float), column("medium", np.int32, media.__getitem__))


def _raise_bad_link(lb: LinkBlock, index: dict[str, int]) -> None:
    """The error for the first link of ``lb`` that names no component or has no cables."""
    prefix = f"{lb.owner_path}/" if lb.owner_path else ""
    for link in lb.links:
        for end in (link.a, link.b):
            if prefix + end not in index:
                raise DesignError(f"link {link.id} in {lb.owner_path or 'design'}: no component at {end!r}")
        if link.count < 1:
            raise DesignError(f"link {link.id} in {lb.owner_path or 'design'}: count must be at least 1")


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


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

    def per_unit(self, values: np.ndarray) -> np.ndarray:
        """A per-group array repeated for every unit of the group."""
        return np.repeat(values, np.diff(self.offsets))


def bundle_edges(flat: FlatDesign, offsets: np.ndarray,
                 ks: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Unit endpoints of every cable of bundles ``ks`` (see the module docstring for the rule),
    bundle after bundle, all bundles at once."""
    ks = np.atleast_1d(np.asarray(ks, dtype=np.int64))
    inst = flat.owner_instances[ks]
    per_inst = flat.cables[ks] // inst
    a_units = np.maximum(1, flat.multiplicity[flat.bundle_a[ks]] // inst)
    b_units = np.maximum(1, flat.multiplicity[flat.bundle_b[ks]] // inst)
    share = np.maximum(1, -(-per_inst // a_units))
    # The pattern of one block instance of every bundle: cable j joins A unit j // share with
    # B unit j % b_units, built from runs (no division per cable): A unit u takes a run of
    # ``share`` consecutive cables (the last unit the rest), the B units take runs of b_units.
    # A bundle with one cable per instance joins unit 0 to unit 0 and needs no runs.
    pattern_start = np.cumsum(per_inst) - per_inst
    local_a = np.zeros(int(per_inst.sum()), dtype=np.int64)
    local_b = np.zeros(len(local_a), dtype=np.int64)
    multi = np.flatnonzero(per_inst > 1)
    cables = per_inst[multi]
    start = np.cumsum(cables) - cables
    within = np.arange(int(cables.sum()), dtype=np.int64) - np.repeat(start, cables)
    at = np.repeat(pattern_start[multi], cables) + within
    _, a_unit, _, a_length = runs(cables, share[multi])
    local_a[at] = np.repeat(a_unit, a_length)
    _, _, b_start, b_length = runs(cables, b_units[multi])
    local_b[at] = within - np.repeat(b_start, b_length)
    del at, within
    # Every instance repeats its bundle's pattern from the first A and B unit of the instance.
    segment = np.repeat(np.arange(len(ks)), inst)
    instance = np.arange(len(segment)) - np.repeat(np.cumsum(inst) - inst, inst)
    length = per_inst[segment]
    first_a = offsets[flat.bundle_a[ks]][segment] + instance * a_units[segment]
    first_b = offsets[flat.bundle_b[ks]][segment] + instance * b_units[segment]
    at = np.repeat(pattern_start[segment] - (np.cumsum(length) - length), length)
    at += np.arange(len(at), dtype=np.int64)
    src = local_a[at]
    src += np.repeat(first_a, length)
    dst = local_b[at]
    dst += np.repeat(first_b, length)
    return src, dst


def runs(total: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, ...]:
    """Split each row's ``total[k]`` into runs of ``size[k]`` (the last one shorter): for every
    run, its row, its index within the row, its start within the row and its length."""
    count = -(-total // size)
    row = np.repeat(np.arange(len(total)), count)
    index = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    start = index * size[row]
    return row, index, start, np.minimum(size[row], total[row] - start)


def unit_graph(flat: FlatDesign, kinds: tuple[str, ...] | None = None) -> UnitGraph:
    """Expand groups to units and bundles to cables (only bundles of ``kinds`` if given)."""
    offsets = np.concatenate([[0], np.cumsum(flat.multiplicity)]).astype(np.int64)
    unit_group = np.repeat(np.arange(len(flat.multiplicity), dtype=np.int32), flat.multiplicity)
    ks = (np.arange(len(flat.cables), dtype=np.int64) if kinds is None
          else np.flatnonzero(flat.bundles_of_kind(*kinds)))
    src, dst = bundle_edges(flat, offsets, ks)
    edge_bundle = np.repeat(ks.astype(np.int32), flat.cables[ks])
    return UnitGraph(offsets, unit_group, src, dst, edge_bundle)
