"""What a design contains, counted: the input of the power, reliability and BOM analyses.

One ``InventoryItem`` per (catalog id, role, overrides) with a total count; never one object per
device. Items inside a host's power budget (NICs, DPUs, scale-up switches, server-side optics)
carry ``powered=False`` so power is not counted twice (hardware.md §6: "The NIC-side module is
inside the server's power budget; do not count it twice").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from core.catalog import ComponentSpec
from core.catalog_spec import NodeSpec, SwitchSpec
from core.flatten import Codes, runs
from core.optics import FIBER_TYPES, EndOption, choose_cable, end_options, pick_fiber
from core.port_modes import breakout_words, links_per_port

# An end whose cage the catalog does not describe: modules by link speed alone.
_NO_CAGE = ComponentSpec(id="", kind="storage", vendor="", name="", source="", confidence="")

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
    links: int = 0  # cables: the links they carry (a 1:2 splitter two; 0: one per cable)
    note: str = ""  # what a BOM line says about it ("400G via 2x breakout of 800G ports")
    # Compute nodes: the cooling their component or an enclosing block sets ("" = the catalog
    # entry's), one of core/cooling.py's types. Other kinds: "" (only compute racks are cooled).
    cooling: str = ""

    def value(self, key: str, catalog_value: Any) -> Any:
        """The user's override of the catalog field ``key`` if they set one (project files
        name overrides by field), else ``catalog_value``: the spec's own field."""
        return self.overrides.get(key, catalog_value)


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
    def links(self) -> int:
        """Cabled links: one per straight cable, one per leg of a splitter."""
        return sum(item.links or item.count for item in self.items if item.role == "cable")

    @property
    def compute_nodes(self) -> int:
        return self.count("compute")


def choose_transceiver(catalog, speed_gbit_s: float, length_m: float) -> ComponentSpec | None:
    """A module for a link of ``speed_gbit_s`` by speed alone, of either fibre type (what an
    end without a described cage takes, core/optics.py): a twin-port module (2 x speed) if one
    reaches, else a single-port one; None if the catalog has neither at this speed."""
    options = end_options(catalog, _NO_CAGE, False, speed_gbit_s, length_m)
    reaching = [o for o in options.values() if o.reaches]
    return (reaching or list(options.values()) or [EndOption(None)])[0].module


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
            count: int, position: int, groups: np.ndarray, links: int = 0,
            notes: tuple[str, ...] = (), cooling: str = "") -> None:
        key = (spec.id, role, powered, tuple(sorted(overrides.items())), cooling)
        entry = self.entries.setdefault(key, [spec, 0, dict(overrides), position, [], 0, {}])
        entry[1] += count
        entry[3] = min(entry[3], position)
        entry[4].append(groups)
        entry[5] += links
        entry[6].update(dict.fromkeys(notes))

    def items(self, flat) -> tuple[InventoryItem, ...]:
        out = []
        for (_, role, powered, _, cooling), (spec, count, overrides, _, groups, links, notes) in sorted(
                self.entries.items(), key=lambda entry: entry[1][3]):
            member = np.zeros(self.groups, dtype=bool)
            for g in groups:
                member[g] = True
            out.append(InventoryItem(spec.id, spec.kind, role, count, spec, powered, overrides,
                                     flat.group_paths(member), links, "; ".join(notes),
                                     cooling))
        return tuple(out)


def _count_nodes(flat, tiers: Mapping[int, str], tally: _Tally) -> int:
    """Add the groups' units (and what compute nodes hold) to ``tally``; returns the positions
    each group takes in the listing order (one per item it adds)."""
    from core.catalog import COMPUTE_KINDS  # noqa: PLC0415 - avoid a cycle at import time

    catalog = flat.catalog
    n = len(flat.multiplicity)
    slots = 4 + max((len(spec.scale_up_switches) for spec in flat.specs if isinstance(spec, NodeSpec)),
                    default=0)
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
            tally.add(spec, "compute", True, node.overrides, total, position, groups,
                      cooling=cooling[i])
            tally.add(catalog.get(spec.accelerator), "accelerator", False, {},
                      total * int(spec.accelerators), position + 1, groups)
            if spec.nic and spec.nics:
                tally.add(catalog.get(spec.nic), "nic", False, {}, total * int(spec.nics),
                          position + 2, groups)
            dpus = int(node.overrides.get("dpus", spec.dpus))  # a node may override
            if spec.dpu and dpus:
                tally.add(catalog.get(spec.dpu), "dpu", False, {}, total * dpus,
                          position + 3, groups)
            for m, item in enumerate(spec.scale_up_switches):
                tally.add(catalog.get(item.id), "scale-up", False, {},
                          total * int(item.count), position + 4 + m, groups)
        else:
            tally.add(spec, role[i], True, node.overrides, total, position, groups)
    return slots


def _codes(values: list) -> np.ndarray:
    """Small integer codes of ``values``, equal values equal codes."""
    return np.fromiter(map(Codes().__getitem__, values), np.int64, count=len(values))


def _count_links(flat, tally: _Tally, first_position: int) -> list:
    """Add cables and optics of every bundle to ``tally``; returns the diagnostics (no cable or
    optics in the catalog, a run longer than the cable's reach) in bundle order.

    A link that lands on a switch's breakout port (200G on QM9700's 400G ports) takes the
    cage's module at that end, shared by the links its ports fan out to, and shares a splitter
    cable with the other links of that port instead of a cable of its own
    (core/port_modes.py). Catalog entries are chosen once per distinct (medium, length,
    fan-out) and (switch, speed, length) and mapped back to the bundles through lookup tables."""
    from core.diagnostics import Diagnostic  # noqa: PLC0415 - avoid a cycle at import time

    catalog = flat.catalog
    lengths = flat.length_values
    media = flat.medium_names
    problems: list[tuple[int, int, Diagnostic]] = []  # (bundle, order within it, diagnostic)

    def where(k: int) -> tuple[str, tuple[str, str]]:
        a, b = flat.paths[flat.bundle_a[k]], flat.paths[flat.bundle_b[k]]
        return f"{a} - {b}", (a, b)

    # links one native port carries at every (spec, speed): 2 or more on a breakout mode
    split = np.array([[links_per_port(spec, float(v)) if spec.kind == "switch" else 1
                       for v in flat.speed_values] for spec in flat.specs],
                     dtype=np.int64).reshape(len(flat.specs), len(flat.speed_values))
    phrases, phrase_of = _breakout_phrases(flat, split)
    modules: list[ComponentSpec] = []
    sides, fiber_code = _link_ends(flat, split, modules, problems, where)
    (_, fanout_a), (_, fanout_b) = sides
    words = [phrase_of[flat.spec_row[ends], flat.speed_code] for ends in
             (flat.bundle_a, flat.bundle_b)]

    # Cables: a straight one per link, or a splitter at each end that fans out; one catalog
    # entry per (medium, length, fan-out) the design uses.
    cables = flat.cables
    chosen: list[ComponentSpec] = []

    types = len(FIBER_TYPES) + 1  # fibre code 0: copper or no fibre type chosen

    def pick_cables(on: np.ndarray, fanout: np.ndarray) -> np.ndarray:
        """The index in ``chosen`` of every bundle's cable (-1: none, or not ``on``), of the
        fibre type its optics run on."""
        run = (((fanout * types + fiber_code) * len(media) + flat.medium_code) * len(lengths)
               + flat.length_code)
        distinct, inverse = _distinct(run[on], (int(fanout.max(initial=1)) + 1) * types
                                      * len(media) * len(lengths))
        item = np.full(len(distinct), -1, dtype=np.int64)
        for r, code in enumerate(distinct.tolist()):
            rest, length_code = divmod(code, len(lengths))
            rest, medium_code = divmod(rest, len(media))
            f, kind = divmod(rest, types)
            medium, length = media[medium_code], float(lengths[length_code])
            cable = choose_cable(catalog, medium, length, f,
                                 FIBER_TYPES[kind - 1] if kind else None)
            if cable is not None:
                if cable not in chosen:
                    chosen.append(cable)
                item[r] = chosen.index(cable)
            if cable is None or float(cable.reach_m) < length:
                kind = f"{medium} cable" if f == 1 else f"1:{f} {medium} splitter cable"
                for k in np.flatnonzero(on)[inverse == r].tolist():
                    paths, ends = where(k)
                    problems.append((k, 0, Diagnostic(
                        "NO_CABLE", f"no {kind} in the catalog for {paths}", ends)
                        if cable is None else Diagnostic(
                        "LINK_TOO_LONG",
                        f"{paths}: {length:g} m exceeds the {cable.reach_m:g} m reach of "
                        f"{cable.id}", ends)))
        per_bundle = np.full(len(cables), -1, dtype=np.int64)
        per_bundle[on] = item[inverse]
        return per_bundle

    straight = pick_cables((fanout_a == 1) & (fanout_b == 1), np.ones_like(fanout_a))
    _tally_by_item(flat, tally, straight, chosen, "cable", cables, first_position, 0,
                   links=cables)
    # Splitters are held per switch unit, like modules: a unit's links at one fan-out share
    # ceil(links / fanout) splitters whichever bundles they belong to. Where both ends split,
    # the legs meet at a patch panel and each end's splitters carry half the links.
    both = (fanout_a > 1) & (fanout_b > 1)
    splitter = [pick_cables(fanout_a > 1, fanout_a), pick_cables(fanout_b > 1, fanout_b)]
    carried = [np.where(both, -(-cables // 2), cables), np.where(both, cables // 2, cables)]
    _tally_held(flat, tally, "cable", chosen, [(item, np.ones(len(cables))) for item in splitter],
                np.array([int(c.fanout) for c in chosen], dtype=np.int64),
                first_position, sides=(0, 0), links=carried, words=(words, phrases),
                word=lambda spec, w: f"{int(spec.fanout)}-way splitter: {w}")

    # Optics: both ends of every fiber bundle, by the module each end's port calls for.
    fiber = flat.bundles_of_medium("fiber")
    missing = fiber & ((sides[0][0] == NO_MODULE) | (sides[1][0] == NO_MODULE))
    for k in np.flatnonzero(missing).tolist():
        paths, ends = where(k)
        problems.append((k, 1, Diagnostic(
            "NO_TRANSCEIVER",
            f"no {float(flat.speed_gbit_s[k]):g} Gb/s transceiver in the catalog for {paths}",
            ends)))
    lanes = np.array([int(m.lanes) for m in modules], dtype=np.int64)
    _tally_held(flat, tally, "transceiver", modules,
                [(module, 1.0 / fanout) for module, fanout in sides], lanes, first_position,
                sides=(1, 2), by_power=True, words=(words, phrases),
                word=lambda spec, w: f"serves {w}")
    problems.sort(key=lambda p: (p[0], p[1]))
    return [diagnostic for _, _, diagnostic in problems]


# A link end's module, when it is not an index into the modules list: none fits (a
# NO_TRANSCEIVER warning), or the switch's optics are co-packaged (nothing to count).
NO_MODULE, CO_PACKAGED = -1, -2


def _link_ends(flat, split: np.ndarray, modules: list[ComponentSpec], problems: list,
               where) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Both ends of every bundle: per end (A, B) the index in ``modules`` (appended to) of the
    module its fiber links take there (or NO_MODULE, CO_PACKAGED) and the links one module
    port or cable end fans out to there; and every bundle's fibre code (0: copper or none, else
    1 + its index in FIBER_TYPES). Both ends take modules of one fibre type (core/optics.py);
    ends that share none are an OPTICS_MEDIUM_MISMATCH, copper on co-packaged optics too.

    Options are found once per distinct (spec, link class, speed, length) end and the choice
    once per distinct pair of ends, then mapped back to the bundles."""
    from core.diagnostics import Diagnostic  # noqa: PLC0415 - avoid a cycle at import time

    catalog = flat.catalog
    speeds, lengths = flat.speed_values, flat.length_values
    n = len(flat.cables)
    fiber = flat.bundles_of_medium("fiber")
    scale_out = flat.bundles_of_kind("scale-out").astype(np.int64)
    sides = []
    keys = []
    for ends in (flat.bundle_a, flat.bundle_b):
        row = flat.spec_row[ends]
        fanout = np.ones(n, dtype=np.int64)
        # copper on a switch's breakout port: a splitter DAC, one leg per link of the port
        copper = ~fiber & ((split[row, flat.speed_code] >= 2) if n else np.zeros(0, dtype=bool))
        fanout[copper] = split[row[copper], flat.speed_code[copper]]
        sides.append((np.full(n, NO_MODULE, dtype=np.int64), fanout))
        keys.append(((row * len(speeds) + flat.speed_code) * len(lengths) + flat.length_code) * 2
                    + scale_out)
    fiber_code = np.zeros(n, dtype=np.int64)
    co_packaged = np.array([isinstance(spec, SwitchSpec) and spec.co_packaged_optics
                            for spec in flat.specs], dtype=bool)
    for k in np.flatnonzero(~fiber & (co_packaged[flat.spec_row[flat.bundle_a]]
                                      | co_packaged[flat.spec_row[flat.bundle_b]])).tolist():
        paths, ends = where(k)
        problems.append((k, 1, Diagnostic(
            "OPTICS_MEDIUM_MISMATCH",
            f"{paths}: a copper link cannot reach a co-packaged-optics switch, whose ports "
            f"take single-mode fibre", ends)))
    if not fiber.any():
        return sides, fiber_code
    space = len(flat.specs) * len(speeds) * len(lengths) * 2
    both = np.concatenate([keys[0][fiber], keys[1][fiber]])
    distinct, inverse = _distinct(both, space)
    options = []
    for code in distinct.tolist():
        rest, out = divmod(code, 2)
        rest, length_code = divmod(rest, len(lengths))
        spec_row, speed_code = divmod(rest, len(speeds))
        options.append(end_options(catalog, flat.specs[spec_row], bool(out),
                                   float(speeds[speed_code]), float(lengths[length_code])))
    m = int(fiber.sum())
    pair = inverse[:m] * len(distinct) + inverse[m:]
    pairs, pair_of = _distinct(pair, len(distinct) ** 2)
    index = {}

    def module_index(option: EndOption) -> int:
        if option.module is None:
            return CO_PACKAGED
        key = option.module.id
        if key not in index:
            if option.module not in modules:
                modules.append(option.module)
            index[key] = modules.index(option.module)
        return index[key]

    chosen = np.full((len(pairs), 5), -1, dtype=np.int64)  # kind, module a, fan a, module b, fan b
    mismatch = np.zeros(len(pairs), dtype=bool)
    for r, code in enumerate(pairs.tolist()):
        a, b = options[code // len(distinct)], options[code % len(distinct)]
        kind = pick_fiber(a, b)
        if kind is None:  # no common type: each end's own best, and the error
            mismatch[r] = bool(a) and bool(b)
            first_a, first_b = _first(a), _first(b)
            chosen[r] = (0, *(_as_row(first_a, module_index)), *(_as_row(first_b, module_index)))
            continue
        chosen[r] = (1 + FIBER_TYPES.index(kind), *_as_row(a[kind], module_index),
                     *_as_row(b[kind], module_index))
    picked = chosen[pair_of]
    fiber_code[fiber] = picked[:, 0]
    for side, (col_module, col_fanout) in enumerate(((1, 2), (3, 4))):
        module, fanout = sides[side]
        module[fiber] = picked[:, col_module]
        fanout[fiber] = np.maximum(1, picked[:, col_fanout])
    on_fiber = np.flatnonzero(fiber)
    for j in np.flatnonzero(mismatch[pair_of]).tolist():
        k = int(on_fiber[j])
        paths, ends = where(k)
        a, b = options[inverse[j]], options[inverse[m + j]]
        problems.append((k, 1, Diagnostic(
            "OPTICS_MEDIUM_MISMATCH",
            f"{paths}: no optics of one fibre type fit both ends at "
            f"{float(flat.speed_gbit_s[k]):g} Gb/s over {float(flat.length_m[k]):g} m: "
            f"{ends[0]} takes only {_offer(a)}, {ends[1]} only {_offer(b)}", ends)))
    return sides, fiber_code


def _first(options: dict[str, EndOption]) -> EndOption | None:
    return next(iter(options.values()), None)


def _as_row(option: EndOption | None, module_index) -> tuple[int, int]:
    """(module index, fan-out) of an end's option; (NO_MODULE, 1) when it has none."""
    if option is None:
        return NO_MODULE, 1
    return module_index(option), option.fanout


def _offer(options: dict[str, EndOption]) -> str:
    return ", ".join(f"{kind} ({o.module.id if o.module else 'co-packaged'})"
                     for kind, o in options.items()) or "nothing"


def _breakout_phrases(flat, split: np.ndarray) -> tuple[list[str], np.ndarray]:
    """What a link is at each (spec, speed) in a user's words: the distinct phrases ("400G via
    2x breakout of 800G ports") and, by (spec row, speed code), the index of its phrase (-1:
    no breakout there)."""
    phrases: list[str] = []
    phrase_of = np.full(split.shape, -1, dtype=np.int64)
    for spec_row, speed_code in zip(*np.nonzero(split >= 2)):
        spec = flat.specs[spec_row]
        phrase = breakout_words(float(flat.speed_values[speed_code]),
                                int(split[spec_row, speed_code]), spec.native_port_gbit_s)
        if phrase not in phrases:
            phrases.append(phrase)
        phrase_of[spec_row, speed_code] = phrases.index(phrase)
    return phrases, phrase_of


def _distinct(codes: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` of codes below ``space``, in linear time where
    the space is small next to the codes (the usual case: a few speeds and lengths)."""
    if space > 4 * len(codes) + 65_536:
        return np.unique(codes, return_inverse=True)
    distinct = np.flatnonzero(np.bincount(codes, minlength=space))
    lookup = np.zeros(space, dtype=np.int64)
    lookup[distinct] = np.arange(len(distinct))
    return distinct, lookup[codes]


def _tally_held(flat, tally: _Tally, role: str, specs: list[ComponentSpec],
                ends_items: list[tuple[np.ndarray, np.ndarray]], capacity: np.ndarray,
                first_position: int, sides: tuple[int, int], by_power: bool = False,
                links: list[np.ndarray] | None = None,
                words: tuple[list[np.ndarray], list[str]] = ((), []),
                word: Callable[[ComponentSpec, str], str] = lambda spec, w: w) -> None:
    """Add the items every unit holds at bundle ends to ``tally``: ``ends_items`` gives, for
    ends A and B, each bundle's item there (index in ``specs``, -1: none) and the share of an
    item port one of its links takes; a unit holds ceil(shares / capacity) of each item.

    ``by_power`` lists items in a compute node's cages apart (they draw from the node's own
    power budget); ``links`` are the links the items of each end carry, ``words`` what each
    bundle end is (per end, an index into the phrases that follow it, -1: nothing to say;
    core/port_modes.py) and ``word`` the BOM note an item makes of a phrase; ``sides`` place
    the items in the listing order."""
    if not specs:
        return
    held = _held_per_unit(flat, ends_items, capacity)
    bundle_ends = (flat.bundle_a, flat.bundle_b)
    for j, spec in enumerate(specs):
        for powered in ((True, False) if by_power else (True,)):
            on_side = [(item == j) & ((flat.is_compute[ends] != powered) if by_power else True)
                       for (item, _), ends in zip(ends_items, bundle_ends)]
            groups = (held[:, j] > 0) & ((flat.is_compute != powered) if by_power else True)
            if not groups.any() or not any(hit.any() for hit in on_side):
                continue
            # listed where the first bundle puts this item on such a group
            position = min(first_position + 3 * int(np.argmax(hit)) + side
                           for side, hit in zip(sides, on_side) if hit.any())
            carried = sum(int(count[hit].sum()) for count, hit in zip(links, on_side)) \
                if links is not None else 0
            codes, phrases = words
            said = tuple(dict.fromkeys(
                word(spec, phrases[c]) for side_codes, hit in zip(codes, on_side)
                for c in np.flatnonzero(np.bincount(side_codes[hit] + 1,
                                                    minlength=len(phrases) + 1)[1:]).tolist()))
            tally.add(spec, role, powered, {}, int(held[groups, j].sum()), position,
                      np.flatnonzero(groups), links=carried, notes=said)


def _held_per_unit(flat, ends_items: list[tuple[np.ndarray, np.ndarray]],
                   capacity: np.ndarray) -> np.ndarray:
    """Items held per (group, item), summed over the group's units: a unit whose links take
    ``shares`` of an item's ports (whichever bundles they belong to) holds ceil(shares /
    capacity) of it, so a twin-port OSFP serves two of a switch's or a DGX's 400G ports and a
    server drawn on its own with one link per rail gets the same modules as 32 servers in one
    bundle.

    Where every bundle end on a group spreads its links evenly (each unit gets cables /
    units), the shares are the same for all units of the group; the groups where some bundle
    end does not divide evenly are counted unit by unit from their links (core/flatten.py's
    wiring)."""
    n, kinds = len(flat.multiplicity), len(capacity)
    per_instance = flat.cables // flat.owner_instances
    uneven = np.zeros(n, dtype=bool)
    bundle_ends = (flat.bundle_a, flat.bundle_b)
    for ends, (item, _) in zip(bundle_ends, ends_items):
        units = np.maximum(1, flat.multiplicity[ends] // flat.owner_instances)
        uneven[ends[(item >= 0) & (per_instance % units != 0)]] = True
    # Item ports taken per unit of the evenly cabled groups.
    per_unit = np.zeros(n * kinds)
    for ends, (item, share) in zip(bundle_ends, ends_items):
        even = (item >= 0) & ~uneven[ends]
        per_unit += np.bincount(ends[even] * kinds + item[even],
                                weights=flat.cables[even] * share[even]
                                / flat.multiplicity[ends[even]], minlength=n * kinds)
    held = _items_for(per_unit.reshape(n, kinds), capacity) * flat.multiplicity[:, None]
    if uneven.any():
        held += _held_unit_by_unit(flat, ends_items, uneven, capacity)
    return held


def _items_for(shares: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Items that hold ``shares`` item ports (fractions: breakout links) at ``capacity`` ports
    each; the tolerance keeps a sum of halves from rounding up past a whole item."""
    return np.ceil(shares / capacity - 1e-9).astype(np.int64)


def _held_unit_by_unit(flat, ends_items: list[tuple[np.ndarray, np.ndarray]],
                       uneven: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Items per (group, item) of the ``uneven`` groups, from each unit's own links.

    By the wiring rule of core/flatten.py a bundle puts, in every instance of its block, a run
    of ``share`` cables on each A unit from the first one, and per_instance // units cables
    (one more on the first per_instance % units) on each B unit, so each unit's cables are
    summed from these runs without listing every cable."""
    n, kinds = len(flat.multiplicity), len(capacity)
    sizes = np.where(uneven, flat.multiplicity, 0)
    first = np.cumsum(sizes) - sizes  # the uneven groups' units, numbered group after group
    taken_ports = np.zeros(int(sizes.sum()) * kinds)
    instances = flat.owner_instances
    per_instance = flat.cables // instances
    for side, ends in ((0, flat.bundle_a), (1, flat.bundle_b)):
        item, weight = ends_items[side]
        ks = np.flatnonzero((item >= 0) & uneven[ends])
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
        taken_ports += np.bincount(local * kinds + item[k], weights=count[entry] * weight[k],
                                   minlength=len(taken_ports))
    held_by_unit = _items_for(taken_ports.reshape(-1, kinds), capacity)
    unit_group = np.repeat(np.arange(n), sizes)
    return np.stack([np.bincount(unit_group, weights=held_by_unit[:, j], minlength=n)
                     for j in range(kinds)], axis=1).astype(np.int64)


def _tally_by_item(flat, tally: _Tally, item: np.ndarray, specs: list[ComponentSpec], role: str,
                   count: np.ndarray, first_position: int, side: int,
                   ends: np.ndarray | None = None, powered: bool = True,
                   links: np.ndarray | None = None) -> None:
    """Add ``count`` of every bundle to the catalog entry ``specs[item]`` (-1: none), and for
    cables the ``links`` they carry. The groups the items come from are the bundle ends
    ``ends``, or both ends."""
    for j, spec in enumerate(specs):
        picked = np.flatnonzero(item == j)
        if not len(picked):
            continue
        groups = (ends[picked] if ends is not None
                  else np.concatenate([flat.bundle_a[picked], flat.bundle_b[picked]]))
        tally.add(spec, role, powered, {}, int(count[picked].sum()),
                  first_position + 3 * int(picked[0]) + side, groups,
                  links=int(links[picked].sum()) if links is not None else 0)
