"""The floor plan in Nautobot's dialect: halls and rows as nested rack groups in the location,
racks, and the rack groups a location type must allow (core/interop/dcim_racks.py plans and
reads the racks the same way for every server)."""

from __future__ import annotations

from core.interop.dcim_racks import DcimGroup, DcimRack, RackPlan
from core.interop.rest import bulk, call


def write_racks(api, url: str, location, status, plan: RackPlan) -> list:
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


def read_racks(api, url: str, location) -> tuple[list[DcimRack], list[DcimGroup]]:
    """The location's racks and rack groups."""
    racks = call(lambda: list(api.dcim.racks.filter(location=location.id)), url, "read racks")
    groups = call(lambda: list(api.dcim.rack_groups.filter(location=location.id)), url, "read rack groups")
    return ([DcimRack(str(r.id), r.name, r.facility_id or "", _id(r.rack_group), int(r.u_height))
             for r in racks],
            [DcimGroup(str(g.id), g.name, _id(g.parent)) for g in groups])


def _id(nested) -> str | None:
    """The id of a nested object (a record, or its id at depth 0), or None."""
    return str(getattr(nested, "id", nested)) if nested else None


def require_rack_groups(api, url: str, site_type) -> None:
    """A location type that takes devices and racks but not rack groups gets rack groups too."""
    types = [str(getattr(t, "value", t)) for t in (site_type.content_types or [])]
    if "dcim.rackgroup" not in types:
        call(lambda: site_type.update({"content_types": types + ["dcim.rackgroup"]}), url,
             "let the location type hold rack groups")
