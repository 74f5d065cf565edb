"""NetBox both ways, WITHOUT a NetBox server.

No NetBox server runs here: the NetBox releases on PyPI need Python 3.12 or newer (`pip download
netbox --no-deps` on this Python 3.11: "Ignored the following versions that require a different
python version: 4.7.0 ... 4.7.3 Requires-Python >=3.12"). What these tests check instead:

* the dialect: records shaped as NetBox 4.6.8's REST API returns them (tests/netbox_records.py
  cites the serializers) read into the neutral records, and a design written as the create bodies
  NetBox's API takes (field names from the serializers, choice values from dcim/choices.py);
* the round trip design -> bodies -> records -> design, through core/interop/netbox.py's export
  and import with an in-memory stand-in for pynetbox's endpoints (tests/netbox_records.py: no
  HTTP, no validation, no permissions, no uniqueness) that hands back pynetbox's own Records;
* the command line's errors that need no server (a bad URL, a missing token, a closed port).

What NetBox itself would refuse or accept (its validation, permissions, filters, pagination,
bulk creation) is NOT tested here.
"""

import re

import pytest

from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.interop.dcim import dcim_plan
from core.interop.dcim_racks import rack_plan
from core.interop.fabric_map import fabric_map
from core.interop.graphml import unit_names
from core.interop.netbox import design_from_netbox, export_to_netbox
from core.interop.netbox_dialect import (INTERFACE_TYPES, cable_bodies, device_bodies, read_cables,
                                         read_device, slug)
from core.model import Block, Design, Link, Node
from core.project import save_project
from core.site_spec import Hall, RackMove, SiteSpec
from designer.cli import main
from tests.interop_designs import tiny_two_tier

pytest.importorskip("pynetbox")
from tests.netbox_records import Store  # noqa: E402 - needs pynetbox

SECTIONS = ("counts", "bandwidth", "latency", "power", "reliability", "cost")
URL = "http://netbox.invalid"

# A device as GET /api/dcim/devices/41/ returns it (NetBox 4.6.8, DeviceSerializer; nested objects
# in their brief form; choice fields as {"value", "label"}; the counters and IP fields left out).
DEVICE = {
    "id": 41, "url": f"{URL}/api/dcim/devices/41/", "display_url": f"{URL}/dcim/devices/41/",
    "display": "su#0/nodes#1", "name": "su#0/nodes#1",
    "device_type": {"id": 7, "url": f"{URL}/api/dcim/device-types/7/", "display": "DGX-H100",
                    "manufacturer": {"id": 3, "url": f"{URL}/api/dcim/manufacturers/3/", "display": "NVIDIA",
                                     "name": "NVIDIA", "slug": "nvidia", "description": ""},
                    "model": "DGX-H100", "slug": "dgx-h100", "description": "", "device_count": 4},
    "role": {"id": 2, "url": f"{URL}/api/dcim/device-roles/2/", "display": "Cluster Designer: compute",
             "name": "Cluster Designer: compute", "slug": "cluster-designer-compute", "description": "",
             "device_count": 4, "virtualmachine_count": 0, "_depth": 0},
    "tenant": None, "platform": None, "serial": "", "asset_tag": None,
    "site": {"id": 1, "url": f"{URL}/api/dcim/sites/1/", "display": "dc1", "name": "dc1",
             "description": "", "slug": "dc1"},
    "location": {"id": 4, "url": f"{URL}/api/dcim/locations/4/", "display": "Hall 1 row 1",
                 "name": "Hall 1 row 1", "slug": "hall-1-row-1", "description": "", "rack_count": 5, "_depth": 1},
    "rack": {"id": 5, "url": f"{URL}/api/dcim/racks/5/", "display": "rack 2", "name": "rack 2",
             "description": "", "device_count": 2},
    "position": 9.0, "face": {"value": "front", "label": "Front"}, "parent_device": None,
    "status": {"value": "planned", "label": "Planned"}, "airflow": None, "description": "", "comments": "",
}
# A cable as GET /api/dcim/cables/ returns it (CableSerializer; each end a GenericObjectSerializer).
CABLE = {
    "id": 90, "url": f"{URL}/api/dcim/cables/90/", "display_url": f"{URL}/dcim/cables/90/", "display": "#90",
    "type": "dac-passive",
    "a_terminations": [{"object_type": "dcim.interface", "object_id": 301,
                        "object": {"id": 301, "url": f"{URL}/api/dcim/interfaces/301/", "display": "p1",
                                   "device": {"id": 41, "url": f"{URL}/api/dcim/devices/41/",
                                              "display": "su#0/nodes#1", "name": "su#0/nodes#1",
                                              "description": ""},
                                   "name": "p1", "description": "", "cable": 90, "_occupied": True}}],
    "b_terminations": [{"object_type": "dcim.interface", "object_id": 517, "object": {"id": 517}}],
    "status": {"value": "planned", "label": "Planned"}, "profile": None, "tenant": None, "bundle": None,
    "label": "scale-out", "color": "", "length": 2.5, "length_unit": {"value": "m", "label": "Meters"},
    "description": "", "comments": "", "tags": [], "custom_fields": {},
}
# NetBox 4.6.8's writable fields (serializers' Meta.fields) and choice values (dcim/choices.py)
DEVICE_FIELDS = {"name", "device_type", "role", "tenant", "platform", "serial", "asset_tag", "site", "location",
                 "rack", "position", "face", "latitude", "longitude", "parent_device", "status", "airflow"}
CABLE_FIELDS = {"type", "a_terminations", "b_terminations", "status", "profile", "tenant", "bundle", "label",
                "color", "length", "length_unit", "description"}
NETBOX_INTERFACE_TYPES = {"100gbase-x-qsfp28", "200gbase-x-qsfp56", "400gbase-x-osfp", "800gbase-x-osfp",
                          "1.6tbase-x-osfp1600", "other"}
NETBOX_CABLE_TYPES = {"smf", "mmf", "dac-passive", "dac-active", "other"}  # a subset of CableTypeChoices


@pytest.fixture(scope="module")
def tiny() -> Design:
    return tiny_two_tier()


def _sections(design, catalog) -> dict:
    data = evaluation_to_json(evaluate(design, catalog))
    out = {section: data[section] for section in SECTIONS}
    out["warnings"] = sorted(w["code"] for w in data["warnings"])
    return out


def _placed(design, catalog) -> dict:
    plan, flat, graph = rack_plan(design, catalog)
    return {name: (plan.hall_names[plan.rack_hall[rack]], plan.rack_row[rack], plan.rack_slot[rack], u)
            for name, rack, u in zip(unit_names(flat, graph.offsets), plan.unit_rack, plan.unit_position)}


# --- the dialect on records as the API returns them ---------------------------------------------

def test_a_device_record_reads_as_its_model_role_rack_and_unit():
    device = read_device(DEVICE)
    assert (device.id, device.name, device.model, device.role, device.rack, device.position) == (
        "41", "su#0/nodes#1", "DGX-H100", "Cluster Designer: compute", "5", 9.0)


def test_a_cable_record_reads_as_its_two_interfaces_length_and_medium():
    (cable,), notes = read_cables([CABLE])
    assert (cable.a, cable.b, cable.label, cable.type, cable.length, cable.length_unit) == (
        "301", "517", "scale-out", "dac-passive", 2.5, "m")
    assert notes == []


def test_pynetbox_hands_the_records_back_in_the_api_shape():
    """pynetbox turns a response into Records; dict(record) is what the adapter reads."""
    store = Store()
    for endpoint, record in (("devices", DEVICE), ("cables", CABLE)):
        built = getattr(store.api.dcim, endpoint).return_obj(record, store.api, getattr(store.api.dcim, endpoint))
        assert dict(built) == record


def test_a_breakout_cable_is_left_out_with_a_note():
    breakout = {**CABLE, "b_terminations": CABLE["b_terminations"] * 2}
    to_panel = {**CABLE, "id": 91, "b_terminations": [{"object_type": "dcim.frontport", "object_id": 8}]}
    cables, notes = read_cables([breakout, to_panel])
    assert [(c.a, c.b) for c in cables] == [("301", None), ("301", None)]
    assert notes == ["2 cables do not join one interface to one interface (breakouts, patch panels): left out"]


def test_the_bodies_use_netbox_fields_and_choice_values(tiny, catalog):
    plan = dcim_plan(tiny, catalog, "NetBox")
    devices = device_bodies(plan, 1, list(range(len(plan.group_model))), list(range(len(plan.group_model))),
                            list(range(len(plan.racks.rack_row))), [0] * len(plan.racks.rack_row))
    assert all(set(body) <= DEVICE_FIELDS and body["status"] == "planned" for body in devices)
    cables = cable_bodies(plan, list(range(2 * len(plan.cable_kind))))
    assert all(set(body) <= CABLE_FIELDS and body["type"] in NETBOX_CABLE_TYPES for body in cables)
    assert cables[0]["a_terminations"] == [{"object_type": "dcim.interface", "object_id": 0}]
    assert set(INTERFACE_TYPES.values()) <= NETBOX_INTERFACE_TYPES
    assert slug("Cluster Designer: compute") == "cluster-designer-compute"


# --- the round trip through the adapter, with the in-memory stand-in ----------------------------

def test_export_writes_planned_racks_devices_interfaces_and_cables(tiny, catalog):
    store = Store()
    summary = export_to_netbox(tiny, catalog, store, URL, "dc1")
    assert (summary.devices, summary.interfaces, summary.cables, summary.racks) == (10, 96, 48, 5)
    assert summary.text().endswith("to site 'dc1' as planned")
    devices = store.records["devices"].values()
    assert {d["status"]["value"] for d in devices} == {"planned"}
    assert {d["role"]["name"] for d in devices} == {"Cluster Designer: compute", "Cluster Designer: leaf",
                                                   "Cluster Designer: spine"}
    # a device in a rack is in the rack's row location, as NetBox requires
    racks = store.records["racks"]
    assert all(d["location"]["id"] == racks[d["rack"]["id"]]["location"]["id"] for d in devices)
    speeds = {i["speed"] for i in store.records["interfaces"].values()}
    assert speeds == {400_000_000}  # kbit/s


def test_the_round_trip_is_exact_on_what_both_hold(tiny, catalog):
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "dc1")
    back, summary = design_from_netbox(store, URL, catalog, "dc1", fabric_map(None, catalog))
    assert (summary.hosts, summary.switches, summary.cables, summary.racks) == (4, 6, 48, 5)
    assert summary.notes == ()
    assert _sections(back, catalog) == _sections(tiny, catalog)
    links = {(link.medium, link.length_m, link.speed_gbit_s, link.count)
             for _, block in back.root.iter_blocks() for link in block.links}
    assert links == {("copper", 3.0, 400.0, 16)}
    assert _placed(back, catalog) == _placed(tiny, catalog)


@pytest.mark.parametrize("make", [
    lambda c: generate_fat_tree(FatTreeOptions(256, "DGX-H100", "QM9700"), c),    # 44 devices, 512 cables
    lambda c: generate_supernode(SupernodeOptions("GB200-NVL72", 2, "QM9700"), c),  # 11 devices, 304 cables
])
def test_generated_designs_round_trip(make, catalog):
    design = make(catalog)
    store = Store()
    export_to_netbox(design, catalog, store, URL, "dc1")
    back, summary = design_from_netbox(store, URL, catalog, "dc1", fabric_map(None, catalog))
    assert summary.notes == ()
    assert _sections(back, catalog) == _sections(design, catalog)
    assert _placed(back, catalog) == _placed(design, catalog)


def test_racks_moved_on_the_floor_plan_come_back_where_they_stand(tiny, catalog):
    moved = tiny.snapshot()
    moved.site = SiteSpec(halls=(Hall("Hall A", 5000.0, 5000.0, 3 * 0.6 + 2 * 1.2, 3 * 3.6, 3.6),),
                          moves=(RackMove(3, 2, 1),))
    store = Store()
    export_to_netbox(moved, catalog, store, URL, "dc1")
    back, summary = design_from_netbox(store, URL, catalog, None, fabric_map(None, catalog))  # the only site
    assert summary.racks == 5 and summary.notes == ()
    assert _placed(back, catalog) == _placed(moved, catalog)
    assert [h.name for h in back.site.halls] == ["Hall A"]


def test_a_site_that_holds_devices_is_never_written_into(tiny, catalog):
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "dc1")
    before = {name: len(records) for name, records in store.records.items()}
    with pytest.raises(DesignError, match="site 'dc1' already holds 10 devices; choose another with --netbox-site"):
        export_to_netbox(tiny, catalog, store, URL, "dc1")
    assert {name: len(records) for name, records in store.records.items()} == before


def test_a_device_name_netbox_would_refuse_is_refused_before_anything_is_written(catalog):
    nodes = "gpu-nodes-of-the-first-scalable-unit-in-the-north-hall-of-building-7"
    root = Block(id="root", name="Long names", children={nodes: Node(nodes, "DGX-H100", count=2),
                                                         "leaf": Node("leaf", "QM9700", count=1, tier="leaf")},
                 links=[Link("l1", nodes, "leaf", count=8)])
    store = Store()
    with pytest.raises(DesignError, match=rf"device '{nodes}#0': 70 characters, NetBox keeps 64 at most"):
        export_to_netbox(Design("Long names", root), catalog, store, URL, "dc1")
    assert all(not records for records in store.records.values())


def test_a_second_site_reuses_the_device_types_and_roles(tiny, catalog):
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "dc1")
    export_to_netbox(tiny, catalog, store, URL, "dc2")
    assert len(store.records["device_types"]) == 2 and len(store.records["device_roles"]) == 3
    with pytest.raises(DesignError, match=r"the server holds 2 sites \('dc1', 'dc2'\): choose one with --site"):
        design_from_netbox(store, URL, catalog, None, fabric_map(None, catalog))


def test_an_unknown_site_and_an_empty_one_are_named(tiny, catalog):
    store = Store()
    with pytest.raises(DesignError, match="no site named 'nowhere'"):
        design_from_netbox(store, URL, catalog, "nowhere", fabric_map(None, catalog))
    store.dcim.sites.create(name="empty", slug="empty", status="planned")
    with pytest.raises(DesignError, match="site 'empty' holds no devices"):
        design_from_netbox(store, URL, catalog, "empty", fabric_map(None, catalog))


def test_a_device_type_the_catalog_lacks_needs_a_mapping(catalog, tmp_path):
    store = Store()
    site = store.dcim.sites.create(name="lab", slug="lab", status="active")
    maker = store.dcim.manufacturers.create(name="Acme", slug="acme")
    kind = store.dcim.device_types.create(model="Mystery-1", slug="mystery-1", manufacturer=maker.id)
    role = store.dcim.device_roles.create(name="gpu-node", slug="gpu-node", color="ff0000")
    store.dcim.devices.create(name="gpu001", device_type=kind.id, role=role.id, site=site.id, status="active")
    with pytest.raises(DesignError, match=r"device type 'Mystery-1' \(device 'gpu001'\) is not in the catalog"):
        design_from_netbox(store, URL, catalog, "lab", fabric_map(None, catalog))
    mapping = tmp_path / "map.json"
    mapping.write_text('{"hosts": [{"match": "^gpu", "catalog_id": "DGX-H100"}]}')
    design, summary = design_from_netbox(store, URL, catalog, "lab", fabric_map(mapping, catalog))
    assert summary.hosts == 1 and [n.catalog_id for _, n in design.root.iter_nodes()] == ["DGX-H100"]


def test_a_cable_length_in_centimetres_comes_back_in_metres(tiny, catalog):
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "dc1")
    for cable in store.records["cables"].values():
        cable["length"], cable["length_unit"] = cable["length"] * 100, {"value": "cm", "label": "Centimeters"}
    back, _ = design_from_netbox(store, URL, catalog, "dc1", fabric_map(None, catalog))
    assert _sections(back, catalog) == _sections(tiny, catalog)


# --- the command line, where no server is needed ------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--url", "ftp://netbox.example", "--token", "t0k3n-secret"], "ftp://netbox.example: not an http(s) URL"),
    (["--url", "http://127.0.0.1:9"], "no NetBox token: pass --token or set NETBOX_TOKEN"),
    (["--url", "http://127.0.0.1:9", "--token", "t0k3n-secret", "--site", "dc1"],
     "http://127.0.0.1:9: cannot reach the server (ConnectionError)"),  # the discard port: nothing listens
])
def test_import_problems_are_one_line_without_the_token(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.delenv("NETBOX_TOKEN", raising=False)
    out = tmp_path / "x.json"
    assert main(["import", "netbox", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "t0k3n-secret" not in err
    assert not out.exists()


def test_export_problems_are_one_line_and_leave_the_project_alone(tiny, tmp_path, capsys, monkeypatch):
    project = tmp_path / "tiny.json"
    save_project(tiny, project)
    before = project.read_bytes()
    monkeypatch.setenv("NETBOX_TOKEN", "t0k3n-secret")
    cases = ((["--netbox", "http://127.0.0.1:9"], "cannot reach the server (ConnectionError)"),
             (["--netbox", "http://127.0.0.1:9", "-o", str(tmp_path / "x.graphml")],
              "export: give -o FILE or --netbox URL, not both"),
             (["--netbox", "http://127.0.0.1:9", "--nautobot", "http://127.0.0.1:9"],
              "export: give --nautobot URL or --netbox URL, not both"))
    for args, message in cases:
        assert main(["export", str(project), *args, "--netbox-site", "dc1"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "t0k3n-secret" not in err
    assert project.read_bytes() == before and not (tmp_path / "x.graphml").exists()


def test_a_site_is_found_by_its_slug_too(tiny, catalog):
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "Hall Plan 2")
    _, summary = design_from_netbox(store, URL, catalog, "hall-plan-2", fabric_map(None, catalog))
    assert summary.cables == 48


@pytest.mark.parametrize("source", ["netbox", "nautobot"])
def test_a_url_with_credentials_is_refused_and_never_echoed(tmp_path, capsys, source):
    """Item 5: a secret never lands in a project or a message. user:password in the URL would
    have gone into the project's provenance; it is refused before any request, in one line that
    does not repeat it."""
    out = tmp_path / "p.json"
    where = ["--location", "dc1"] if source == "nautobot" else []
    assert main(["import", source, "--url", "https://admin:s3cret@netbox.example/", "--token",
                 "t0ken", *where, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "credentials" in err and "s3cret" not in err and "t0ken" not in err
    assert len(err.splitlines()) == 1 and not out.exists()


def test_two_devices_under_one_name_are_refused_not_merged(tiny, catalog):
    """NetBox tells devices apart by id (a name is unique per tenant): imported by name, two
    would become one device of the design and the other would be lost without a word."""
    store = Store()
    export_to_netbox(tiny, catalog, store, URL, "dc1")
    devices = sorted(store.records["devices"].values(), key=lambda d: d["id"])
    first, second = devices[0], devices[1]
    second["name"] = first["name"]
    with pytest.raises(DesignError, match=(rf"devices {first['id']} and {second['id']} are both named "
                                           rf"'{re.escape(first['name'])}'; rename one")):
        design_from_netbox(store, URL, catalog, "dc1", fabric_map(None, catalog))
