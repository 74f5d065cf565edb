"""A design written to, and read from, a NetBox 4.x server (pynetbox, NetBox's REST API).

Export writes the design as planned into a site: a manufacturer per catalog vendor, a device
type per catalog id (its model is the id), a role per tier, a location per hall and a child
location per row, a rack per rack, one device per unit ("su/nodes#17", as GraphML names it) in
its rack at its U, one interface per cable end with its speed, and one cable per cable (status
planned, its length, its medium as the cable type, its link kind as the label). A site that
already holds devices, racks or locations is refused, so nothing is written over.

Import reads a site's devices, interfaces, cables, racks and locations back into a design, as
the Nautobot import does (core/interop/dcim.py: both share everything but the API dialect, which
is core/interop/netbox_dialect.py here).

The token is sent in the request header only: no message, project or report repeats it, and a
server's answer is reduced to its status and the object it concerns.
"""

from __future__ import annotations

from dataclasses import replace

from core.catalog import Catalog
from core.errors import DesignError
from core.interop.dcim import DcimHolding, ExportSummary, dcim_plan, design_from_dcim
from core.interop.fabric_import import ImportSummary
from core.interop.fabric_map import FabricMap
from core.interop.netbox_dialect import (cable_bodies, check_names, device_bodies, device_type_body, hall_and_row_names,
                                         interface_bodies, location_body, manufacturer_body, rack_bodies,
                                         read_cables, read_device, read_interface, read_location, read_rack,
                                         role_body, site_body)
from core.interop.rest import bulk, call, connected, get_or_create
from core.model import Design


def connect(url: str, token: str):
    """A pynetbox API handle, checked by one request; a one-line error that never holds the token
    (an optional dependency: the "netbox" extra)."""
    return connected("pynetbox", "NetBox", url, token)


# --- export ------------------------------------------------------------------------------------

def export_to_netbox(design: Design, catalog: Catalog, api, url: str, site: str | None = None) -> ExportSummary:
    plan = dcim_plan(design, catalog, "NetBox")
    check_names(plan)
    site_name = (site or design.name or "Cluster Designer design")[:100]
    dcim = api.dcim
    existing = call(lambda: dcim.sites.get(name=site_name), url, "read sites")
    if existing is not None:
        for what, endpoint in (("devices", dcim.devices), ("racks", dcim.racks), ("locations", dcim.locations)):
            held = call(lambda e=endpoint: e.count(site_id=existing.id), url, f"read {what}")
            if held:
                raise DesignError(f"{url}: site {site_name!r} already holds {held:,} "
                                  f"{what[:-1] if held == 1 else what}; choose another with --netbox-site")
        site_id = existing.id
    else:
        site_id = call(lambda: dcim.sites.create(**site_body(site_name)), url, "create the site").id
    # device types and roles, once per catalog id and tier
    type_ids, role_ids = [], []
    for vendor, model, role, u_height in zip(plan.group_vendor, plan.group_model, plan.group_role,
                                             plan.racks.group_u_height):
        maker = manufacturer_body(vendor)
        maker_id = get_or_create(dcim.manufacturers, url, {"name": maker["name"]}, {"slug": maker["slug"]}).id
        body = device_type_body(model, maker_id, u_height)
        type_ids.append(get_or_create(dcim.device_types, url, {"model": model},
                                      {k: v for k, v in body.items() if k != "model"},
                                      {"model": model, "manufacturer_id": maker_id}).id)
        body = role_body(role)
        role_ids.append(get_or_create(dcim.device_roles, url, {"name": role},
                                      {k: v for k, v in body.items() if k != "name"}).id)
    hall_ids: dict[int, object] = {}
    row_ids: dict[int, object] = {}
    for hall, hall_name, row, row_name in hall_and_row_names(plan):
        if hall not in hall_ids:
            hall_ids[hall] = call(lambda n=hall_name: dcim.locations.create(**location_body(n, site_id)),
                                  url, f"create the location {hall_name!r}").id
        row_ids[row] = call(lambda n=row_name, h=hall_ids[hall]: dcim.locations.create(
            **location_body(n, site_id, h)), url, f"create the location {row_name!r}").id
    rack_ids = bulk(dcim.racks, url, "create racks", rack_bodies(plan, site_id, row_ids))
    rack_location = [row_ids[row] for row in plan.racks.rack_row]
    device_ids = bulk(dcim.devices, url, "create devices",
                      device_bodies(plan, site_id, type_ids, role_ids, rack_ids, rack_location))
    interface_ids = bulk(dcim.interfaces, url, "create interfaces", interface_bodies(plan, device_ids))
    cables = cable_bodies(plan, interface_ids)
    bulk(dcim.cables, url, "create cables", cables)
    return ExportSummary(site_name, plan.devices, len(interface_ids), len(cables), len(rack_ids), "site")


# --- import ------------------------------------------------------------------------------------

def design_from_netbox(api, url: str, catalog: Catalog, site: str | None, mapping: FabricMap,
                       name: str = "") -> tuple[Design, ImportSummary]:
    """The design of a site, by name or slug (``site`` None: the server's only site)."""
    dcim = api.dcim
    if site is None:
        sites = call(lambda: [s.name for s in dcim.sites.all()], url, "read sites")
        if len(sites) != 1:
            listed = ", ".join(repr(s) for s in sorted(sites)[:5]) + (" ..." if len(sites) > 5 else "")
            raise DesignError(f"{url}: the server holds {len(sites)} sites" + (f" ({listed})" if sites else "")
                              + ": choose one with --site")
        site = sites[0]
    found = call(lambda: _site(dcim, site), url, "read sites")
    if found is None:
        raise DesignError(f"{url}: no site named {site!r}")

    def read(endpoint, what: str) -> list[dict]:
        return call(lambda: [dict(r) for r in endpoint.filter(site_id=found.id)], url, f"read {what}")

    devices = [read_device(r) for r in read(dcim.devices, "devices")]
    if not devices:
        raise DesignError(f"{url}: site {site!r} holds no devices")
    interfaces = [read_interface(r) for r in read(dcim.interfaces, "interfaces")]
    cables, notes = read_cables(read(dcim.cables, "cables"))
    in_racks = any(d.rack for d in devices)
    racks = [read_rack(r) for r in read(dcim.racks, "racks")] if in_racks else []
    groups = [read_location(r) for r in read(dcim.locations, "locations")] if in_racks else []
    design, summary = design_from_dcim(DcimHolding(devices, interfaces, cables, racks, groups), catalog,
                                       mapping, url, f"site {site!r}", name or site, "NetBox", "location")
    return design, replace(summary, notes=(*notes, *summary.notes))


def _site(dcim, site: str):
    by_name = dcim.sites.get(name=site)
    return by_name if by_name is not None else dcim.sites.get(slug=site)
