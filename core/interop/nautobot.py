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

The token is sent in the request header only: no message, project or report repeats it, and a
server's answer is reduced to its status and the object it concerns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.catalog import Catalog
from core.errors import DesignError
from core.flatten import flatten
from core.interop.fabric_import import ImportSummary, design_from_devices
from core.interop.fabric_map import FabricMap
from core.interop.graphml import unit_names
from core.interop.nautobot_racks import (check_positions, device_places, rack_plan, read_racks,
                                         require_rack_groups, site_from_racks, write_racks)
from core.model import Design

# A device-level export past this many devices is hours of REST calls and a DCIM no one reads:
# such designs are planned in blocks.
MAX_DEVICES = 20_000
_CHUNK = 100
_INTERFACE_TYPES = {100.0: "100gbase-x-qsfp28", 200.0: "200gbase-x-qsfp56", 400.0: "400gbase-x-osfp",
                    800.0: "800gbase-x-osfp", 1600.0: "1600gbase-x-osfp"}
_MEDIUM_TO_CABLE = {"fiber": "smf", "copper": "dac-passive"}
_KIND_ROLES = {"server": "compute", "supernode": "compute", "storage": "storage"}
ROLE_PREFIX = "Cluster Designer: "


@dataclass(frozen=True)
class ExportSummary:
    location: str
    devices: int
    interfaces: int
    cables: int
    racks: int = 0

    def text(self) -> str:
        return (f"wrote {self.devices:,} devices in {self.racks:,} racks, {self.interfaces:,} interfaces "
                f"and {self.cables:,} cables to location {self.location!r} as planned")


def connect(url: str, token: str):
    """A pynautobot API handle, checked by one request; a one-line error that never holds the token."""
    try:
        import pynautobot  # noqa: PLC0415 - an optional dependency (the "nautobot" extra)
    except ImportError:
        raise DesignError("Nautobot needs pynautobot: pip install 'cluster-designer[nautobot]'") from None
    if not url.startswith(("http://", "https://")):
        raise DesignError(f"{url}: not an http(s) URL")
    if not token:
        raise DesignError("no Nautobot token: pass --token or set NAUTOBOT_TOKEN")
    api = pynautobot.api(url, token=token, retries=0)
    api.http_session.request = _with_timeout(api.http_session.request)
    _call(lambda: api.status(), url, "reach the server")
    return api


def _with_timeout(request, seconds: float = 300.0):
    def call(*args, **kwargs):
        kwargs.setdefault("timeout", seconds)
        return request(*args, **kwargs)
    return call


def _call(fn, where: str, what: str):
    """``fn()``, with any failure of the request as one line naming ``where`` and ``what``."""
    try:
        return fn()
    except DesignError:
        raise
    except Exception as exc:  # noqa: BLE001 - requests' and pynautobot's errors, reduced to one line
        status = getattr(getattr(exc, "req", None), "status_code", None)
        detail = _detail(exc)
        raise DesignError(f"{where}: cannot {what}" + (f" (HTTP {status}{detail})" if status else
                                                         f" ({type(exc).__name__})")) from None


def _detail(exc) -> str:
    error = getattr(exc, "error", "")
    text = str(error) if error else ""
    text = text.replace("\n", " ")
    return f": {text[:160]}" if text else ""


# --- export ------------------------------------------------------------------------------------

def export_to_nautobot(design: Design, catalog: Catalog, api, url: str,
                       location: str | None = None) -> ExportSummary:
    devices = int(flatten(design, catalog).multiplicity.sum())
    if devices > MAX_DEVICES:
        raise DesignError(f"{devices:,} devices: more than {MAX_DEVICES:,} to write to Nautobot one by one")
    plan, flat, graph = rack_plan(design, catalog)  # the floor plan: racks, rows, halls, U
    names = unit_names(flat, graph.offsets)  # as GraphML names them
    location_name = (location or design.name or "Cluster Designer design")[:100]
    planned = _one(api.extras.statuses, url, "Planned")
    active = _one(api.extras.statuses, url, "Active")
    site_type = _get_or_create(api.dcim.location_types, url, {"name": "Site"},
                               {"content_types": ["dcim.device", "dcim.rack", "dcim.rackgroup"],
                                "nestable": True})
    require_rack_groups(api, url, _call, site_type)
    existing = _call(lambda: api.dcim.locations.get(name=location_name), url, "read locations")
    if existing is not None:
        for what, endpoint in (("devices", api.dcim.devices), ("racks", api.dcim.racks),
                               ("rack groups", api.dcim.rack_groups)):
            held = _call(lambda e=endpoint: e.count(location=existing.id), url, f"read {what}")
            if held:
                raise DesignError(f"{url}: location {location_name!r} already holds {held:,} "
                                  f"{what[:-1] if held == 1 else what}; "
                                  "choose another with --location")
        site = existing
    else:
        site = _call(lambda: api.dcim.locations.create(name=location_name, location_type=site_type.id,
                                                       status=active.id), url, "create the location")
    # device types and roles, once per catalog id and tier
    type_of_group, role_of_group = [], []
    for g, node in enumerate(flat.nodes):
        spec = flat.specs[flat.spec_row[g]]
        maker = _get_or_create(api.dcim.manufacturers, url, {"name": (spec.vendor or "Unknown")[:100]}, {})
        type_of_group.append(_get_or_create(api.dcim.device_types, url,
                                            {"model": spec.id, "manufacturer": maker.id},
                                            {"u_height": plan.group_u_height[g]}).id)
        role = ROLE_PREFIX + (node.tier or _KIND_ROLES.get(spec.kind, spec.kind))
        role_of_group.append(_get_or_create(api.extras.roles, url, {"name": role},
                                            {"content_types": ["dcim.device"]}).id)
    rack_ids = write_racks(api, url, _call, _bulk, site, planned, plan)
    places = device_places(plan, rack_ids)
    unit_group = graph.unit_group.tolist()
    device_ids = _bulk(api.dcim.devices, url, "create devices", [
        {"name": names[u], "device_type": type_of_group[g], "role": role_of_group[g],
         "location": site.id, "status": planned.id, **places[u]} for u, g in enumerate(unit_group)])
    # one interface per cable end, numbered per device
    ports = np.zeros(graph.units, dtype=np.int64)
    ends = []
    speeds = flat.speed_gbit_s[graph.edge_bundle].tolist()
    for a, b, speed in zip(graph.src.tolist(), graph.dst.tolist(), speeds):
        for unit in (a, b):
            ports[unit] += 1
            ends.append({"device": device_ids[unit], "name": f"p{ports[unit]}", "status": active.id,
                         "type": _INTERFACE_TYPES.get(speed, "other"), "speed": int(round(speed * 1e6))})
    interface_ids = _bulk(api.dcim.interfaces, url, "create interfaces", ends)
    kinds = [flat.kind_names[c] for c in flat.kind_code[graph.edge_bundle].tolist()]
    media = [flat.medium_names[c] for c in flat.medium_code[graph.edge_bundle].tolist()]
    lengths = flat.length_m[graph.edge_bundle].tolist()
    cables = [{"termination_a_type": "dcim.interface", "termination_a_id": interface_ids[2 * i],
               "termination_b_type": "dcim.interface", "termination_b_id": interface_ids[2 * i + 1],
               "status": planned.id, "label": kinds[i], "type": _MEDIUM_TO_CABLE.get(media[i], "other"),
               **_length(lengths[i])} for i in range(len(kinds))]
    _bulk(api.dcim.cables, url, "create cables", cables)
    return ExportSummary(location_name, graph.units, len(ends), len(cables), len(rack_ids))


def _length(length_m: float) -> dict:
    # Nautobot keeps a length as a whole number (at most 32,767) in a unit
    centimetres = round(length_m * 100)
    if centimetres % 100 == 0 or centimetres > 32_767:
        return {"length": min(32_767, max(1, round(length_m))), "length_unit": "m"}
    return {"length": max(1, centimetres), "length_unit": "cm"}



def _one(endpoint, url: str, name: str):
    found = _call(lambda: endpoint.get(name=name), url, f"read the status {name!r}")
    if found is None:
        raise DesignError(f"{url}: the server has no status {name!r}")
    return found


def _get_or_create(endpoint, url: str, key: dict, extra: dict):
    found = _call(lambda: endpoint.get(**key), url, f"read {endpoint.name}")
    if found is not None:
        return found
    return _call(lambda: endpoint.create(**key, **extra), url, f"create {endpoint.name} {list(key.values())[0]!r}")


def _bulk(endpoint, url: str, what: str, rows: list[dict]) -> list:
    """Create ``rows`` in chunks (one request each); their ids in order."""
    ids: list = []
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start:start + _CHUNK]
        created = _call(lambda c=chunk: endpoint.create(c), url, what)
        ids += [record.id for record in created]
    return ids


# --- import ------------------------------------------------------------------------------------

def design_from_nautobot(api, url: str, catalog: Catalog, location: str, mapping: FabricMap,
                         name: str = "") -> tuple[Design, ImportSummary]:
    site = _call(lambda: api.dcim.locations.get(name=location), url, "read locations")
    if site is None:
        raise DesignError(f"{url}: no location named {location!r}")
    records = _call(lambda: list(api.dcim.devices.filter(location=site.id, depth=1)), url, "read devices")
    if not records:
        raise DesignError(f"{url}: location {location!r} holds no devices")
    devices: dict[str, tuple[str, str]] = {}
    by_id: dict[str, str] = {}
    left_out: set[str] = set()
    for record in records:
        model = record.device_type.model
        role = getattr(record.role, "name", "") or ""
        catalog_id = _catalog_id(model, record.name, role, catalog, mapping, url)
        if catalog_id is None:
            left_out.add(record.name)
            continue
        kind = catalog.get(catalog_id).kind
        devices[record.name] = ("switch" if kind == "switch" else "host", catalog_id)
        by_id[str(record.id)] = record.name
    interfaces = []
    for start in range(0, len(records), _CHUNK):
        chunk = [str(r.id) for r in records[start:start + _CHUNK]]
        interfaces += _call(lambda c=chunk: list(api.dcim.interfaces.filter(device_id=c)), url, "read interfaces")
    device_of = {str(i.id): str(getattr(i.device, "id", i.device)) for i in interfaces}
    speed_of = {str(i.id): (i.speed or 0) / 1e6 for i in interfaces}
    cables = []
    ids = [str(r.id) for r in records]
    seen: set[str] = set()
    found = []
    for start in range(0, len(ids), _CHUNK):  # the cables of the location's devices, each once
        chunk = ids[start:start + _CHUNK]
        for cable in _call(lambda c=chunk: list(api.dcim.cables.filter(device_id=c)), url, "read cables"):
            if str(cable.id) not in seen:
                seen.add(str(cable.id))
                found.append(cable)
    for cable in found:
        a_id, b_id = str(cable.termination_a_id), str(cable.termination_b_id)
        a, b = by_id.get(device_of.get(a_id, "")), by_id.get(device_of.get(b_id, ""))
        if a is None or b is None:
            continue  # an end on a device left out, or not an interface
        speed = speed_of.get(a_id) or speed_of.get(b_id)
        if not speed:
            raise DesignError(f"{url}: cable {cable.id} has no interface speed at either end")
        kind = cable.label if cable.label in ("scale-up", "scale-out", "storage", "frontend") else "scale-out"
        cables.append((a, b, speed, kind, _metres(cable), _medium(cable.type)))
    design, summary = design_from_devices(devices, cables, catalog, f"{url} location {location!r}",
                                          name or location, left_out)
    # the floor plan: where Nautobot's racks stand
    racks, rack_height_u, notes = read_racks(api, url, _call, site, records)
    spec, more = site_from_racks(design, catalog, racks, rack_height_u)
    design.site = spec
    notes += more + (check_positions(design, catalog, records) if spec is not None else [])
    return design, replace(summary, racks=len(racks), notes=tuple(notes))


def _catalog_id(model: str, device: str, role: str, catalog: Catalog, mapping: FabricMap, url: str):
    if model in catalog:
        return model
    if "switch" in role.lower() or any(t in role.lower() for t in ("leaf", "spine", "core")):
        found = mapping.switch_for(model, catalog)
        if found is None:
            raise DesignError(f"{url}: switch model {model!r} (device {device!r}) is not in the catalog: "
                              "map it in a mapping file (--map FILE) or choose --switch ID")
        return found
    found = mapping.host_for(device)
    if found is mapping.UNMAPPED:
        raise DesignError(f"{url}: device type {model!r} (device {device!r}) is not in the catalog: "
                          "map it in a mapping file (--map FILE) or choose --server ID")
    return found


def _metres(cable) -> float | None:
    if cable.length is None:
        return None
    unit = getattr(cable.length_unit, "value", cable.length_unit)
    return float(cable.length) * {"km": 1000.0, "m": 1.0, "cm": 0.01, "mi": 1609.344, "ft": 0.3048,
                                  "in": 0.0254}.get(unit, 1.0)


def _medium(cable_type) -> str | None:
    value = getattr(cable_type, "value", cable_type) or ""
    if value.startswith(("dac", "cat", "coaxial", "mrj21")):
        return "copper"
    return "fiber" if value else None
