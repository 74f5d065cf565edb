"""What a design contains, counted: the input of the power, reliability and BOM analyses.

One ``InventoryItem`` per (catalog id, role, overrides) with a total count; never one object per
device. Items inside a host's power budget (NICs, DPUs, scale-up switches, server-side optics)
carry ``powered=False`` so power is not counted twice (hardware.md §6: "The NIC-side module is
inside the server's power budget; do not count it twice").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from core.catalog import ComponentSpec
from core.flatten import Codes, runs

# Roles an item can play. Switch roles follow the scale-out tier names of the evaluation JSON.
ROLES = (
    "compute",      # servers and super-nodes
    "accelerator",  # the GPUs inside compute nodes
    "leaf", "spine", "core",  # scale-out switches by tier (extra tiers may add names)
    "scale-up",     # NVSwitch / NVLink switch / UB switch chips
    "nic", "dpu",
    "storage",
    "transceiver",
    "cable",
    "switch",       # a switch whose tier could not be determined
    "appliance",    # fabric managers and other management appliances
)


@dataclass(frozen=True)
class InventoryItem:
    catalog_id: str
    kind: str
    role: str
    count: int
    spec: ComponentSpec
    powered: bool = True
    overrides: Mapping[str, float] = field(default_factory=dict)
    paths: tuple[str, ...] = ()  # design paths of the nodes it came from (cables, optics: their ends)
    # Compute nodes: the cooling their component or an enclosing block sets ("" = the catalog
    # entry's), one of core/cooling.py's types. Other kinds: "" (only compute racks are cooled).
    cooling: str = ""

    def value(self, key: str, default: float | None = None) -> float | None:
        """An override if the user set one, else the catalog value, else ``default``."""
        if key in self.overrides:
            return self.overrides[key]
        return self.spec.get(key, default)


@dataclass(frozen=True)
class Inventory:
    items: tuple[InventoryItem, ...]

    def by_role(self, *roles: str) -> list[InventoryItem]:
        return [item for item in self.items if item.role in roles]

    def count(self, *roles: str) -> int:
        return sum(item.count for item in self.items if item.role in roles)

    @property
    def gpus(self) -> int:
        return self.count("accelerator")

    @property
    def compute_nodes(self) -> int:
        return self.count("compute")


def _pick(candidates: list[ComponentSpec], length_m: float) -> ComponentSpec | None:
    """The shortest-reach entry that still covers ``length_m`` (else the longest reach)."""
    if not candidates:
        return None
    fitting = [c for c in candidates if float(c["reach_m"]) >= length_m]
    if fitting:
        return min(fitting, key=lambda c: float(c["reach_m"]))
    return max(candidates, key=lambda c: float(c["reach_m"]))


def choose_transceiver(catalog, speed_gbit_s: float, length_m: float) -> ComponentSpec | None:
    """A twin-port module (2 x speed, as in OSFP cages of QM9700 and DGX H100) if one reaches,
    else a single-port module; None if the catalog has neither at this speed."""
    twins = [t for t in catalog.by_kind("transceiver")
             if int(t["lanes"]) == 2 and abs(float(t["gbit_s"]) - 2 * speed_gbit_s) < 1e-6]
    singles = [t for t in catalog.by_kind("transceiver")
               if int(t["lanes"]) == 1 and abs(float(t["gbit_s"]) - speed_gbit_s) < 1e-6]
    twin = _pick(twins, length_m)
    if twin is not None and float(twin["reach_m"]) >= length_m:
        return twin
    single = _pick(singles, length_m)
    if single is not None and float(single["reach_m"]) >= length_m:
        return single
    return twin or single


def choose_cable(catalog, medium: str, length_m: float) -> ComponentSpec | None:
    return _pick([c for c in catalog.by_kind("cable") if c["medium"] == medium], length_m)


def build_inventory(flat, tiers: Mapping[int, str]) -> tuple[Inventory, list]:
    """Count everything in a flattened design; returns (inventory, diagnostics).

    Groups with the same catalog entry, role and overrides are counted together and bundles by
    the cable and optics their medium, speed and length call for, so the cost follows the number
    of drawn items in array operations plus the number of distinct items in Python.
    """
    tally = _Tally(len(flat.multiplicity))
    slots = _count_nodes(flat, tiers, tally)
    diagnostics = _count_links(flat, tally, first_position=len(flat.multiplicity) * slots)
    return Inventory(tally.items(flat)), diagnostics


class _Tally:
    """Inventory items by (catalog id, role, powered, overrides, cooling): count, the position of their
    first appearance in the design's listing (which orders the items), and the groups they
    came from."""

    def __init__(self, groups: int):
        self.groups = groups
        self.entries: dict[tuple, list] = {}

    def add(self, spec: ComponentSpec, role: str, powered: bool, overrides: Mapping[str, float],
            count: int, position: int, groups: np.ndarray, cooling: str = "") -> None:
        key = (spec.id, role, powered, tuple(sorted(overrides.items())), cooling)
        entry = self.entries.setdefault(key, [spec, 0, dict(overrides), position, []])
        entry[1] += count
        entry[3] = min(entry[3], position)
        entry[4].append(groups)

    def items(self, flat) -> tuple[InventoryItem, ...]:
        out = []
        for (_, role, powered, _, cooling), (spec, count, overrides, _, groups) in sorted(
                self.entries.items(), key=lambda entry: entry[1][3]):
            member = np.zeros(self.groups, dtype=bool)
            for g in groups:
                member[g] = True
            out.append(InventoryItem(spec.id, spec.kind, role, count, spec, powered, overrides,
                                     flat.group_paths(member), cooling))
        return tuple(out)


def _count_nodes(flat, tiers: Mapping[int, str], tally: _Tally) -> int:
    """Add the groups' units (and what compute nodes hold) to ``tally``; returns the positions
    each group takes in the listing order (one per item it adds)."""
    from core.catalog import COMPUTE_KINDS  # noqa: PLC0415 - avoid a cycle at import time

    catalog = flat.catalog
    n = len(flat.multiplicity)
    slots = 4 + max((len(spec.get("scale_up_switches") or []) for spec in flat.specs), default=0)
    if not n:
        return slots
    # Role of every group: compute, the switch tier, or the catalog kind.
    role = flat.kind.copy()
    role[flat.is_compute] = "compute"
    role[flat.kind == "switch"] = "switch"
    if tiers:
        role[np.fromiter(tiers.keys(), dtype=np.int64, count=len(tiers))] = list(tiers.values())
    role_code = _codes(role.tolist())
    # Nodes with overrides, or compute nodes with a cooling of their own or of their block, are
    # items of their own (a rack's cooling sets its kW limit and PUE in the power analysis).
    # Coded as arrays: an import draws 100,000 nodes one by one, each possibly with its cooling.
    cooling = [node.cooling or block for node, block in zip(flat.nodes, flat.block_cooling)]
    cooling_code = _codes([""] + cooling)[1:]
    cooling_code[~flat.is_compute] = 0  # switches and storage in a cooled block stay one item
    overrides_code = np.zeros(n, dtype=np.int64)
    known: dict[tuple, int] = {(): 0}
    for i in [i for i, node in enumerate(flat.nodes) if node.overrides]:
        key = tuple(sorted(flat.nodes[i].overrides.items()))
        overrides_code[i] = known.setdefault(key, len(known))
    signature = (((flat.spec_row * (role_code.max() + 1) + role_code) * len(known) + overrides_code)
                 * (cooling_code.max() + 1) + cooling_code)
    _, first, inverse = np.unique(signature, return_index=True, return_inverse=True)
    units = np.bincount(inverse, weights=flat.multiplicity).astype(np.int64).tolist()
    members = np.split(np.argsort(inverse, kind="stable"), np.cumsum(np.bincount(inverse))[:-1])
    for i, total, groups in zip(first.tolist(), units, members):
        spec, node, position = flat.specs[flat.spec_row[i]], flat.nodes[i], i * slots
        if spec.kind in COMPUTE_KINDS:
            tally.add(spec, "compute", True, node.overrides, total, position, groups, cooling[i])
            tally.add(catalog.get(spec["accelerator"]), "accelerator", False, {},
                      total * int(spec["accelerators"]), position + 1, groups)
            if spec.get("nic") and spec.get("nics"):
                tally.add(catalog.get(spec["nic"]), "nic", False, {}, total * int(spec["nics"]),
                          position + 2, groups)
            if spec.get("dpu") and spec.get("dpus"):
                tally.add(catalog.get(spec["dpu"]), "dpu", False, {}, total * int(spec["dpus"]),
                          position + 3, groups)
            for m, item in enumerate(spec.get("scale_up_switches") or []):
                tally.add(catalog.get(item["id"]), "scale-up", False, {},
                          total * int(item["count"]), position + 4 + m, groups)
        else:
            tally.add(spec, role[i], True, node.overrides, total, position, groups)
    return slots


def _codes(values: list) -> np.ndarray:
    """Small integer codes of ``values``, equal values equal codes."""
    return np.fromiter(map(Codes().__getitem__, values), np.int64, count=len(values))


def _count_links(flat, tally: _Tally, first_position: int) -> list:
    """Add cables and optics of every bundle to ``tally``; returns the diagnostics (no cable or
    optics in the catalog, a run longer than the cable's reach) in bundle order.

    Catalog entries are chosen once per distinct (medium, length) and (speed, length) and
    mapped back to the bundles through lookup tables."""
    from core.diagnostics import Diagnostic  # noqa: PLC0415 - avoid a cycle at import time

    catalog = flat.catalog
    lengths, length_code = flat.length_values, flat.length_code
    media, medium_code = flat.medium_names, flat.medium_code
    problems: list[tuple[int, int, Diagnostic]] = []  # (bundle, order within it, diagnostic)

    def where(k: int) -> tuple[str, tuple[str, str]]:
        a, b = flat.paths[flat.bundle_a[k]], flat.paths[flat.bundle_b[k]]
        return f"{a} - {b}", (a, b)

    # Cables: one catalog entry per (medium, length) the design uses.
    run = medium_code * len(lengths) + length_code
    cables: list[ComponentSpec] = []
    cable_of_run = np.full(len(media) * len(lengths), -1, dtype=np.int64)
    unfit: dict[int, tuple[str, float, ComponentSpec | None]] = {}
    for r in np.flatnonzero(np.bincount(run, minlength=len(cable_of_run))).tolist():
        medium, length = media[r // len(lengths)], float(lengths[r % len(lengths)])
        cable = choose_cable(catalog, medium, length)
        if cable is not None:
            if cable not in cables:
                cables.append(cable)
            cable_of_run[r] = cables.index(cable)
        if cable is None or float(cable["reach_m"]) < length:
            unfit[r] = (medium, length, cable)
    if unfit:
        flagged = np.zeros(len(cable_of_run), dtype=bool)
        flagged[list(unfit)] = True
        for k in np.flatnonzero(flagged[run]).tolist():
            (medium, length, cable), (paths, ends) = unfit[int(run[k])], where(k)
            problems.append((k, 0, Diagnostic(
                "NO_CABLE", f"no {medium} cable in the catalog for {paths}", ends)
                if cable is None else Diagnostic(
                "LINK_TOO_LONG",
                f"{paths}: {length:g} m exceeds the {cable['reach_m']:g} m reach of {cable.id}",
                ends)))
    _tally_by_item(flat, tally, cable_of_run[run], cables, "cable", flat.cables,
                   first_position, 0)

    # Optics: both ends of every fiber bundle, by the module its speed and length call for.
    speeds, speed_code = flat.speed_values, flat.speed_code
    fiber = flat.bundles_of_medium("fiber")
    optic = speed_code * len(lengths) + length_code
    modules: list[ComponentSpec] = []
    # the extra last entry (-1) is what bundles without optics (code -1) look up
    module_of_optic = np.full(len(speeds) * len(lengths) + 1, -1, dtype=np.int64)
    missing: dict[int, float] = {}
    for r in np.flatnonzero(np.bincount(optic[fiber], minlength=len(module_of_optic))).tolist():
        speed, length = float(speeds[r // len(lengths)]), float(lengths[r % len(lengths)])
        module = choose_transceiver(catalog, speed, length)
        if module is None:
            missing[r] = speed
            continue
        if module not in modules:
            modules.append(module)
        module_of_optic[r] = modules.index(module)
    optic = np.where(fiber, optic, -1)
    if missing:
        flagged = np.zeros(len(module_of_optic), dtype=bool)
        flagged[list(missing)] = True
        for k in np.flatnonzero(flagged[optic] & fiber).tolist():
            paths, ends = where(k)
            problems.append((k, 1, Diagnostic(
                "NO_TRANSCEIVER",
                f"no {missing[int(optic[k])]:g} Gb/s transceiver in the catalog for {paths}", ends)))
    _tally_optics(flat, tally, module_of_optic[optic], modules, first_position)
    problems.sort(key=lambda p: (p[0], p[1]))
    return [diagnostic for _, _, diagnostic in problems]


def _tally_optics(flat, tally: _Tally, module: np.ndarray, modules: list[ComponentSpec],
                  first_position: int) -> None:
    """Optics counted per device: the cables of one unit that take the same module share its
    lanes (a twin-port OSFP serves two of a switch's or a DGX's 400G ports), whichever bundles
    they belong to, so a unit with c such cables holds ceil(c / lanes) modules. A server drawn
    on its own with one link per rail gets the same modules as 32 servers in one bundle.

    Where every bundle end on a group spreads its cables evenly (each unit gets cables /
    units), c is the same for all units of the group; the groups where some bundle end does
    not divide evenly are counted unit by unit from their cables (core/flatten.py's wiring)."""
    if not modules:
        return
    n, kinds = len(flat.multiplicity), len(modules)
    lanes = np.array([int(m["lanes"]) for m in modules], dtype=np.int64)
    fitted = module >= 0
    per_instance = flat.cables // flat.owner_instances
    uneven = np.zeros(n, dtype=bool)
    for ends in (flat.bundle_a, flat.bundle_b):
        units = np.maximum(1, flat.multiplicity[ends] // flat.owner_instances)
        uneven[ends[fitted & (per_instance % units != 0)]] = True
    # Cables per unit and module of the evenly cabled groups.
    per_unit = np.zeros(n * kinds)
    for ends in (flat.bundle_a, flat.bundle_b):
        even = fitted & ~uneven[ends]
        per_unit += np.bincount(ends[even] * kinds + module[even],
                                weights=flat.cables[even] / flat.multiplicity[ends[even]],
                                minlength=n * kinds)
    held = (-(-per_unit.reshape(n, kinds).astype(np.int64) // lanes)
            * flat.multiplicity[:, None])
    if uneven.any():
        held += _held_unit_by_unit(flat, module, uneven, lanes)
    # Optics in a compute node's cages draw from the node's own power budget.
    for j, spec in enumerate(modules):
        for powered in (True, False):
            groups = (flat.is_compute != powered) & (held[:, j] > 0)
            if not groups.any():
                continue
            # listed where the first bundle puts this module on such a group
            position = min(
                first_position + 3 * int(np.argmax(hit)) + side
                for side, ends in ((1, flat.bundle_a), (2, flat.bundle_b))
                for hit in [(module == j) & (flat.is_compute[ends] != powered)] if hit.any())
            tally.add(spec, "transceiver", powered, {}, int(held[groups, j].sum()), position,
                      np.flatnonzero(groups))


def _held_unit_by_unit(flat, module: np.ndarray, uneven: np.ndarray,
                       lanes: np.ndarray) -> np.ndarray:
    """Modules per (group, module) of the ``uneven`` groups, from each unit's own cables.

    By the wiring rule of core/flatten.py a bundle puts, in every instance of its block, a run
    of ``share`` cables on each A unit from the first one, and per_instance // units cables
    (one more on the first per_instance % units) on each B unit, so each unit's cables are
    summed from these runs without listing every cable."""
    n, kinds = len(flat.multiplicity), len(lanes)
    sizes = np.where(uneven, flat.multiplicity, 0)
    first = np.cumsum(sizes) - sizes  # the uneven groups' units, numbered group after group
    cables = np.zeros(int(sizes.sum()) * kinds)
    instances = flat.owner_instances
    per_instance = flat.cables // instances
    for side, ends in ((0, flat.bundle_a), (1, flat.bundle_b)):
        ks = np.flatnonzero((module >= 0) & uneven[ends])
        units = np.maximum(1, flat.multiplicity[ends[ks]] // instances[ks])
        if side == 0:
            share = np.maximum(1, -(-per_instance[ks] // units))
            row, unit, _, count = runs(per_instance[ks], share)
        else:
            taken = np.minimum(per_instance[ks], units)
            row = np.repeat(np.arange(len(ks)), taken)
            unit = np.arange(len(row)) - np.repeat(np.cumsum(taken) - taken, taken)
            count = (per_instance[ks] // units)[row] + (unit < (per_instance[ks] % units)[row])
        # the same cables on the same units of every instance of the owning block
        copies = instances[ks][row]
        entry = np.repeat(np.arange(len(row)), copies)
        instance = np.arange(len(entry)) - np.repeat(np.cumsum(copies) - copies, copies)
        k, row = ks[row[entry]], row[entry]
        local = first[ends[k]] + instance * units[row] + unit[entry]
        cables += np.bincount(local * kinds + module[k], weights=count[entry],
                              minlength=len(cables))
    held_by_unit = -(-cables.astype(np.int64).reshape(-1, kinds) // lanes)
    unit_group = np.repeat(np.arange(n), sizes)
    return np.stack([np.bincount(unit_group, weights=held_by_unit[:, j], minlength=n)
                     for j in range(kinds)], axis=1).astype(np.int64)


def _tally_by_item(flat, tally: _Tally, item: np.ndarray, specs: list[ComponentSpec], role: str,
                   count: np.ndarray, first_position: int, side: int,
                   ends: np.ndarray | None = None, powered: bool = True) -> None:
    """Add ``count`` of every bundle to the catalog entry ``specs[item]`` (-1: none). The groups
    the items come from are the bundle ends ``ends``, or both ends."""
    for j, spec in enumerate(specs):
        picked = np.flatnonzero(item == j)
        if not len(picked):
            continue
        groups = (ends[picked] if ends is not None
                  else np.concatenate([flat.bundle_a[picked], flat.bundle_b[picked]]))
        tally.add(spec, role, powered, {}, int(count[picked].sum()),
                  first_position + 3 * int(picked[0]) + side, groups)
