"""Racks of a design, built once per block and repeated by its count, as arrays.

A block's racks are worked out for ONE instance (its template), then tiled ``count`` times with
numpy: a 1,000,000-GPU design of repeated blocks costs array operations over its racks and
units, never a Python object per rack or per device.

How one instance is racked, following the reference architectures (sources in
docs/guide/floor-plan.md):

* servers fill compute racks of ``per_rack`` (catalog; DGX H100: 4 per rack, SuperPOD H100 RA),
  a super-node takes its ``racks`` (GB200 NVL72: one rack with its NVLink switch trays);
* switches and management appliances fill network racks of ``switches_per_rack``, storage
  nodes storage racks of ``storage_per_rack`` (the power analysis' packing assumptions);
* a block's own network racks go in the middle of its other racks (a scalable unit's leaf rack
  amid its compute racks; a pod's spine racks amid its SUs), which shortens the cables to them;
* a block whose one instance leaves its only rack at most half full shares racks with the next
  instances (a server drawn per block instance is not one rack each).

"Pieces" are runs of racks that stay together in one row (an SU's racks): a block instance that
fits a row is one piece; a larger one is the pieces of its parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.catalog import COMPUTE_KINDS
from core.catalog_spec import BOX_SPECS, RACKED_SPECS, ApplianceSpec, SwitchSpec
from core.cooling import COOLING_TYPES, cooling_type
from core.model import Block, Design

COMPUTE, NETWORK, STORAGE = 0, 1, 2
RACK_CLASSES = ("compute", "network", "storage")
U_M = 0.04445  # one rack unit, EIA-310


@dataclass
class Template:
    """The racks of one block instance and where its units sit in them."""

    rack_class: np.ndarray      # RACK_CLASSES index
    rack_w: np.ndarray          # nameplate W of what the rack holds
    rack_u: np.ndarray          # U taken
    rack_fill: np.ndarray       # fraction of the rack's capacity taken (units or U)
    rack_cooling: np.ndarray    # COOLING_TYPES index
    rack_group: np.ndarray      # the first group (FlatDesign index) in the rack
    pieces: np.ndarray          # first rack of every piece
    units: dict[int, tuple[np.ndarray, np.ndarray]]  # group -> (rack, bottom U) per unit

    @property
    def racks(self) -> int:
        return len(self.rack_class)


def _empty() -> Template:
    z = np.zeros(0)
    return Template(z.astype(np.int8), z, z, z, z.astype(np.int8), z.astype(np.int64),
                    z.astype(np.int64), {})


def _concat(parts: list[Template]) -> Template:
    parts = [p for p in parts if p.racks or p.units]
    if not parts:
        return _empty()
    offsets = np.cumsum([0] + [p.racks for p in parts])
    units: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for part, offset in zip(parts, offsets[:-1].tolist()):
        for g, (rack, u) in part.units.items():
            units[g] = (rack + offset, u)
    return Template(*(np.concatenate([getattr(p, name) for p in parts]) for name in
                      ("rack_class", "rack_w", "rack_u", "rack_fill", "rack_cooling", "rack_group")),
                    np.concatenate([p.pieces + o for p, o in zip(parts, offsets[:-1].tolist())]),
                    units)


def _tile(t: Template, count: int, row_racks: int) -> Template:
    """``count`` instances of ``t``; instances share a rack when one leaves it at most half full."""
    if count == 1:
        return t
    if t.racks == 1 and 0 < t.rack_fill[0] <= 0.5:
        per_rack = int(1.0 // t.rack_fill[0])
        racks = -(-count // per_rack)
        last = count - per_rack * (racks - 1)
        share = np.full(racks, per_rack, dtype=np.int64)
        share[-1] = last
        instance = np.arange(count)
        # one rack per template: every unit of instance i goes to rack i // per_rack, above
        # the instances before it in that rack
        units = {g: (np.repeat(instance // per_rack, len(rack)),
                     ((instance % per_rack)[:, None] * t.rack_u[0] + u[None, :]).ravel())
                 for g, (rack, u) in t.units.items()}
        return Template(np.repeat(t.rack_class, racks), t.rack_w[0] * share, t.rack_u[0] * share,
                        t.rack_fill[0] * share, np.repeat(t.rack_cooling, racks),
                        np.repeat(t.rack_group, racks), _pieces_of(racks, row_racks), units)
    shift = (np.arange(count) * t.racks)[:, None]
    units = {g: ((rack[None, :] + shift).ravel(), np.tile(u, count)) for g, (rack, u) in t.units.items()}
    whole = t.racks <= row_racks and len(t.pieces) == 1
    return Template(np.tile(t.rack_class, count), np.tile(t.rack_w, count), np.tile(t.rack_u, count),
                    np.tile(t.rack_fill, count), np.tile(t.rack_cooling, count),
                    np.tile(t.rack_group, count),
                    (shift[:, 0] if whole else (t.pieces[None, :] + shift).ravel()).astype(np.int64),
                    units)


def _middle(own: Template, net: Template, row_racks: int) -> Template:
    """``net``'s racks inserted in the middle of ``own``'s: at the middle rack when the two fit
    one row, else at the boundary between pieces nearest the middle."""
    n = own.racks
    if n + net.racks <= row_racks:
        k = n // 2
    else:
        k = int(own.pieces[np.argmin(np.abs(own.pieces - n / 2.0))]) if len(own.pieces) else 0
    units = {g: (np.where(rack >= k, rack + net.racks, rack), u) for g, (rack, u) in own.units.items()}
    units.update({g: (rack + k, u) for g, (rack, u) in net.units.items()})
    names = ("rack_class", "rack_w", "rack_u", "rack_fill", "rack_cooling", "rack_group")
    arrays = [np.concatenate([getattr(own, a)[:k], getattr(net, a), getattr(own, a)[k:]])
              for a in names]
    pieces = np.unique(np.concatenate([np.where(own.pieces >= k, own.pieces + net.racks, own.pieces),
                                       net.pieces + k, [k + net.racks] if k < n else []]))
    return Template(*arrays, pieces.astype(np.int64), units)


def _pieces_of(racks: int, row_racks: int) -> np.ndarray:
    return np.arange(0, racks, max(1, row_racks), dtype=np.int64)


def unit_height_u(flat, g: int) -> float:
    """Rack units one unit of group ``g`` takes: its catalog ``rack_units``; a switch chip
    (``chassis`` false) is half of a 1U tray (an NVLink Switch tray holds 2 chips); else 1U."""
    spec = flat.specs[flat.spec_row[g]]
    value = flat.nodes[g].overrides.get(
        "rack_units", spec.rack_units if isinstance(spec, RACKED_SPECS) else 0)
    return float(value or 0) or (0.5 if isinstance(spec, SwitchSpec) and not spec.chassis else 1.0)


class Racker:
    """Builds the templates of a design's blocks (one pass over the tree)."""

    def __init__(self, design: Design, flat, switches_per_rack: int, storage_per_rack: int,
                 rack_height_u: int, row_racks: int, air_rack_limit_w: float = float("inf"),
                 spread: frozenset[int] = frozenset()):
        self.flat = flat
        # pooled leaf groups (core/site/pooled.py): racked by the row filling, not here
        self.spread = spread
        # network and storage racks are air-cooled: their units fill one only up to what air
        # sheds (eight 20 kW WEKApods are a 160 kW rack no air-cooled row takes)
        self.air_rack_limit_w = air_rack_limit_w
        self.switches_per_rack = switches_per_rack
        self.storage_per_rack = storage_per_rack
        self.height_u = rack_height_u
        self.row_racks = row_racks
        self.design = design

    def build(self) -> Template:
        root = self.design.root
        return _tile(self._block(root, ""), root.count, self.row_racks)

    def _block(self, block: Block, prefix: str) -> Template:
        own: list[Template] = []         # compute/storage racks and child blocks, in order
        network: list[Template] = []     # this block's own network racks
        run: list[int] = []
        run_class = -1
        for child_id, child in block.children.items():
            if isinstance(child, Block):
                if run:
                    (network if run_class == NETWORK else own).append(self._nodes(run, run_class))
                    run, run_class = [], -1
                own.append(_tile(self._block(child, f"{prefix}{child_id}/"), child.count,
                                 self.row_racks))
                continue
            g = self.flat.index[prefix + child_id]
            if g in self.spread:
                continue
            klass = self._class(g)
            if run and klass != run_class:
                (network if run_class == NETWORK else own).append(self._nodes(run, run_class))
                run = []
            run.append(g)
            run_class = klass
        if run:
            (network if run_class == NETWORK else own).append(self._nodes(run, run_class))
        # the block's network racks in the middle of its others (a piece boundary when the
        # block spans several rows)
        t = _middle(_concat(own), _concat(network), self.row_racks) if network and own else \
            _concat(own + network)
        if t.racks and t.racks <= self.row_racks:
            t.pieces = np.zeros(1, dtype=np.int64)
        return t

    def _class(self, g: int) -> int:
        spec = self.flat.specs[self.flat.spec_row[g]]
        # scale-up switches (NVLink switch trays) sit in the racks of the nodes they join
        if spec.kind in COMPUTE_KINDS or (isinstance(spec, (SwitchSpec, ApplianceSpec))
                                          and spec.role == "scale-up"):
            return COMPUTE
        return STORAGE if spec.kind == "storage" else NETWORK

    def _height_u(self, g: int) -> float:
        return unit_height_u(self.flat, g)

    def _value(self, g: int, key: str, catalog_value):
        """The override of catalog field ``key`` on group ``g``'s node, else ``catalog_value``."""
        return self.flat.nodes[g].overrides.get(key, catalog_value)

    def _box_w(self, g: int) -> float:
        """Nameplate W of one unit of a network or storage group (0 for a kind without one)."""
        spec = self.flat.specs[self.flat.spec_row[g]]
        return float(self._value(g, "max_power_w", spec.max_power_w if isinstance(spec, BOX_SPECS)
                                 else 0.0) or 0.0)

    def _nodes(self, groups: list[int], klass: int) -> Template:
        """Racks for one instance of the components ``groups`` (all of one rack class)."""
        if klass == COMPUTE:
            servers = [g for g in groups if self.flat.is_compute[g]]
            trays = [g for g in groups if not self.flat.is_compute[g]]
            if not servers:
                return self._nodes(trays, NETWORK)
            return self._with_trays(_concat([self._compute(run) for run in self._alike(servers)]),
                                    trays)
        # the groups' units one after another, ``per_rack`` to a rack (and by U)
        counts = np.array([self.flat.nodes[g].count for g in groups], dtype=np.int64)
        heights = np.array([self._height_u(g) for g in groups])
        watts = np.array([self._box_w(g) for g in groups])
        per_rack = self._per_rack(klass, heights, watts)
        total = int(counts.sum())
        slot = np.arange(total)
        rack = slot // per_rack
        owner = np.repeat(np.arange(len(groups)), counts)
        # bottom U of every unit: the heights of the units below it in its rack
        stacked = np.cumsum(heights[owner]) - heights[owner]
        u = stacked - stacked[rack * per_rack]
        racks = int(rack[-1]) + 1 if total else 0
        rack_w = np.bincount(rack, weights=watts[owner], minlength=racks)
        rack_u = np.bincount(rack, weights=heights[owner], minlength=racks)
        fill = np.maximum(np.bincount(rack, minlength=racks) / per_rack, rack_u / self.height_u)
        first = np.searchsorted(rack, np.arange(racks))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).tolist()
        units = {g: (rack[a:a + c], u[a:a + c]) for g, a, c in zip(groups, starts, counts.tolist())}
        return Template(np.full(racks, klass, dtype=np.int8), rack_w, rack_u, fill,
                        np.zeros(racks, dtype=np.int8),
                        np.array(groups, dtype=np.int64)[owner[first]],
                        _pieces_of(racks, self.row_racks), units)

    def _per_rack(self, klass: int, heights: np.ndarray, watts: np.ndarray) -> int:
        """Units to a network or storage rack: its packing, what its U and air cooling allow."""
        per_rack = self.switches_per_rack if klass == NETWORK else self.storage_per_rack
        return int(max(1, min(per_rack, self.height_u // max(1, int(heights.max())),
                              self.air_rack_limit_w // watts.max() if watts.max() > 0 else per_rack)))

    def network_rack(self, g: int) -> tuple[int, float, float]:
        """(units to a rack, W, U of one unit) of network group ``g`` racked on its own."""
        height, watts = self._height_u(g), self._box_w(g)
        return self._per_rack(NETWORK, np.array([height]), np.array([watts])), watts, height

    def _alike(self, groups: list[int]) -> list[list[int]]:
        """``groups`` cut into runs of consecutive groups racked alike (same catalog entry,
        overrides and cooling): a design drawn server by server fills its racks as the same
        servers drawn as one component would."""
        runs: list[list[int]] = []
        last = None
        for g in groups:
            node = self.flat.nodes[g]
            key = (self.flat.spec_row[g], tuple(sorted(node.overrides.items())),
                   node.cooling or self.flat.block_cooling[g])
            if key != last:
                runs.append([])
                last = key
            runs[-1].append(g)
        return runs

    def _compute(self, run: list[int]) -> Template:
        """Racks for one instance of the alike compute groups ``run``."""
        g = run[0]
        spec = self.flat.specs[self.flat.spec_row[g]]
        counts = np.array([self.flat.nodes[i].count for i in run], dtype=np.int64)
        n = int(counts.sum())
        node = self.flat.nodes[g]
        w = float(self._value(g, "max_power_kw", spec.max_power_kw) or 0.0) * 1000.0
        cooling = node.cooling or self.flat.block_cooling[g] or cooling_type(
            str(self._value(g, "cooling", spec.cooling)))
        code = COOLING_TYPES.index(cooling) if cooling in COOLING_TYPES else 0
        first_unit = np.concatenate([[0], np.cumsum(counts)[:-1]])
        if spec.kind == "supernode":
            span = max(1, int(self._value(g, "racks", spec.racks) or 1))
            racks = n * span
            rack = np.arange(n, dtype=np.int64) * span
            return Template(np.zeros(racks, dtype=np.int8), np.full(racks, w / span),
                            np.full(racks, float(self.height_u)), np.ones(racks),
                            np.full(racks, code, dtype=np.int8),
                            np.repeat(np.array(run, dtype=np.int64), counts * span),
                            _pieces_of(racks, max(span, self.row_racks // span * span)),
                            {i: (rack[a:a + c], np.zeros(c))
                             for i, a, c in zip(run, first_unit.tolist(), counts.tolist())})
        per_rack = max(1, int(self._value(g, "per_rack", spec.per_rack) or 1))
        height = (float(self._value(g, "rack_units", spec.rack_units) or 0)
                  or max(1.0, float(self.height_u // per_rack)))
        per_rack = max(1, min(per_rack, int(self.height_u // height)))
        unit = np.arange(n, dtype=np.int64)
        rack = unit // per_rack
        racks = int(rack[-1]) + 1
        in_rack = np.bincount(rack, minlength=racks)
        owner = np.repeat(np.array(run, dtype=np.int64), counts)
        return Template(np.zeros(racks, dtype=np.int8), in_rack * w, in_rack * height,
                        in_rack / per_rack, np.full(racks, code, dtype=np.int8),
                        owner[np.arange(racks) * per_rack], _pieces_of(racks, self.row_racks),
                        {i: (rack[a:a + c], (unit[a:a + c] % per_rack) * height)
                         for i, a, c in zip(run, first_unit.tolist(), counts.tolist())})

    def _with_trays(self, t: Template, trays: list[int]) -> Template:
        """``t``'s compute racks with the scale-up switch units of ``trays`` spread evenly over
        them (all groups' units together: chips drawn one by one spread as one group of them
        would), stacked above the servers."""
        if not trays or not t.racks:
            return t
        counts = np.array([self.flat.nodes[g].count for g in trays], dtype=np.int64)
        owner = np.repeat(np.arange(len(trays)), counts)
        rack = np.arange(len(owner), dtype=np.int64) * t.racks // len(owner)
        height = np.array([self._height_u(g) for g in trays])[owner]
        watts = np.array([self._box_w(g) for g in trays])[owner]
        # bottom U: above the servers, then the trays below it in its rack
        stacked = np.cumsum(height) - height
        u = t.rack_u[rack] + stacked - stacked[np.searchsorted(rack, rack)]
        t.rack_u = t.rack_u + np.bincount(rack, weights=height, minlength=t.racks)
        t.rack_w = t.rack_w + np.bincount(rack, weights=watts, minlength=t.racks)
        first_unit = np.concatenate([[0], np.cumsum(counts)[:-1]])
        for g, a, c in zip(trays, first_unit.tolist(), counts.tolist()):
            t.units[g] = (rack[a:a + c], u[a:a + c])
        return t
