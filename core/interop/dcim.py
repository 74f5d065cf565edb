"""A design as a DCIM holds it, and back: the part of the Nautobot and NetBox adapters that does
not depend on the server (core/interop/nautobot.py and netbox.py speak each one's API).

Export: ``dcim_plan`` turns a design into neutral lists -- a device type (vendor, model = the
catalog id, rack units) and a role per group, one device per unit named as GraphML names it
("su/nodes#17"), one interface per cable end ("p1", "p2"... per device) with its speed, one
cable per cable with its link kind, medium and length, and the floor plan's racks
(core/interop/dcim_racks.py). Each server module writes these in its own dialect.

Import: each server module reads its devices, interfaces, cables, racks and rack groups into the
neutral records below; ``design_from_dcim`` maps device types to catalog entries (a device type
whose model is a catalog id is that entry; a mapping file names the others), takes the tiers
from the cables and folds the devices into repeated blocks as a fabric dump does
(core/interop/fold.py), then puts the racks back on the floor plan.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.catalog import Catalog
from core.errors import DesignError
from core.flatten import flatten
from core.interop.dcim_racks import (DcimGroup, DcimRack, RackPlan, check_positions, devices_by_rack,
                                     placed_racks, rack_plan, site_from_racks)
from core.interop.fabric_import import ImportSummary, design_from_devices
from core.interop.fabric_map import FabricMap
from core.interop.graphml import unit_names
from core.model import Design

# A device-level export past this many devices is hours of REST calls and a DCIM no one reads:
# such designs are planned in blocks.
MAX_DEVICES = 20_000
ROLE_PREFIX = "Cluster Designer: "
MEDIUM_TO_CABLE = {"fiber": "smf", "copper": "dac-passive"}  # cable type values both servers share
LINK_KINDS = ("scale-up", "scale-out", "storage", "frontend")
_KIND_ROLES = {"server": "compute", "supernode": "compute", "storage": "storage"}
_UNIT_M = {"km": 1000.0, "m": 1.0, "cm": 0.01, "mi": 1609.344, "ft": 0.3048, "in": 0.0254}


@dataclass(frozen=True)
class ExportSummary:
    location: str             # the site or location written to
    devices: int
    interfaces: int
    cables: int
    racks: int = 0
    where: str = "location"   # what the server calls the place ("site" in NetBox)

    def text(self) -> str:
        return (f"wrote {self.devices:,} devices in {self.racks:,} racks, {self.interfaces:,} interfaces "
                f"and {self.cables:,} cables to {self.where} {self.location!r} as planned")


@dataclass(frozen=True)
class DcimPlan:
    racks: RackPlan
    group_vendor: list[str]          # per group of the flattened design
    group_model: list[str]           # the catalog id
    group_role: list[str]            # "Cluster Designer: leaf"...
    unit_group: list[int]            # per device
    unit_name: list[str]
    interface_unit: list[int]        # per interface; cable i joins interfaces 2i and 2i + 1
    interface_name: list[str]
    interface_speed_gbit_s: list[float]
    cable_kind: list[str]
    cable_medium: list[str]
    cable_length_m: list[float]

    @property
    def devices(self) -> int:
        return len(self.unit_group)


def dcim_plan(design: Design, catalog: Catalog, server: str) -> DcimPlan:
    """The design as neutral lists; a design past MAX_DEVICES devices is refused, naming ``server``."""
    devices = int(flatten(design, catalog).multiplicity.sum())
    if devices > MAX_DEVICES:
        raise DesignError(f"{devices:,} devices: more than {MAX_DEVICES:,} to write to {server} one by one")
    plan, flat, graph = rack_plan(design, catalog)  # the floor plan: racks, rows, halls, U
    vendors, models, roles = [], [], []
    for g, node in enumerate(flat.nodes):
        spec = flat.specs[flat.spec_row[g]]
        vendors.append((spec.vendor or "Unknown")[:100])
        models.append(spec.id)
        roles.append(ROLE_PREFIX + (node.tier or _KIND_ROLES.get(spec.kind, spec.kind)))
    ports = np.zeros(graph.units, dtype=np.int64)
    interface_unit, interface_name, interface_speed = [], [], []
    speeds = flat.speed_gbit_s[graph.edge_bundle].tolist()
    for a, b, speed in zip(graph.src.tolist(), graph.dst.tolist(), speeds):
        for unit in (a, b):
            ports[unit] += 1
            interface_unit.append(unit)
            interface_name.append(f"p{ports[unit]}")
            interface_speed.append(speed)
    return DcimPlan(
        plan, vendors, models, roles, graph.unit_group.tolist(), unit_names(flat, graph.offsets),
        interface_unit, interface_name, interface_speed,
        [flat.kind_names[c] for c in flat.kind_code[graph.edge_bundle].tolist()],
        [flat.medium_names[c] for c in flat.medium_code[graph.edge_bundle].tolist()],
        flat.length_m[graph.edge_bundle].tolist())


# --- import ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DcimDevice:
    id: str
    name: str
    model: str                       # its device type's model
    role: str
    rack: str | None = None          # rack id
    position: float | None = None    # bottom U


@dataclass(frozen=True)
class DcimInterface:
    id: str
    device: str                      # device id
    speed_kbit_s: int | None


@dataclass(frozen=True)
class DcimCable:
    id: str
    a: str | None                    # interface id at each end (None: not one interface)
    b: str | None
    label: str
    type: str                        # the server's cable type value ("smf", "dac-passive"...)
    length: float | None
    length_unit: str | None


@dataclass(frozen=True)
class DcimHolding:
    """What a site (a Nautobot location, a NetBox site) holds, as neutral records."""
    devices: list[DcimDevice]
    interfaces: list[DcimInterface]
    cables: list[DcimCable]
    racks: list[DcimRack]
    groups: list[DcimGroup]


def design_from_dcim(held: DcimHolding, catalog: Catalog, mapping: FabricMap, url: str, where: str,
                     name: str, server: str, group_word: str) -> tuple[Design, ImportSummary]:
    """The folded design of ``held`` (``where``: the site as messages name it, ``server``:
    "Nautobot" or "NetBox", ``group_word``: what it calls the group a row of racks is)."""
    devices: dict[str, tuple[str, str]] = {}
    by_id: dict[str, str] = {}
    left_out: set[str] = set()
    id_of_name: dict[str, str] = {}
    for record in held.devices:
        # the design names devices, the server tells them apart by id (NetBox allows one name
        # per tenant): two under one name would merge into one device, and one would be lost
        first = id_of_name.setdefault(record.name, record.id)
        if first != record.id:
            raise DesignError(f"{url} {where}: devices {first} and {record.id} are both named "
                              f"{record.name!r}; rename one so that each device is imported")
        catalog_id = catalog_id_of(record.model, record.name, record.role, catalog, mapping, url)
        if catalog_id is None:
            left_out.add(record.name)
            continue
        kind = catalog.get(catalog_id).kind
        devices[record.name] = ("switch" if kind == "switch" else "host", catalog_id)
        by_id[record.id] = record.name
    device_of = {i.id: i.device for i in held.interfaces}
    speed_of = {i.id: (i.speed_kbit_s or 0) / 1e6 for i in held.interfaces}
    cables = []
    for cable in held.cables:
        a, b = by_id.get(device_of.get(cable.a, "")), by_id.get(device_of.get(cable.b, ""))
        if a is None or b is None:
            continue  # an end on a device left out, or not one interface
        speed = speed_of.get(cable.a) or speed_of.get(cable.b)
        if not speed:
            raise DesignError(f"{url}: cable {cable.id} has no interface speed at either end")
        kind = cable.label if cable.label in LINK_KINDS else "scale-out"
        cables.append((a, b, speed, kind, metres(cable.length, cable.length_unit), medium(cable.type)))
    design, summary = design_from_devices(devices, cables, catalog, f"{url} {where}", name, left_out)
    # the floor plan: where the server's racks stand
    racks, rack_height_u, notes = placed_racks(devices_by_rack(held.devices), held.racks, held.groups,
                                               group_word)
    spec, more = site_from_racks(design, catalog, racks, rack_height_u)
    design.site = spec
    notes += more + (check_positions(design, catalog, held.devices, server) if spec is not None else [])
    return design, replace(summary, racks=len(racks), notes=tuple(notes))


def catalog_id_of(model: str, device: str, role: str, catalog: Catalog, mapping: FabricMap, url: str):
    """The catalog entry of a device: its model if the catalog has it, else the mapping's (a role
    naming a switch tier asks the switch rules); None: left out by the mapping."""
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


def metres(length, unit) -> float | None:
    if length is None:
        return None
    return float(length) * _UNIT_M.get(unit or "m", 1.0)


def medium(cable_type: str | None) -> str | None:
    value = cable_type or ""
    if value.startswith(("dac", "cat", "coaxial", "mrj21")):
        return "copper"
    return "fiber" if value else None
