"""Cooling types per rack (issue 14): each type's rack-kW limit, the warning when a rack draws
more than its cooling removes, the PUE of a mix of types, and old files evaluating unchanged.

Every expected number is worked out by hand in the comments from the catalog's nameplate
figures (resources/catalog/systems.json) and the defaults of docs/reference/cooling.md.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.analysis.power import PowerAssumptions, analyze_power
from core.assumptions import Assumptions
from core.catalog import load_catalog, parse_entry
from core.cooling import COOLING_TYPES
from core.errors import CatalogError, ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.inventory import Inventory, InventoryItem
from core.model import Block, Design, Node
from core.project import load_project, save_project
from tests.separate_design import draw_separately


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def racks(catalog, system_id: str, count: int, cooling: str = "", **overrides) -> InventoryItem:
    spec = catalog.get(system_id)
    return InventoryItem(system_id, spec.kind, "compute", count, spec, True, dict(overrides),
                         (f"cluster/{system_id}",), cooling=cooling)


def warning(result, code="RACK_OVER_COOLING_LIMIT"):
    return next((d for d in result.diagnostics if d.code == code), None)


def test_gb300_nvl72_on_air_is_over_its_cooling_and_on_cold_plate_is_not(catalog):
    # GB300 NVL72: one 142 kW rack (NVIDIA's rack requirement). Air removes 50 kW by default.
    on_air = analyze_power(Inventory((racks(catalog, "GB300-NVL72", 2, "air"),)), None, None)
    found = warning(on_air)
    assert found is not None and found.components == ("cluster/GB300-NVL72",)
    assert "142.0 kW on air cooling (limit 50 kW)" in found.message
    assert on_air.cooling["air"].over_limit_racks == 2
    # Its catalog cooling ("liquid", i.e. cold-plate) removes 200 kW: no warning.
    own = analyze_power(Inventory((racks(catalog, "GB300-NVL72", 2),)), None, None)
    assert warning(own) is None and list(own.cooling) == ["cold-plate"]
    assert own.cooling["cold-plate"].max_rack_kw == pytest.approx(142.0)
    assert own.cooling["cold-plate"].racks == 2 and own.cooling["cold-plate"].it_kw == pytest.approx(284.0)
    # A cold-plate limit lowered below 142 kW catches it too.
    tight = analyze_power(Inventory((racks(catalog, "GB300-NVL72", 1),)), None, None,
                          PowerAssumptions(liquid_rack_limit_kw=140.0))
    assert "(limit 140 kW)" in warning(tight).message


def test_dgx_h100_rack_of_four_against_a_40_kw_air_limit(catalog):
    # 4 x DGX H100 per rack x 10.2 kW = 40.8 kW: over a 40 kW air limit, within the default 50.
    item = racks(catalog, "DGX-H100", 8)
    default = analyze_power(Inventory((item,)), None, None)
    assert default.cooling["air"].max_rack_kw == pytest.approx(40.8)
    assert default.cooling["air"].racks == 2 and warning(default) is None
    tight = analyze_power(Inventory((item,)), None, None, PowerAssumptions(air_rack_limit_kw=40.0))
    assert tight.cooling["air"].over_limit_racks == 2
    assert "40.8 kW on air cooling (limit 40 kW)" in warning(tight).message
    # The same racks behind rear-door heat exchangers (75 kW) are fine even at 40 kW for air.
    rear = analyze_power(Inventory((racks(catalog, "DGX-H100", 8, "rear-door"),)), None, None,
                         PowerAssumptions(air_rack_limit_kw=40.0))
    assert warning(rear) is None and rear.cooling["rear-door"].rack_limit_kw == 75.0


def test_a_part_filled_last_rack_is_counted_at_its_own_draw(catalog):
    # 5 DGX H100 at 4 per rack: one rack of 40.8 kW and one of 10.2 kW; a 40 kW limit: one over.
    result = analyze_power(Inventory((racks(catalog, "DGX-H100", 5),)), None, None,
                           PowerAssumptions(air_rack_limit_kw=40.0))
    air = result.cooling["air"]
    assert (air.racks, air.over_limit_racks) == (2, 1)
    assert air.it_kw == pytest.approx(51.0) and result.max_rack_kw == pytest.approx(40.8)
    assert warning(result).message.startswith("1 compute rack draws more than its cooling removes")


def test_pue_of_two_cooling_types_is_compute_kw_weighted(catalog):
    # 4 DGX H100 on air (40.8 kW at PUE 1.4) + 1 GB300 NVL72 cold-plate (142 kW at 1.15):
    # (40.8 x 1.4 + 142 x 1.15) / (40.8 + 142) = (57.12 + 163.3) / 182.8 = 1.20580...
    inventory = Inventory((racks(catalog, "DGX-H100", 4), racks(catalog, "GB300-NVL72", 1)))
    result = analyze_power(inventory, None, None)
    assert result.pue == pytest.approx(220.42 / 182.8)
    assert result.facility_kw == pytest.approx(220.42)
    assert list(result.cooling) == ["air", "cold-plate"]
    # The DGX racks behind rear doors (1.3): (40.8 x 1.3 + 163.3) / 182.8 = 216.34 / 182.8
    rear = Inventory((racks(catalog, "DGX-H100", 4, "rear-door"), racks(catalog, "GB300-NVL72", 1)))
    assert analyze_power(rear, None, None).pue == pytest.approx(216.34 / 182.8)
    # Immersion at an edited 1.03: (40.8 x 1.4 + 142 x 1.03) / 182.8 = 203.38 / 182.8
    dunk = Inventory((racks(catalog, "DGX-H100", 4), racks(catalog, "GB300-NVL72", 1, "immersion")))
    assert analyze_power(dunk, None, None, PowerAssumptions(pue_immersion=1.03)).pue == \
        pytest.approx(203.38 / 182.8)


def test_supernode_racks_share_its_power(catalog):
    # CloudMatrix384: 559 kW over 16 racks = 34.94 kW per rack, all 16 counted.
    result = analyze_power(Inventory((racks(catalog, "CloudMatrix384", 2),)), None, None)
    cold = result.cooling["cold-plate"]
    assert cold.racks == 32 and cold.max_rack_kw == pytest.approx(559 / 16)


def test_a_user_catalog_saying_liquid_means_cold_plate_and_unknown_cooling_is_refused(catalog):
    raw = {"id": "my-liquid-box", "kind": "server", "vendor": "t", "name": "t", "source": "t",
           "confidence": "E", "accelerator": "H100-SXM5-80GB", "accelerators": 8,
           "max_power_kw": 12.0, "cooling": "liquid"}
    spec = parse_entry(raw, "user catalog", 0)
    result = analyze_power(Inventory((InventoryItem(spec.id, spec.kind, "compute", 1, spec),)),
                           None, None)
    assert list(result.cooling) == ["cold-plate"] and result.pue == pytest.approx(1.15)
    with pytest.raises(CatalogError, match="field 'cooling': must be one of air, rear-door, cold-plate, immersion"):
        parse_entry({**raw, "cooling": "water"}, "user catalog", 0)


def _design(cooling: str = "") -> Design:
    root = Block("root", "racks")
    root.children["dgx"] = Node("dgx", "DGX-H100", 4)
    root.children["nvl"] = Node("nvl", "GB300-NVL72", 1, cooling=cooling)
    return Design("racks", root)


def test_a_component_sets_its_racks_cooling_in_the_project_file(catalog, tmp_path):
    path = tmp_path / "racks.json"
    save_project(_design("air"), path)
    child = json.loads(path.read_text())["design"]["children"][1]
    assert child["cooling"] == "air"
    loaded = load_project(path, catalog)
    assert loaded.root.children["nvl"].cooling == "air"
    power = evaluation_to_json(evaluate(loaded, catalog))["power"]
    assert power["cooling"]["air"] == {"racks": 2, "it_kw": pytest.approx(182.8),
                                       "max_rack_kw": pytest.approx(142.0), "rack_limit_kw": 50.0,
                                       "pue": 1.4, "over_limit_racks": 1}
    assert power["pue"] == pytest.approx(1.4) and power["max_rack_kw"] == pytest.approx(142.0)
    codes = {w["code"]: w for w in evaluation_to_json(evaluate(loaded, catalog))["warnings"]}
    assert codes["RACK_OVER_COOLING_LIMIT"]["components"] == ["nvl"]
    # without its own cooling a component keeps the catalog's, and the file has no key for it
    save_project(_design(), path)
    assert "cooling" not in path.read_text()
    assert evaluate(load_project(path, catalog), catalog).power.pue == pytest.approx(220.42 / 182.8)


def test_a_bad_cooling_in_a_project_file_names_where(catalog, tmp_path):
    path = tmp_path / "bad.json"
    save_project(_design("air"), path)
    path.write_text(path.read_text().replace('"cooling": "air"', '"cooling": "water"'))
    with pytest.raises(ProjectFileError,
                       match=r"^bad\.json: \$\.design\.children\[1\]\.cooling: 'water' is not a cooling type"):
        load_project(path, catalog)


# What main evaluated for the bundled examples before cooling types existed (files written
# without any cooling field): PUE and densest rack, and the racks the new section counts.
OLD_EXAMPLES = {
    "dgx-h100-superpod-4su.json": (1.4, 40.8, {"air": 32}),
    "gb200-nvl72-su.json": (1.15, 120.0, {"cold-plate": 8}),
    "cloudmatrix384.json": (1.15, 559 / 16, {"cold-plate": 16}),
    "hand-drawn-nvl72-x4.json": (1.15, 120.06, {"cold-plate": 4}),
}


@pytest.mark.parametrize("name", sorted(OLD_EXAMPLES))
def test_old_project_files_evaluate_unchanged(catalog, tmp_path, name):
    pue, max_rack_kw, rack_counts = OLD_EXAMPLES[name]
    path = tmp_path / name
    shutil.copy(f"resources/examples/{name}", path)
    assert '"cooling"' not in path.read_text()
    ev = evaluate(load_project(path, catalog), catalog)
    assert ev.power.pue == pytest.approx(pue) and ev.power.max_rack_kw == pytest.approx(max_rack_kw)
    assert ev.power.facility_kw == pytest.approx(ev.power.it_kw * pue)
    assert {kind: r.racks for kind, r in ev.power.cooling.items()} == rack_counts
    assert "RACK_OVER_COOLING_LIMIT" not in {w.code for w in ev.warnings}


def test_cooling_assumptions_load_from_a_project_file_and_are_bounded():
    from core.assumptions import assumptions_from_dict
    from core.errors import DesignError

    loaded = assumptions_from_dict({"power": {"pue_immersion": 1.03, "immersion_rack_limit_kw": 300}})
    assert loaded.power.pue_immersion == 1.03 and loaded.power.rack_limit_kw("immersion") == 300
    assert Assumptions().power.cooling_pue("rear-door") == 1.3
    with pytest.raises(DesignError, match=r"power\.pue_rear_door: 0\.9 is below the minimum 1\.0"):
        assumptions_from_dict({"power": {"pue_rear_door": 0.9}})


@given(st.lists(st.tuples(st.sampled_from(["DGX-H100", "DGX-B300", "GB300-NVL72", "CloudMatrix384"]),
                          st.sampled_from(("",) + COOLING_TYPES), st.integers(1, 10_000),
                          st.integers(1, 16)), min_size=1, max_size=6))
def test_rack_counts_and_pue_mix_hold_for_any_mix(catalog, groups):
    # Whatever the mix: every node sits in a rack (servers: ceil(count / per_rack); super-nodes:
    # count x racks), the facility power of compute-only designs is each type's compute kW
    # times its PUE, and no more racks are over a limit than there are racks.
    items, expected_racks = [], 0
    for system_id, cooling, count, per_rack in groups:
        spec = catalog.get(system_id)
        overrides = {"per_rack": float(per_rack)} if spec.kind == "server" else {}
        items.append(racks(catalog, system_id, count, cooling, **overrides))
        expected_racks += (-(-count // per_rack) if spec.kind == "server"
                           else count * int(spec.racks))
    result = analyze_power(Inventory(tuple(items)), None, None)
    assert sum(r.racks for r in result.cooling.values()) == expected_racks
    assert result.facility_kw == pytest.approx(sum(r.it_kw * r.pue for r in result.cooling.values()))
    assert all(0 <= r.over_limit_racks <= r.racks for r in result.cooling.values())
    assert result.max_rack_kw == pytest.approx(max(r.max_rack_kw for r in result.cooling.values()))
    assert (warning(result) is None) == all(r.over_limit_racks == 0 for r in result.cooling.values())


def test_a_block_cools_every_component_inside_that_sets_none(catalog, tmp_path):
    # hall (immersion) > pod (repeated 2x, no cooling) > 8 DGX H100 + 2 GB300 NVL72 set to air:
    # the DGX inherit immersion from the hall, the NVL72 keep their own air.
    pod = Block("pod", count=2)
    pod.children["dgx"] = Node("dgx", "DGX-H100", 8)
    pod.children["nvl"] = Node("nvl", "GB300-NVL72", 1, cooling="air")
    hall = Block("hall", cooling="immersion")
    hall.children["pod"] = pod
    root = Block("root")
    root.children["hall"] = hall
    root.children["loose"] = Node("loose", "DGX-H100", 4)  # outside the hall: the catalog's air
    path = tmp_path / "hall.json"
    save_project(Design("hall", root), path)
    assert json.loads(path.read_text())["design"]["children"][0]["cooling"] == "immersion"
    power = evaluate(load_project(path, catalog), catalog).power
    # immersion: 16 DGX in 4 racks of 40.8 kW; air: 2 NVL72 racks of 142 kW + 1 rack of 4 DGX
    assert {kind: r.racks for kind, r in power.cooling.items()} == {"air": 3, "immersion": 4}
    assert power.cooling["immersion"].it_kw == pytest.approx(16 * 10.2)
    assert power.cooling["air"].over_limit_racks == 2
    # PUE: (163.2 x 1.05 + (284 + 40.8) x 1.4) / 488 = (171.36 + 454.72) / 488
    assert power.pue == pytest.approx(626.08 / 488.0)
    with pytest.raises(Exception, match=r"block 'hall' field cooling: 'oil' is not a cooling type"):
        hall.cooling = "oil"


def test_a_cooled_block_does_not_split_the_bill_of_its_switches(catalog):
    # Two SUs, one immersion-cooled: their leaf switches stay one line; the servers are two items.
    root = Block("root")
    for name, cooling in (("su1", ""), ("su2", "immersion")):
        su = Block(name, cooling=cooling)
        su.children["dgx"] = Node("dgx", "DGX-H100", 4)
        su.children["leaf"] = Node("leaf", "QM9700", 1, tier="leaf")
        root.children[name] = su
    items = evaluate(Design("two", root), catalog).inventory.items
    assert [(i.catalog_id, i.count, i.cooling) for i in items if i.catalog_id in ("QM9700", "DGX-H100")] \
        == [("DGX-H100", 4, ""), ("QM9700", 2, ""), ("DGX-H100", 4, "immersion")]


def test_a_cooled_block_drawn_server_by_server_evaluates_the_same(catalog):
    # An import lists every server on its own: the cooling each one carries (its block's here)
    # gives the racks and PUE of the block design (racks packed over all units of an item).
    root = Block("root")
    su = Block("su", count=3, cooling="rear-door")
    su.children["dgx"] = Node("dgx", "DGX-H100", 8)
    root.children["su"] = su
    root.children["nvl"] = Node("nvl", "GB300-NVL72", 1)
    blocks = Design("blocks", root)
    separate = draw_separately(blocks, catalog)
    for design in (blocks, separate):
        power = evaluate(design, catalog).power
        assert {kind: r.racks for kind, r in power.cooling.items()} == {"rear-door": 6, "cold-plate": 1}
        # (244.8 x 1.3 + 142 x 1.15) / 386.8
        assert power.pue == pytest.approx((244.8 * 1.3 + 142 * 1.15) / 386.8)
