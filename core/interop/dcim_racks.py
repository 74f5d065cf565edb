"""The floor plan (core/site) in a DCIM (Nautobot, NetBox): halls and rows as groups of racks,
racks, devices at their U; what both servers share, their own calls are in nautobot_racks.py and
netbox.py.

Export: a group per hall (its name), a child group per row ("hall 1 row 3": rows are numbered
over all halls, as the floor plan and its exports number them), a rack per rack ("rack 17", its
number in the floor plan; facility id "slot 5", its place in the row; status Planned; the site's
rack height), and every device in its rack at its bottom U (face front). A device that does not
fill whole rack units (an NVLink switch chip, half of a tray) is in its rack without a position,
as Nautobot keeps only whole U (NetBox takes half U; both get the same plan).

Import: the racks give back where each rack stands. The imported design is placed on halls named
and sized as the server's (rows used, the longest row), and each server rack is matched to the
design's rack that holds its devices (by device name: a design exported by this module keeps
them); a rack that stands elsewhere than the automatic placement puts it becomes a move of the
project's "site" key, so the floor plan shows the racks where the server has them. What a DCIM
does not hold (hall power and cooling, rack width, row pitch, CDU capacity) takes the defaults.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from core.interop.graphml import unit_names
from core.site.place import place
from core.site.templates import unit_height_u
from core.site_spec import Hall, RackMove, SiteSpec

_ROW = re.compile(r"\brow (\d+)$")
_SLOT = re.compile(r"^slot (\d+)$")


@dataclass(frozen=True)
class RackPlan:
    hall_names: tuple[str, ...]
    rack_hall: list[int]
    rack_row: list[int]          # over all halls, from 0
    rack_slot: list[int]         # from 0
    rack_height_u: int
    unit_rack: list[int]         # per unit of the unit graph; -1: in no rack
    unit_position: list          # bottom U from 1, or None (not whole U, or past the rack's top)
    group_u_height: list[int]    # rack units of one device of each group (0: not whole U)


def rack_plan(design, catalog) -> tuple[RackPlan, object, object]:
    """The design placed on its site as a DCIM takes it; with the flattened design and unit
    graph the placement was made on (the export's device order)."""
    site, flat, graph = place(design, catalog)
    t, lay = site.template, site.layout
    n = graph.units
    unit_rack = np.full(n, -1, dtype=np.int64)
    bottom = np.zeros(n)
    for g, (racks, bottom_u) in t.units.items():
        start, stop = int(graph.offsets[g]), int(graph.offsets[g + 1])
        unit_rack[start:stop] = racks[:stop - start]
        bottom[start:stop] = bottom_u[:stop - start]
    heights = [unit_height_u(flat, g) for g in range(len(flat.paths))]
    group_u = [int(h) if h == int(h) else 0 for h in heights]
    top = site.spec.rack_height_u
    unit_u = np.repeat(np.array(group_u, dtype=np.int64), np.diff(graph.offsets))
    whole = (bottom == np.floor(bottom)) & (unit_u > 0) & (unit_rack >= 0) & (bottom + unit_u <= top)
    positions = [int(b) + 1 if ok else None for b, ok in zip(bottom.tolist(), whole.tolist())]
    plan = RackPlan(tuple(h.name for h in lay.halls), lay.rack_hall.tolist(), lay.rack_row.tolist(),
                    lay.rack_slot.tolist(), int(top), unit_rack.tolist(), positions, group_u)
    return plan, flat, graph


def device_places(plan: RackPlan, rack_ids: list) -> list[dict]:
    """Per unit: the rack, position and face fields of its device (empty: in no rack)."""
    out = []
    for rack, position in zip(plan.unit_rack, plan.unit_position):
        if rack < 0:
            out.append({})
        elif position is None:
            out.append({"rack": rack_ids[rack]})
        else:
            out.append({"rack": rack_ids[rack], "position": position, "face": "front"})
    return out


# --- import ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DcimRack:
    """A rack as a DCIM holds it: its group (a rack group in Nautobot, a location in NetBox)."""
    id: str
    name: str
    facility_id: str
    group: str | None
    u_height: int


@dataclass(frozen=True)
class DcimGroup:
    id: str
    name: str
    parent: str | None


@dataclass(frozen=True)
class PlacedRack:
    hall: str
    row: int        # over all halls, from 0
    slot: int       # from 0
    devices: tuple[str, ...]


def devices_by_rack(devices) -> dict[str, list[str]]:
    """Rack id -> the names of the devices in it (``devices``: anything with name and rack)."""
    in_rack: dict[str, list[str]] = {}
    for device in devices:
        if device.rack is not None:
            in_rack.setdefault(device.rack, []).append(device.name)
    return in_rack


def placed_racks(in_rack: dict[str, list[str]], racks: list[DcimRack], groups: list[DcimGroup],
                 group_word: str) -> tuple[list[PlacedRack], int, list[str]]:
    """The racks that hold devices, with their hall, row and slot; the racks' common height (0:
    none or several); notes on racks that name no row or slot (``group_word``: what the server
    calls the group a row is)."""
    by_id = {g.id: g for g in groups}
    out, unplaced = [], []
    heights = {int(r.u_height) for r in racks if r.id in in_rack}
    for rack in racks:
        devices = in_rack.get(rack.id)
        if not devices:
            continue
        group = by_id.get(rack.group or "")
        row = _ROW.search(group.name) if group is not None else None
        slot = _SLOT.match(rack.facility_id or "")
        if row is None or slot is None or int(row.group(1)) < 1 or int(slot.group(1)) < 1:
            unplaced.append(rack.name)
            continue
        parent = by_id.get(group.parent) if group.parent else None
        hall = parent.name if parent is not None else group.name[:row.start()].strip() or group.name
        out.append(PlacedRack(hall, int(row.group(1)) - 1, int(slot.group(1)) - 1, tuple(devices)))
    notes = []
    if unplaced:
        notes.append(f"{len(unplaced)} racks name no row ({group_word} '... row N') or slot (facility id "
                     f"'slot N'), e.g. {unplaced[0]!r}: their devices are placed automatically")
    return out, (heights.pop() if len(heights) == 1 else 0), notes


def site_from_racks(design, catalog, racks: list[PlacedRack], rack_height_u: int) -> tuple[SiteSpec | None, list[str]]:
    """The "site" key that puts ``design``'s racks where ``racks`` stand, and notes on what
    could not be kept."""
    if not racks:
        return None, []
    spec = SiteSpec() if not rack_height_u else replace(SiteSpec(), rack_height_u=rack_height_u)
    spec = replace(spec, halls=_halls(racks, spec))
    plan, flat, graph = rack_plan(_with_site(design, spec), catalog)
    rack_of_name = dict(zip(unit_names(flat, graph.offsets), plan.unit_rack))
    target: dict[int, tuple[int, int]] = {}
    unmatched = 0
    for rack in sorted(racks, key=lambda r: (r.row, r.slot)):
        votes = Counter(rack_of_name[d] for d in rack.devices if rack_of_name.get(d, -1) >= 0)
        if not votes:
            unmatched += 1
            continue
        ours = votes.most_common(1)[0][0]
        if ours not in target:
            target[ours] = (rack.row, rack.slot)
    moves = tuple(RackMove(k + 1, row + 1, slot + 1) for k, (row, slot) in sorted(target.items())
                  if (plan.rack_row[k], plan.rack_slot[k]) != (row, slot))
    notes = []
    if unmatched:
        notes.append(f"{unmatched} racks hold no device of the imported design by name: the design's "
                     "racks stand where the automatic placement puts them")
    return replace(spec, moves=moves), notes


def _halls(racks: list[PlacedRack], spec: SiteSpec) -> tuple[Hall, ...]:
    """The server's halls in row order, each as deep as its rows and as wide as its longest row."""
    halls: dict[str, list[PlacedRack]] = {}
    for rack in sorted(racks, key=lambda r: r.row):
        halls.setdefault(rack.hall, []).append(rack)
    out = []
    for number, (name, held) in enumerate(halls.items(), 1):
        rows = max(r.row for r in held) - min(r.row for r in held) + 1
        slots = max(r.slot for r in held) + 1
        default = spec.default_hall(number)
        out.append(replace(default, name=name or default.name, depth_m=rows * spec.row_pitch_m,
                           width_m=slots * spec.rack_width_m + 2 * spec.end_aisle_m))
    return tuple(out)


def _with_site(design, spec: SiteSpec):
    design.site = spec
    return design


def check_positions(design, catalog, devices, server: str) -> list[str]:
    """Devices the server puts at another U than the floor plan does: a note (the floor plan racks
    by its own rules; the project holds no U per device)."""
    plan, flat, graph = rack_plan(design, catalog)
    position_of = dict(zip(unit_names(flat, graph.offsets), plan.unit_position))
    differ = [r.name for r in devices if r.position is not None and r.name in position_of
              and position_of[r.name] is not None and position_of[r.name] != r.position]
    if not differ:
        return []
    return [f"{len(differ)} devices sit at another U in {server} than the floor plan puts them "
            f"(e.g. {differ[0]!r}): the floor plan's kept"]
