"""A design written to, and read from, a Nautobot server (pynautobot, Nautobot's REST API).

Export writes the design as planned: a location of type "Site" named after the design, a
manufacturer per catalog vendor, a device type per catalog id (its model is the id), a role per
tier (compute, leaf, spine, core, storage, scale-up...), one device per unit ("su/nodes#17", as
the GraphML export names it), one interface per cable end with its speed, and one cable per
cable: status Planned, its length, its medium as the cable type and its link kind as the label.

Import reads a location's devices, interfaces and cables back: a device type whose model is a
catalog id is that entry (a mapping file names the others), the cables give the tiers, and the
devices fold into repeated blocks as a fabric dump does (core/interop/fold.py). What both hold
round-trips exactly: the same devices, catalog ids, cables, speeds, lengths, media and kinds.

What both servers share (the plan of devices, interfaces, cables and racks; the import from
neutral records) is in core/interop/dcim.py and dcim_racks.py; this module is Nautobot's dialect:
locations, statuses and roles as objects, cables with termination_a/termination_b.

The token is sent in the request header only: no message, project or report repeats it, and a
server's answer is reduced to its status and the object it concerns.
"""

from __future__ import annotations

from core.catalog import Catalog
from core.errors import DesignError
from core.interop.dcim import (MEDIUM_TO_CABLE, DcimCable, DcimDevice, DcimHolding, DcimInterface,
                               ExportSummary, dcim_plan, design_from_dcim)
from core.interop.dcim_racks import device_places
from core.interop.fabric_import import ImportSummary
from core.interop.fabric_map import FabricMap
from core.interop.nautobot_racks import read_racks, require_rack_groups, write_racks
from core.interop.rest import CHUNK, bulk, call, connected, get_or_create
from core.model import Design

_INTERFACE_TYPES = {100.0: "100gbase-x-qsfp28", 200.0: "200gbase-x-qsfp56", 400.0: "400gbase-x-osfp",
                    800.0: "800gbase-x-osfp", 1600.0: "1600gbase-x-osfp"}


def connect(url: str, token: str):
    """A pynautobot API handle, checked by one request; a one-line error that never holds the token
    (an optional dependency: the "nautobot" extra)."""
    return connected("pynautobot", "Nautobot", url, token, retries=0)


# --- export ------------------------------------------------------------------------------------

def export_to_nautobot(design: Design, catalog: Catalog, api, url: str,
                       location: str | None = None) -> ExportSummary:
    plan = dcim_plan(design, catalog, "Nautobot")
    location_name = (location or design.name or "Cluster Designer design")[:100]
    planned = _one(api.extras.statuses, url, "Planned")
    active = _one(api.extras.statuses, url, "Active")
    site_type = get_or_create(api.dcim.location_types, url, {"name": "Site"},
                              {"content_types": ["dcim.device", "dcim.rack", "dcim.rackgroup"],
                               "nestable": True})
    require_rack_groups(api, url, site_type)
    existing = call(lambda: api.dcim.locations.get(name=location_name), url, "read locations")
    if existing is not None:
        for what, endpoint in (("devices", api.dcim.devices), ("racks", api.dcim.racks),
                               ("rack groups", api.dcim.rack_groups)):
            held = call(lambda e=endpoint: e.count(location=existing.id), url, f"read {what}")
            if held:
                raise DesignError(f"{url}: location {location_name!r} already holds {held:,} "
                                  f"{what[:-1] if held == 1 else what}; "
                                  "choose another with --location")
        site = existing
    else:
        site = call(lambda: api.dcim.locations.create(name=location_name, location_type=site_type.id,
                                                      status=active.id), url, "create the location")
    # device types and roles, once per catalog id and tier
    type_of_group, role_of_group = [], []
    for vendor, model, role, u_height in zip(plan.group_vendor, plan.group_model, plan.group_role,
                                             plan.racks.group_u_height):
        maker = get_or_create(api.dcim.manufacturers, url, {"name": vendor}, {})
        type_of_group.append(get_or_create(api.dcim.device_types, url,
                                           {"model": model, "manufacturer": maker.id},
                                           {"u_height": u_height}).id)
        role_of_group.append(get_or_create(api.extras.roles, url, {"name": role},
                                           {"content_types": ["dcim.device"]}).id)
    rack_ids = write_racks(api, url, site, planned, plan.racks)
    places = device_places(plan.racks, rack_ids)
    device_ids = bulk(api.dcim.devices, url, "create devices", [
        {"name": plan.unit_name[u], "device_type": type_of_group[g], "role": role_of_group[g],
         "location": site.id, "status": planned.id, **places[u]} for u, g in enumerate(plan.unit_group)])
    ends = [{"device": device_ids[unit], "name": name, "status": active.id,
             "type": _INTERFACE_TYPES.get(speed, "other"), "speed": int(round(speed * 1e6))}
            for unit, name, speed in zip(plan.interface_unit, plan.interface_name,
                                         plan.interface_speed_gbit_s)]
    interface_ids = bulk(api.dcim.interfaces, url, "create interfaces", ends)
    cables = [{"termination_a_type": "dcim.interface", "termination_a_id": interface_ids[2 * i],
               "termination_b_type": "dcim.interface", "termination_b_id": interface_ids[2 * i + 1],
               "status": planned.id, "label": kind, "type": MEDIUM_TO_CABLE.get(medium, "other"),
               **_length(length)}
              for i, (kind, medium, length) in enumerate(zip(plan.cable_kind, plan.cable_medium,
                                                             plan.cable_length_m))]
    bulk(api.dcim.cables, url, "create cables", cables)
    return ExportSummary(location_name, plan.devices, len(ends), len(cables), len(rack_ids))


def _length(length_m: float) -> dict:
    # Nautobot keeps a length as a whole number (at most 32,767) in a unit
    centimetres = round(length_m * 100)
    if centimetres % 100 == 0 or centimetres > 32_767:
        return {"length": min(32_767, max(1, round(length_m))), "length_unit": "m"}
    return {"length": max(1, centimetres), "length_unit": "cm"}


def _one(endpoint, url: str, name: str):
    found = call(lambda: endpoint.get(name=name), url, f"read the status {name!r}")
    if found is None:
        raise DesignError(f"{url}: the server has no status {name!r}")
    return found


# --- import ------------------------------------------------------------------------------------

def design_from_nautobot(api, url: str, catalog: Catalog, location: str, mapping: FabricMap,
                         name: str = "") -> tuple[Design, ImportSummary]:
    site = call(lambda: api.dcim.locations.get(name=location), url, "read locations")
    if site is None:
        raise DesignError(f"{url}: no location named {location!r}")
    records = call(lambda: list(api.dcim.devices.filter(location=site.id, depth=1)), url, "read devices")
    if not records:
        raise DesignError(f"{url}: location {location!r} holds no devices")
    devices = [DcimDevice(str(r.id), r.name, r.device_type.model, getattr(r.role, "name", "") or "",
                          str(getattr(r.rack, "id", r.rack)) if r.rack is not None else None, r.position)
               for r in records]
    ids = [d.id for d in devices]
    interfaces = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        interfaces += [DcimInterface(str(i.id), str(getattr(i.device, "id", i.device)), i.speed)
                       for i in call(lambda c=chunk: list(api.dcim.interfaces.filter(device_id=c)), url,
                                     "read interfaces")]
    seen: set[str] = set()
    cables = []
    for start in range(0, len(ids), CHUNK):  # the cables of the location's devices, each once
        chunk = ids[start:start + CHUNK]
        for cable in call(lambda c=chunk: list(api.dcim.cables.filter(device_id=c)), url, "read cables"):
            if str(cable.id) not in seen:
                seen.add(str(cable.id))
                cables.append(DcimCable(str(cable.id), str(cable.termination_a_id), str(cable.termination_b_id),
                                        cable.label, _value(cable.type), cable.length,
                                        _value(cable.length_unit)))
    racks, groups = read_racks(api, url, site) if any(d.rack for d in devices) else ([], [])
    return design_from_dcim(DcimHolding(devices, interfaces, cables, racks, groups), catalog, mapping,
                            url, f"location {location!r}", name or location, "Nautobot", "rack group")


def _value(choice):
    """A choice field's value (pynautobot gives {"value", "label"} records or plain strings)."""
    return getattr(choice, "value", choice)
