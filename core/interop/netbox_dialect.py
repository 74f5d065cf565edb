"""NetBox 4.x's dialect, without a server: the records its REST API returns, read into the neutral
records of core/interop/dcim.py, and a design plan written as the bodies NetBox's API takes.

Shapes (NetBox 4.6.8, netbox/dcim/api/serializers_/*.py and netbox/dcim/choices.py):

* a device: ``device_type`` {id, manufacturer, model, slug...}, ``role`` {id, name, slug...},
  ``site``, ``location``, ``rack`` {id, name...} (each nested, or null), ``position`` (a decimal
  in U, 0.5 steps, or null), ``face`` and ``status`` as {"value", "label"};
* an interface: ``device`` {id, name...}, ``type`` {"value", "label"}, ``speed`` in kbit/s or null;
* a cable: ``a_terminations`` / ``b_terminations``, lists of {"object_type": "dcim.interface",
  "object_id": N, "object": {...}}; ``type`` a plain string ("smf", "dac-passive", "" unset);
  ``status`` and ``length_unit`` as {"value", "label"}; ``length`` a decimal (two places) or null;
* a rack: ``location`` nested or null, ``facility_id``, ``u_height``;
* a location (NetBox's nestable place within a site): ``parent`` nested or null.

Writing, the same fields take ids and plain values ("planned"), and a cable's terminations are
lists of {"object_type", "object_id"}. Halls and rows are locations (a row a child of its hall),
as NetBox's rack groups do not nest. Names take slugs besides (lowercase letters, digits, "-"
and "_"). Every record read is a plain dict (pynetbox's ``dict(record)`` gives it back in this
shape), so the dialect is the same with or without pynetbox.
"""

from __future__ import annotations

import re

from core.errors import DesignError
from core.interop.dcim import MEDIUM_TO_CABLE, DcimCable, DcimDevice, DcimInterface, DcimPlan
from core.interop.dcim_racks import DcimGroup, DcimRack, device_places

# NetBox's InterfaceTypeChoices (dcim/choices.py) by line rate
INTERFACE_TYPES = {100.0: "100gbase-x-qsfp28", 200.0: "200gbase-x-qsfp56", 400.0: "400gbase-x-osfp",
                   800.0: "800gbase-x-osfp", 1600.0: "1.6tbase-x-osfp1600"}
PLANNED = "planned"   # Site/Location/Rack/Device/LinkStatusChoices.STATUS_PLANNED
ROLE_COLOUR = "607d8b"  # a device role's colour: six hex digits, required by the model
DEVICE_NAME_CHARS = 64  # Device.name's max_length (dcim/models/devices.py)
_SLUG = re.compile(r"[^a-z0-9_-]+")


def slug(name: str) -> str:
    """NetBox's slug of ``name`` (at most 100 characters of [a-z0-9_-])."""
    return (_SLUG.sub("-", name.lower()).strip("-") or "x")[:100]


# --- writing -----------------------------------------------------------------------------------

def check_names(plan: DcimPlan) -> None:
    """A device name NetBox would refuse half-way through the export is refused before it."""
    for name in plan.unit_name:
        if len(name) > DEVICE_NAME_CHARS:
            raise DesignError(f"device {name!r}: {len(name)} characters, NetBox keeps {DEVICE_NAME_CHARS} "
                              "at most (shorten the ids of the blocks around it)")


def site_body(name: str) -> dict:
    return {"name": name, "slug": slug(name), "status": PLANNED}


def manufacturer_body(vendor: str) -> dict:
    return {"name": vendor, "slug": slug(vendor)}


def device_type_body(model: str, manufacturer_id, u_height: int) -> dict:
    return {"model": model, "slug": slug(model), "manufacturer": manufacturer_id, "u_height": u_height}


def role_body(role: str) -> dict:
    return {"name": role, "slug": slug(role), "color": ROLE_COLOUR}


def location_body(name: str, site_id, parent_id=None) -> dict:
    body = {"name": name, "slug": slug(name), "site": site_id, "status": PLANNED}
    return body | ({"parent": parent_id} if parent_id is not None else {})


def hall_and_row_names(plan: DcimPlan) -> list[tuple[int, str, int, str]]:
    """(hall, hall name, row, row name) of every row that holds racks, in row order."""
    out = []
    for hall, row in sorted(set(zip(plan.racks.rack_hall, plan.racks.rack_row)), key=lambda hr: hr[1]):
        name = plan.racks.hall_names[hall][:100]
        out.append((hall, name, row, f"{name} row {row + 1}"[:100]))
    return out


def rack_bodies(plan: DcimPlan, site_id, row_ids: dict[int, object]) -> list[dict]:
    racks = plan.racks
    return [{"name": f"rack {k + 1}", "facility_id": f"slot {slot + 1}", "site": site_id,
             "location": row_ids[row], "status": PLANNED, "u_height": racks.rack_height_u}
            for k, (row, slot) in enumerate(zip(racks.rack_row, racks.rack_slot))]


def device_bodies(plan: DcimPlan, site_id, type_ids: list, role_ids: list, rack_ids: list,
                  rack_location: list) -> list[dict]:
    """One per unit; a device in a rack is in the rack's location too (NetBox checks they agree)."""
    places = device_places(plan.racks, rack_ids)
    out = []
    for u, g in enumerate(plan.unit_group):
        rack = plan.racks.unit_rack[u]
        where = {"location": rack_location[rack]} if rack >= 0 else {}
        out.append({"name": plan.unit_name[u], "device_type": type_ids[g], "role": role_ids[g],
                    "site": site_id, "status": PLANNED, **where, **places[u]})
    return out


def interface_bodies(plan: DcimPlan, device_ids: list) -> list[dict]:
    return [{"device": device_ids[unit], "name": name, "type": INTERFACE_TYPES.get(speed, "other"),
             "speed": int(round(speed * 1e6)), "enabled": True}
            for unit, name, speed in zip(plan.interface_unit, plan.interface_name, plan.interface_speed_gbit_s)]


def cable_bodies(plan: DcimPlan, interface_ids: list) -> list[dict]:
    return [{"a_terminations": [{"object_type": "dcim.interface", "object_id": interface_ids[2 * i]}],
             "b_terminations": [{"object_type": "dcim.interface", "object_id": interface_ids[2 * i + 1]}],
             "status": PLANNED, "label": kind[:100], "type": MEDIUM_TO_CABLE.get(medium, "other"),
             **_length(length)}
            for i, (kind, medium, length) in enumerate(zip(plan.cable_kind, plan.cable_medium,
                                                           plan.cable_length_m))]


def _length(length_m: float) -> dict:
    # NetBox keeps a length as a decimal of 8 digits, 2 after the point, in a unit
    return {"length": min(999_999.99, max(0.01, round(length_m, 2))), "length_unit": "m"}


# --- reading -----------------------------------------------------------------------------------

def value(field):
    """A choice field's value: NetBox writes {"value": ..., "label": ...}; a plain value as is."""
    return field.get("value") if isinstance(field, dict) else field


def _id(nested) -> str | None:
    """The id of a nested object, or None."""
    if nested is None:
        return None
    return str(nested["id"]) if isinstance(nested, dict) else str(nested)


def read_device(record: dict) -> DcimDevice:
    role = record.get("role") or {}
    position = record.get("position")
    return DcimDevice(str(record["id"]), record.get("name") or f"device {record['id']}",
                      record["device_type"]["model"], role.get("name", "") if isinstance(role, dict) else "",
                      _id(record.get("rack")), float(position) if position is not None else None)


def read_interface(record: dict) -> DcimInterface:
    return DcimInterface(str(record["id"]), _id(record["device"]), record.get("speed"))


def read_cables(records: list[dict]) -> tuple[list[DcimCable], list[str]]:
    """The cables from one interface to one interface; a note on the others (a breakout or a
    cable to a front port joins more than two devices' interfaces, which a link bundle cannot)."""
    out, other = [], 0
    for record in records:
        a, b = _interface(record.get("a_terminations")), _interface(record.get("b_terminations"))
        if a is None or b is None:
            other += 1
        length = record.get("length")
        out.append(DcimCable(str(record["id"]), a, b, record.get("label") or "", value(record.get("type")) or "",
                             float(length) if length is not None else None, value(record.get("length_unit"))))
    notes = [f"{other} cables do not join one interface to one interface (breakouts, patch panels): "
             "left out"] if other else []
    return out, notes


def _interface(terminations) -> str | None:
    if not terminations or len(terminations) != 1 or terminations[0].get("object_type") != "dcim.interface":
        return None
    return str(terminations[0]["object_id"])


def read_rack(record: dict) -> DcimRack:
    return DcimRack(str(record["id"]), record["name"], record.get("facility_id") or "",
                    _id(record.get("location")), int(record.get("u_height") or 0))


def read_location(record: dict) -> DcimGroup:
    return DcimGroup(str(record["id"]), record["name"], _id(record.get("parent")))
