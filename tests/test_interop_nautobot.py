"""Nautobot both ways, against a real Nautobot server (tests/nautobot/serve.sh starts one).

The server is Nautobot 3.2 on PostgreSQL 15 and Redis 7, started by the test command before
pytest; these tests read its address and a throw-away token from NAUTOBOT_TEST_URL and
NAUTOBOT_TEST_TOKEN. Without them the tests are skipped on a developer's machine and fail under
CI, so a broken server start is never a silent pass.
"""

import json
import logging
import os
import uuid

import pytest

from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.interop.fabric_map import fabric_map
from core.interop.graphml import unit_names
from core.interop.nautobot import connect, design_from_nautobot, export_to_nautobot
from core.interop.dcim_racks import rack_plan
from core.model import Design
from core.project import load_project, save_project
from core.site_spec import Hall, RackMove, SiteSpec
from designer.cli import main
from tests.interop_designs import tiny_two_tier

SECTIONS = ("counts", "bandwidth", "latency", "power", "reliability", "cost")


@pytest.fixture(scope="module")
def server():
    url, token = os.environ.get("NAUTOBOT_TEST_URL"), os.environ.get("NAUTOBOT_TEST_TOKEN")
    if not url or not token:
        message = "no Nautobot test server: source tests/nautobot/serve.sh before pytest"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return url, token


@pytest.fixture(scope="module")
def tiny() -> Design:
    return tiny_two_tier()


@pytest.fixture(scope="module")
def exported(server, tiny, catalog):
    """The tiny design written once to a location of its own."""
    url, token = server
    location = f"cd-test-{uuid.uuid4().hex[:8]}"
    summary = export_to_nautobot(tiny, catalog, connect(url, token), url, location)
    return location, summary


def _sections(design, catalog) -> dict:
    data = evaluation_to_json(evaluate(design, catalog))
    out = {section: data[section] for section in SECTIONS}
    out["warnings"] = sorted(w["code"] for w in data["warnings"])
    return out


def test_export_writes_every_device_interface_and_cable(exported, server):
    location, summary = exported
    assert (summary.devices, summary.interfaces, summary.cables) == (10, 96, 48)
    api = connect(*server)
    site = api.dcim.locations.get(name=location)
    devices = list(api.dcim.devices.filter(location=site.id, depth=1))
    assert sorted(d.device_type.model for d in devices).count("DGX-H100") == 4
    assert {d.status.name for d in devices} == {"Planned"}
    assert {d.role.name for d in devices} == {"Cluster Designer: compute", "Cluster Designer: leaf",
                                              "Cluster Designer: spine"}


def test_the_round_trip_is_exact_on_what_both_hold(exported, server, tiny, catalog):
    location, _ = exported
    url, token = server
    back, summary = design_from_nautobot(connect(url, token), url, catalog, location, fabric_map(None, catalog))
    assert (summary.hosts, summary.switches, summary.cables) == (4, 6, 48)
    assert _sections(back, catalog) == _sections(tiny, catalog)
    links = {(link.medium, link.length_m, link.speed_gbit_s, link.count)
             for _, block in back.root.iter_blocks() for link in block.links}
    assert links == {("copper", 3.0, 400.0, 16)}


def test_a_location_that_holds_devices_is_never_written_into(exported, server, tiny, tmp_path, capsys):
    location, _ = exported
    url, token = server
    project = tmp_path / "tiny.json"
    save_project(tiny, project)
    assert main(["export", str(project), "--nautobot", url, "--token", token, "--location", location]) == 2
    err = capsys.readouterr().err
    assert f"location {location!r} already holds 10 devices" in err and err.count("\n") == 1


def test_cli_import_writes_the_project_and_never_the_token(exported, server, tmp_path, capsys, caplog):
    location, _ = exported
    url, token = server
    out = tmp_path / "back.json"
    with caplog.at_level(logging.DEBUG):
        assert main(["import", "nautobot", "--url", url, "--token", token, "--location", location,
                     "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "4 hosts, 6 switches and 48 cables" in err
    for text in (out.read_text(), err, caplog.text, json.dumps(load_project(out).metadata)):
        assert token not in text


@pytest.mark.parametrize("where, token, message", [
    ("live", "0" * 40, "cannot reach the server (HTTP 403"),
    ("closed", None, "cannot reach the server (ConnectionError)"),
    ("live", "", "no Nautobot token"),
])
def test_server_problems_are_one_line_without_the_token(server, tmp_path, capsys, monkeypatch,
                                                         where, token, message):
    url, good = server
    monkeypatch.delenv("NAUTOBOT_TOKEN", raising=False)
    if where == "closed":
        url = "http://127.0.0.1:9"  # the discard port: nothing listens there
    token = good if token is None else token
    out = tmp_path / "x.json"
    args = ["import", "nautobot", "--url", url, "--location", "anywhere", "-o", str(out)]
    assert main(args + (["--token", token] if token else [])) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert (not token) or token not in err
    assert not out.exists()


def test_a_device_type_the_catalog_lacks_needs_a_mapping(server, catalog, tmp_path):
    url, token = server
    api = connect(url, token)
    location = f"cd-test-{uuid.uuid4().hex[:8]}"
    site_type = api.dcim.location_types.get(name="Site")
    active = api.extras.statuses.get(name="Active")
    site = api.dcim.locations.create(name=location, location_type=site_type.id, status=active.id)
    maker = api.dcim.manufacturers.get(name="Acme") or api.dcim.manufacturers.create(name="Acme")
    model = f"Mystery-{uuid.uuid4().hex[:6]}"
    kind = api.dcim.device_types.create(model=model, manufacturer=maker.id)
    role = api.extras.roles.get(name="gpu-node") or api.extras.roles.create(name="gpu-node",
                                                                          content_types=["dcim.device"])
    api.dcim.devices.create(name="gpu001", device_type=kind.id, role=role.id, location=site.id, status=active.id)
    with pytest.raises(DesignError, match=rf"device type '{model}' \(device 'gpu001'\) is not in the catalog"):
        design_from_nautobot(api, url, catalog, location, fabric_map(None, catalog))
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"hosts": [{"match": "^gpu", "catalog_id": "DGX-H100"}]}))
    design, summary = design_from_nautobot(api, url, catalog, location, fabric_map(mapping, catalog))
    assert summary.hosts == 1 and [n.catalog_id for _, n in design.root.iter_nodes()] == ["DGX-H100"]


def test_an_unknown_location_is_named(server, catalog):
    url, token = server
    with pytest.raises(DesignError, match="no location named 'nowhere-at-all'"):
        design_from_nautobot(connect(url, token), url, catalog, "nowhere-at-all", fabric_map(None, catalog))


def _placed(design, catalog) -> dict:
    """Every device by name: (hall, row, slot, U) on the design's floor plan."""
    plan, flat, graph = rack_plan(design, catalog)
    names = unit_names(flat, graph.offsets)
    return {name: (plan.hall_names[plan.rack_hall[rack]], plan.rack_row[rack], plan.rack_slot[rack], u)
            for name, rack, u in zip(names, plan.unit_rack, plan.unit_position)}


def test_export_puts_every_device_in_its_rack_at_its_unit(exported, server, tiny, catalog):
    location, summary = exported
    api = connect(*server)
    site = api.dcim.locations.get(name=location)
    racks = {r.name: r for r in api.dcim.racks.filter(location=site.id)}
    # the floor plan of the tiny design: one row of five racks, leaf / compute / spine / leaf /
    # compute (core/site: a scalable unit's network rack beside its compute rack)
    assert summary.racks == 5 and sorted(racks) == [f"rack {k}" for k in range(1, 6)]
    assert [racks[f"rack {k}"].facility_id for k in range(1, 6)] == [f"slot {k}" for k in range(1, 6)]
    assert {r.u_height for r in racks.values()} == {48}
    devices = {d.name: d for d in api.dcim.devices.filter(location=site.id, depth=1)}
    placed = _placed(tiny, catalog)
    assert {name: (d.rack.name, d.position) for name, d in devices.items()} == {
        name: (f"rack {1 + 5 * row + slot}", u) for name, (_, row, slot, u) in placed.items()}
    # a DGX H100 is 8U (catalog): two of them at U1 and U9
    assert sorted(d.position for d in devices.values() if d.device_type.model == "DGX-H100"
                  and d.rack.name == "rack 2") == [1, 9]


def test_racks_moved_on_the_floor_plan_come_back_where_they_stand(server, tiny, catalog):
    url, token = server
    moved = tiny.snapshot()
    # a narrow hall of three racks a row, rack 3 (the spines) moved to the head of row 2
    moved.site = SiteSpec(halls=(Hall("Hall A", 5000.0, 5000.0, 3 * 0.6 + 2 * 1.2, 3 * 3.6, 3.6),),
                          moves=(RackMove(3, 2, 1),))
    location = f"cd-test-{uuid.uuid4().hex[:8]}"
    api = connect(url, token)
    assert export_to_nautobot(moved, catalog, api, url, location).racks == 5
    back, summary = design_from_nautobot(api, url, catalog, location, fabric_map(None, catalog))
    assert summary.racks == 5 and summary.notes == ()
    assert _placed(back, catalog) == _placed(moved, catalog)
    assert _placed(moved, catalog)["spine#0"][1:3] == (1, 0)  # row 2, slot 1
    assert [h.name for h in back.site.halls] == ["Hall A"]


def test_a_location_that_holds_racks_is_never_written_into(exported, server, tiny, catalog):
    url, token = server
    api = connect(url, token)
    location = f"cd-test-{uuid.uuid4().hex[:8]}"
    site = api.dcim.locations.create(name=location, location_type=api.dcim.location_types.get(name="Site").id,
                                     status=api.extras.statuses.get(name="Active").id)
    api.dcim.racks.create(name="theirs", location=site.id, status=api.extras.statuses.get(name="Active").id)
    with pytest.raises(DesignError, match=f"location '{location}' already holds 1 rack; choose another"):
        export_to_nautobot(tiny, catalog, api, url, location)
    assert api.dcim.devices.count(location=site.id) == 0
