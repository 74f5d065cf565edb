"""The floor plan (core/site) in Nautobot: halls and rows as rack groups, racks, devices at their U.

Export: a rack group per hall (its name), a child rack group per row ("hall 1 row 3": rows are
numbered over all halls, as the floor plan and its exports number them), a rack per rack
("rack 17", its number in the floor plan; facility id "slot 5", its place in the row; status
Planned; the site's rack height), and every device in its rack at its bottom U (face front). A
device that does not fill whole rack units (an NVLink switch chip, half of a tray) is in its rack
without a position, as Nautobot keeps only whole U.

Import: the racks give back where each rack stands. The imported design is placed on halls named
and sized as Nautobot's (rows used, the longest row), and each Nautobot rack is matched to the
design's rack that holds its devices (by device name: a design exported by this module keeps
them); a rack that stands elsewhere than the automatic placement puts it becomes a move of the
project's "site" key, so the floor plan shows the racks where Nautobot has them. What Nautobot
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
    """The design placed on its site as Nautobot takes it; with the flattened design and unit
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


def write_racks(api, url: str, call, bulk, location, status, plan: RackPlan) -> list:
    """Rack groups and racks of ``plan`` in ``location``; the rack ids in the plan's order."""
    if not plan.rack_row:
        return []
    hall_ids: dict[int, object] = {}
    row_ids: dict[int, object] = {}
    for hall, row in sorted(set(zip(plan.rack_hall, plan.rack_row)), key=lambda hr: hr[1]):
        name = plan.hall_names[hall][:100]
        if hall not in hall_ids:
            hall_ids[hall] = call(lambda n=name: api.dcim.rack_groups.create(name=n, location=location.id),
                                  url, f"create the rack group {name!r}").id
        row_name = f"{name} row {row + 1}"[:100]
        row_ids[row] = call(lambda n=row_name, h=hall_ids[hall]: api.dcim.rack_groups.create(
            name=n, location=location.id, parent=h), url, f"create the rack group {row_name!r}").id
    return bulk(api.dcim.racks, url, "create racks", [
        {"name": f"rack {k + 1}", "facility_id": f"slot {slot + 1}", "location": location.id,
         "rack_group": row_ids[row], "status": status.id, "u_height": plan.rack_height_u}
        for k, (row, slot) in enumerate(zip(plan.rack_row, plan.rack_slot))])


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
class _NautobotRack:
    hall: str
    row: int        # over all halls, from 0
    slot: int       # from 0
    devices: tuple[str, ...]


def read_racks(api, url: str, call, location, records) -> tuple[list[_NautobotRack], int, list[str]]:
    """The location's racks that hold devices, with their hall, row and slot; the racks' common
    height (0: none or several); notes on racks that name no row or slot."""
    in_rack: dict[str, list[str]] = {}
    for record in records:
        rack = getattr(record, "rack", None)
        if rack is not None:
            in_rack.setdefault(str(getattr(rack, "id", rack)), []).append(record.name)
    if not in_rack:
        return [], 0, []
    racks = call(lambda: list(api.dcim.racks.filter(location=location.id)), url, "read racks")
    groups = {str(g.id): g for g in call(lambda: list(api.dcim.rack_groups.filter(location=location.id)),
                                         url, "read rack groups")}
    out, unplaced = [], []
    heights = {int(r.u_height) for r in racks if str(r.id) in in_rack}
    for rack in racks:
        devices = in_rack.get(str(rack.id))
        if not devices:
            continue
        group = groups.get(str(getattr(rack.rack_group, "id", rack.rack_group) or ""))
        row = _ROW.search(group.name) if group is not None else None
        slot = _SLOT.match(rack.facility_id or "")
        if row is None or slot is None or int(row.group(1)) < 1 or int(slot.group(1)) < 1:
            unplaced.append(rack.name)
            continue
        parent = groups.get(str(getattr(group.parent, "id", group.parent) or "")) if group.parent else None
        hall = parent.name if parent is not None else group.name[:row.start()].strip() or group.name
        out.append(_NautobotRack(hall, int(row.group(1)) - 1, int(slot.group(1)) - 1, tuple(devices)))
    notes = []
    if unplaced:
        notes.append(f"{len(unplaced)} racks name no row (rack group '... row N') or slot (facility id "
                     f"'slot N'), e.g. {unplaced[0]!r}: their devices are placed automatically")
    return out, (heights.pop() if len(heights) == 1 else 0), notes


def site_from_racks(design, catalog, racks: list[_NautobotRack], rack_height_u: int) -> tuple[SiteSpec | None, list[str]]:
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


def _halls(racks: list[_NautobotRack], spec: SiteSpec) -> tuple[Hall, ...]:
    """Nautobot's halls in row order, each as deep as its rows and as wide as its longest row."""
    halls: dict[str, list[_NautobotRack]] = {}
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


def check_positions(design, catalog, records) -> list[str]:
    """Devices Nautobot puts at another U than the floor plan does: a note (the floor plan racks
    by its own rules; the project holds no U per device)."""
    plan, flat, graph = rack_plan(design, catalog)
    position_of = dict(zip(unit_names(flat, graph.offsets), plan.unit_position))
    differ = [r.name for r in records if r.position is not None and r.name in position_of
              and position_of[r.name] is not None and position_of[r.name] != r.position]
    if not differ:
        return []
    return [f"{len(differ)} devices sit at another U in Nautobot than the floor plan puts them "
            f"(e.g. {differ[0]!r}): the floor plan's kept"]


def require_rack_groups(api, url: str, call, site_type) -> None:
    """A location type that takes devices and racks but not rack groups gets rack groups too."""
    types = [str(getattr(t, "value", t)) for t in (site_type.content_types or [])]
    if "dcim.rackgroup" not in types:
        call(lambda: site_type.update({"content_types": types + ["dcim.rackgroup"]}), url,
             "let the location type hold rack groups")

