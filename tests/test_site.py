"""The floor plan: racks, rows and halls of a placed design, its cables' lengths and media.

Reference figures: NVIDIA DGX SuperPOD reference architectures (P):
* H100 (RA-11333-001; data-centre design guide, docs.nvidia.com/dgx-superpod/design-guides/
  dgx-superpod-data-center-design-h100): 4 DGX H100 per rack at 40.8 kW, 8 compute racks per
  scalable unit of 32 nodes;
* GB200 (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200,
  "DGX SuperPOD Architecture"): an SU is 8 DGX GB200 NVL72 racks laid out in one row, 1.2 MW TDP;
* B200 (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200,
  "Larger DGX SuperPOD component counts"): node-leaf and leaf-spine cables per SU count.
Reach: NVIDIA LinkX 100G-PAM4 product line overview (P), cited in core/site/media.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import DesignError, ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Block, Design, Link, Node
from core.project import design_from_dict, design_to_dict, load_project
from core.site.media import MEDIA, choose_media
from core.site_spec import Hall, SiteSpec, site_from_dict, with_move

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"


def site_of(design, catalog):
    return evaluation_to_json(evaluate(design, catalog))["site"]


def test_superpod_h100_racks_follow_the_reference_architecture(catalog):
    ev = evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json"), catalog)
    site = evaluation_to_json(ev)["site"]
    # RA: 4 DGX H100 per compute rack (40.8 kW), 8 compute racks per 32-node SU, 4 SUs
    assert site["racks_by_kind"]["compute"] == 32
    assert site["rack_kw_max"] == pytest.approx(40.8)
    # every cable is counted once, by medium: bought cables and links both add up
    assert sum(site["cables_by_medium"].values()) == ev.counts.cables
    assert sum(site["links_by_medium"].values()) == ev.counts.links
    assert site["reach_violations"] == 0 and site["placement"] == "auto"
    # server-leaf cables stay inside an SU's row; nothing in one hall needs single-mode
    assert site["links_by_medium"]["smf"] == 0
    assert site["cable_length_m"]["max"] < 50


def test_gb200_su_is_eight_nvl72_racks_in_one_row(catalog):
    site = site_of(load_project(EXAMPLES / "gb200-nvl72-su.json"), catalog)
    assert site["racks_by_kind"]["compute"] == 8
    assert site["rows"] == 1
    # RA: 1.2 MW TDP per SU; the row's nameplate IT load (8 x 120 kW + its switches) is below
    assert 960 <= site["row_kw_max"] <= 1200


def test_nvlink_switch_trays_sit_in_their_nvl72_rack(catalog):
    # hand-drawn NVL72 racks: 18 compute trays and 18 NVLink switch chips per rack
    site = site_of(load_project(EXAMPLES / "hand-drawn-nvl72-x4.json"), catalog)
    assert site["racks_by_kind"]["compute"] == 4
    # the 5,184 NVLink copper links stay inside their racks: DAC, none beyond reach
    assert site["links_by_medium"]["dac"] == 5184 and site["reach_violations"] == 0


@pytest.mark.parametrize("sus,node_leaf,leaf_spine", [(2, 512, 512), (4, 1024, 1024)])
def test_b200_superpod_cable_counts(catalog, sus, node_leaf, leaf_spine):
    design = generate_fat_tree(FatTreeOptions(sus * 32 * 8, "DGX-B200", "QM9700"), catalog)
    ev = evaluate(design, catalog)
    site = evaluation_to_json(ev)["site"]
    assert sum(site["links_by_medium"].values()) == node_leaf + leaf_spine
    # DGX B200: 2 per rack (14.3 kW each; the RA's "exceeds 25 kW" racks)
    assert site["racks_by_kind"]["compute"] == sus * 16


def one_row_design() -> Design:
    """8 DGX H100 (two racks of 4) and one QM9700 leaf: one row, the leaf rack between."""
    block = Block("row", children={"nodes": Node("nodes", "DGX-H100", 8),
                                   "leaf": Node("leaf", "QM9700", 1, tier="leaf")},
                  links=[Link("l", "nodes", "leaf", count=64, speed_gbit_s=400.0)])
    return Design("one row", Block("root", children={"row": block}))


def test_one_row_by_hand(catalog):
    """Racks at 0.6 m centres from a 1.2 m end aisle: x = 1.5 (servers 1-4), 2.1 (leaf),
    2.7 (servers 5-8). The first server's ports sit at 0.1 + 4 U x 0.04445 = 0.2778 m, the leaf's
    at 0.1 + 0.5 U x 0.04445 = 0.1222 m; the tray is at 2.6 m. Routed: 0.6 along the row +
    (2.6 - 0.2778) up + (2.6 - 0.1222) down = 5.4 m; +10 % slack + 1 m service loop = 6.94 m."""
    ev = evaluate(one_row_design(), catalog)
    site = ev.site
    assert site.racks == 3 and site.rows == 1
    assert site.template.rack_class.tolist() == [0, 1, 0]
    assert site.layout.x_m.tolist() == pytest.approx([1.5, 2.1, 2.7])
    lengths = site.cables.length_m
    first_server = site.cables.rack_a == 0
    assert lengths[first_server][0] == pytest.approx(6.94, abs=0.01)
    # 400G multimode optics reach 50 m: all 64 cables are MMF; the bottom servers' are the
    # longest, the top servers' (ports at 0.1 + 28 U x 0.04445 = 1.3446 m) the shortest
    assert site.links_by_medium["mmf"] == 64
    assert lengths.max() == pytest.approx(6.94, abs=0.01)
    assert lengths.min() == pytest.approx((0.6 + 2.6 - 1.3446 + 2.6 - 0.1222) * 1.1 + 1.0,
                                          abs=0.01)


def test_media_by_length_and_speed():
    """LinkX 100G-PAM4: DAC to 3 m, linear ACC to 5 m, multimode to 50 m, single-mode to 2 km."""
    lengths = np.array([2.9, 4.0, 6.0, 8.0, 40.0, 60.0, 2500.0])
    speed = np.full(len(lengths), 400.0)
    fibre = np.array([False, False, False, False, True, True, True])
    medium, over = choose_media(lengths, speed, fibre)
    assert [MEDIA[m] for m in medium] == ["dac", "acc", "aec", "aec", "mmf", "smf", "smf"]
    assert over.tolist() == [False, False, False, True, False, False, True]
    # 200G-PAM4 (1.6T): no DAC, no multimode
    medium, _ = choose_media(np.array([1.0, 30.0]), np.array([1600.0, 1600.0]),
                             np.array([False, True]))
    assert [MEDIA[m] for m in medium] == ["acc", "smf"]


def test_a_copper_link_across_the_hall_is_a_reach_violation(catalog):
    design = one_row_design()
    row = design.root.children["row"]
    row.links[0] = Link("l", "nodes", "leaf", count=64, speed_gbit_s=400.0, medium="copper")
    design.site = SiteSpec(moves=(with_move(SiteSpec(), 2, 1, 20).moves))  # leaf rack to the far end
    ev = evaluate(design, catalog)
    assert ev.site.reach_violations > 0
    assert "CABLE_REACH_EXCEEDED" in {w.code for w in ev.warnings}
    assert ev.site.placement == "drawn"


def test_moving_a_rack_changes_its_cables_and_survives_a_save(catalog):
    design = one_row_design()
    before = evaluate(design, catalog).site.cable_length_m["max"]
    design.site = with_move(SiteSpec(), 2, 1, 15)
    after = evaluate(design, catalog).site
    assert after.layout.rack_slot[1] == 14
    assert after.cable_length_m["max"] > before
    saved = json.loads(json.dumps(design_to_dict(design)))
    assert saved["site"] == {"racks": {"2": {"row": 1, "slot": 15}}}
    assert design_from_dict(saved, catalog).site == design.site


def test_a_move_onto_a_taken_slot_swaps_the_racks(catalog):
    design = one_row_design()
    design.site = with_move(SiteSpec(), 1, 1, 3)
    site = evaluate(design, catalog).site
    assert site.layout.rack_slot.tolist() == [2, 1, 0]


def test_old_projects_load_without_a_site(catalog):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json")
    assert design.site is None
    assert "site" not in design_to_dict(design)


@pytest.mark.parametrize("site,where", [
    ({"halls": [{"power_kw": -1}]}, "$.site.halls[0].power_kw"),
    ({"racks": {"x": {"row": 1, "slot": 1}}}, "$.site.racks.x"),
    ({"racks": {"3": {"row": 0, "slot": 1}}}, "$.site.racks.3.row"),
    ({"rack_width": 1}, "$.site.rack_width"),
    ({"racks_per_row": 2.5}, "$.site.racks_per_row"),
])
def test_bad_site_input_names_where(catalog, site, where):
    raw = design_to_dict(one_row_design())
    raw["site"] = site
    with pytest.raises(ProjectFileError) as error:
        design_from_dict(raw, catalog)
    assert str(error.value).startswith(where)
    assert "\n" not in str(error.value)


def test_hall_power_and_cooling_and_row_cdu_warnings(catalog):
    design = load_project(EXAMPLES / "gb200-nvl72-su.json")
    design.site = SiteSpec(halls=(Hall("small", 500.0, 400.0, 20.0, 10.0, 3.6),), row_cdu_kw=600.0)
    ev = evaluate(design, catalog)
    codes = {w.code for w in ev.warnings}
    assert {"HALL_POWER_EXCEEDED", "HALL_COOLING_EXCEEDED", "ROW_CDU_EXCEEDED"} <= codes
    assert ev.site.placement == "drawn"
    # warnings, not errors: the design can still be evaluated as drawn
    assert all(w.severity == "warning" for w in ev.warnings if w.code.startswith(("HALL", "ROW")))


def test_a_rack_over_its_cooling_limit_warns(catalog):
    design = one_row_design()
    design.root.children["row"].children["nodes"] = Node("nodes", "DGX-H100", 8, cooling="air",
                                                         overrides={"per_rack": 6})
    ev = evaluate(design, catalog)
    assert "SITE_RACK_OVER_LIMIT" in {w.code for w in ev.warnings}  # 6 x 10.2 kW on air (50 kW)


def test_a_move_off_the_site_is_reported_not_made(catalog):
    design = one_row_design()
    design.site = with_move(SiteSpec(), 1, 9, 1)
    ev = evaluate(design, catalog)
    assert "SITE_PLACEMENT" in {w.code for w in ev.warnings}
    assert ev.site.layout.rack_row.tolist() == [0, 0, 0]


@settings(max_examples=25, deadline=None)
@given(sus=st.integers(1, 6), nodes=st.integers(1, 40), leaves=st.integers(1, 12),
       per_link=st.integers(1, 4), racks_per_row=st.integers(2, 30))
def test_every_unit_has_one_slot_and_every_cable_is_counted(catalog, sus, nodes, leaves,
                                                           per_link, racks_per_row):
    su = Block("su", count=sus, children={
        "nodes": Node("nodes", "DGX-H100", nodes),
        "leaf": Node("leaf", "QM9700", leaves, tier="leaf")},
        links=[Link("l", "nodes", "leaf", count=nodes * per_link)])
    design = Design("d", Block("root", children={"su": su}))
    design.site = SiteSpec(racks_per_row=racks_per_row)
    ev = evaluate(design, catalog)
    site = ev.site
    # no two racks share a slot, and no row is longer than the hall allows
    slots = set(zip(site.layout.rack_row.tolist(), site.layout.rack_slot.tolist()))
    assert len(slots) == site.racks
    assert site.layout.rack_slot.max() < racks_per_row
    assert site.template.rack_u.max() <= SiteSpec().rack_height_u
    assert sum(site.links_by_medium.values()) == ev.counts.links
    assert sum(site.cables_by_medium.values()) == ev.counts.cables
    assert (site.cables.length_m > 0).all()


def test_a_repeated_block_is_placed_from_one_template(catalog):
    """10,000 SUs of one server each: racks shared 4 to a rack, built by tiling arrays."""
    su = Block("su", count=10_000, children={"node": Node("node", "DGX-H100", 1)})
    design = Design("d", Block("root", children={"su": su}))
    site = evaluate(design, catalog).site
    assert site.racks == 2500


def test_site_spec_rejects_wrong_types():
    with pytest.raises(DesignError):
        site_from_dict([], "$.site")


def test_placed_lengths_change_the_latency_by_fibre_propagation(catalog):
    """One tier: a path crosses the longest server-leaf cable twice. Drawn 10 m, placed 6.94 m
    (test_one_row_by_hand): 2 x (6.94 - 10) m x 5 ns/m = -30.6 ns."""
    out = evaluation_to_json(evaluate(one_row_design(), catalog))
    assert out["site"]["gpu_to_gpu_max_us"] == pytest.approx(
        out["latency"]["gpu_to_gpu_max_us"] - 0.0306, abs=0.0002)


def test_media_totals_hook_adds_up(catalog):
    from core.site.hook import media_totals

    ev = evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json"), catalog)
    totals = media_totals(ev.site)
    assert sum(t.cables for t in totals.values()) == ev.counts.links
    assert totals["mmf"].transceivers == 2 * totals["mmf"].cables
    assert totals["mmf"].length_m == pytest.approx(float(ev.site.cables.length_m.sum()))


def test_b200_superpod_in_three_tiers_has_the_ra_counts_per_tier(catalog):
    """RA "Larger DGX SuperPOD component counts" (B200, P): 16 SUs = 512 nodes, 128 leaf, 128
    spine and 64 core switches, and 4,096 node-leaf, 4,096 leaf-spine and 4,096 spine-core
    cables. The site places every one of them (its media add up to the cables) and none is
    beyond reach. The RAs publish counts, not lengths (the H100 data-centre design guide gives
    cable weights and diameters by type, Table 18): the lengths are checked by the SU's rack
    layout (test_an_su_has_its_leaf_rack_between...) and by hand (test_one_row_by_hand)."""
    design = generate_fat_tree(FatTreeOptions(16 * 32 * 8, "DGX-B200", "QM9700"), catalog)
    assert design.metadata["switches_by_tier"] == {"leaf": 128, "spine": 128, "core": 64}
    flat = flatten(design, catalog)
    per_pair = {(flat.paths[flat.bundle_a[k]].split("/")[-1], flat.paths[flat.bundle_b[k]].split("/")[-1]):
                b.cables for k, b in enumerate(flat.bundles)}
    assert per_pair == {("nodes", "leaf"): 4096, ("leaf", "spine"): 4096, ("spine", "core"): 4096}
    ev = evaluate(design, catalog)
    site = evaluation_to_json(ev)["site"]
    assert sum(site["links_by_medium"].values()) == 3 * 4096 == ev.counts.cables
    assert site["reach_violations"] == 0
    assert site["racks_by_kind"]["compute"] == 16 * 16  # 2 DGX B200 per rack, 16 racks per SU


def test_runs_that_outgrow_multimode_cost_single_mode_optics(catalog):
    """Rows 40 m apart, one rack per row: the servers' runs to the leaf row are ~50 m; those
    past multimode's 50 m (LinkX) take single-mode, priced from the catalog's single-mode module
    and SMF cable: the placed cables and optics cost more than the drawn 10 m ones."""
    design = one_row_design()
    design.site = SiteSpec(racks_per_row=1, row_pitch_m=40.0)
    site = evaluate(design, catalog).site
    assert site.links_by_medium["smf"] > 0
    effect = site.cables_optics
    assert effect.capex_usd_placed > effect.capex_usd_drawn
    # single-mode modules draw at least what multimode ones do (the same 17 W twin-port OSFP
    # for 2xSR4 and 2xDR4 in the LinkX range)
    assert effect.power_kw_placed >= effect.power_kw_drawn
    assert effect.beyond_catalog_reach == 0


def test_cross_hall_runs_take_long_reach_single_mode_optics(catalog):
    """The 100,000-GPU example's cross-hall 400G runs (up to ~234 m) are past the 100 m DR4
    parts but within the 500 m ones (NVIDIA MMS4X00-NM 2xDR4, 500 m, P): the inventory (placed
    lengths by default) buys them. Its storage leaves sit at the ends of the compute rows
    (core/site/pooled.py), so its long 200G runs are the storage leaf-spine uplinks, on the
    SN5600's 800G cages split to 200G: the cage's 500 m 2xDR4 modules and 1:2 single-mode
    breakouts reach them, and every placed run is priced."""
    design = load_project(EXAMPLES / "h100-100k.json")
    ev = evaluate(design, catalog)
    bought = {item.catalog_id for item in ev.inventory.items}
    assert {"OSFP-800G-2xDR4-500m", "Fiber-SMF-500m", "Fiber-SMF-Splitter-1x2-500m"} <= bought
    flat = flatten(design, catalog)
    c = ev.site.cables
    speed = flat.speed_values[flat.speed_code][c.bundle]
    effect = ev.site.cables_optics
    assert effect.beyond_catalog_reach == 0
    assert effect.capex_usd_placed > effect.capex_usd_drawn
    long_200g = (speed == 200.0) & (c.length_m > 50.0)
    up = [k for k in range(len(flat.cables)) if flat.paths[flat.bundle_a[k]] == "storage-fabric/leaf"
          and flat.paths[flat.bundle_b[k]] == "storage-fabric/spine"]
    assert long_200g.sum() > 20_000 and np.isin(c.bundle[long_200g], up).all()
    # the 400G runs of 100-500 m (spine-core across halls) all have a part now
    assert int(((speed == 400.0) & (c.length_m > 100.0)).sum()) > 50_000


def test_runs_no_catalog_item_reaches_are_not_priced(catalog):
    """Rows 2.5 km apart: past every catalog fibre module and cable (2 km FR4): the placed
    price and power are null, not a number for optics that could not serve them, and the
    inventory, buying for placed lengths, says LINK_TOO_LONG."""
    design = one_row_design()
    design.site = SiteSpec(racks_per_row=1, row_pitch_m=2500.0)
    ev = evaluate(design, catalog)
    effect = ev.site.cables_optics
    assert effect.beyond_catalog_reach > 0
    assert effect.capex_usd_placed is None and effect.power_kw_placed is None
    assert effect.capex_usd_drawn is not None
    assert "LINK_TOO_LONG" in {w.code for w in ev.warnings}


def test_a_failure_what_if_keeps_the_intact_site(catalog):
    """Failed units still sit in their racks: the site (and its warnings) are the intact
    design's, drawn halls included."""
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json")
    design.site = SiteSpec(halls=(Hall("small", 500.0, 2000.0, 20.0, 10.0, 3.6),))
    intact = evaluate(design, catalog)
    su = design.root.children["su"]
    su.failed = 1
    failed = evaluate(design, catalog)
    assert failed.failure is not None
    assert failed.site.racks == intact.site.racks
    assert "HALL_POWER_EXCEEDED" in {w.code for w in failed.warnings}


def test_an_su_has_its_leaf_rack_between_two_groups_of_four_compute_racks(catalog):
    """"Each SU contains 32 DGX H100 servers distributed across 8 racks ... The server racks are
    organized in groups of four, positioned on the left and right sides of the Leaf switch
    rack" (S: shke.com.cn/?p=7546, on the SuperPOD H100 SU layout). The RA's 4-SU, 127-node
    SuperPOD lists 38 racks (RA-11333-001 Table 7, via a mirror: S); the example (128 nodes, no
    management racks or UFM appliances) places 40: 32 compute, 7 network (4 leaf, 2 spine, 1 for
    the storage fabric's switches) and 1 storage. A known difference, not fitted."""
    site = evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json"), catalog).site
    order = [int(k) for k in site.template.rack_class[:9]]
    assert order == [0, 0, 0, 0, 1, 0, 0, 0, 0]
    # the SU's nine racks sit side by side in one row
    assert len(set(site.layout.rack_row[:9].tolist())) == 1
    assert site.racks == 40


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["halls", "racks", "racks_per_row", "row_pitch_m", "name", "power_kw",
                         "row", "slot", "1", "x"]), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(site=json_values)
def test_any_site_key_loads_or_fails_in_one_line(catalog, site):
    raw = design_to_dict(one_row_design())
    raw["site"] = site
    try:
        design = design_from_dict(raw, catalog)
    except ProjectFileError as error:
        assert str(error).startswith("$.site")
        assert "\n" not in str(error)
        return
    assert design.site is None or isinstance(design.site, SiteSpec)
    evaluate(design, catalog)  # whatever loads, evaluates


def test_placed_cable_lengths_reach_the_inventory_cost_and_power(catalog):
    """By default the inventory buys cables and optics for each bundle's longest placed cable:
    rows 40 m apart push the server-leaf runs past multimode's 50 m, so the optics are
    single-mode and cost more than with "cable_lengths": "drawn" (the figures before the floor
    plan); "drawn" is saved and read back, and a project that says "placed" (written when it
    was not the default) still loads to the same site."""
    design = one_row_design()
    design.site = SiteSpec(racks_per_row=1, row_pitch_m=40.0)
    placed = evaluate(design, catalog)
    assert "cable_lengths" not in design_to_dict(design)["site"]  # the default is not written
    design.site = replace(design.site, cable_lengths="drawn")
    drawn = evaluate(design, catalog)
    by_kind = lambda ev: ev.cost.capex_by_kind_usd.get("transceiver", 0.0)  # noqa: E731
    assert by_kind(placed) > by_kind(drawn)
    assert placed.power.it_kw >= drawn.power.it_kw
    saved = design_to_dict(design)["site"]
    assert saved["cable_lengths"] == "drawn"
    assert design_from_dict(design_to_dict(design), catalog).site == design.site
    assert site_from_dict({"cable_lengths": "placed"}) == SiteSpec()
    # a design with no site key is placed automatically, and priced at its placed lengths
    assert evaluate(one_row_design(), catalog).cost.capex_usd == pytest.approx(
        evaluate(Design("one row", one_row_design().root), catalog).cost.capex_usd)


@pytest.mark.parametrize("example", ["dgx-h100-superpod-4su.json", "hand-drawn-nvl72-x4.json"])
def test_a_design_drawn_device_by_device_fills_the_same_racks(catalog, example):
    """An import lists every server and switch on its own: servers still fill racks of their
    per_rack, NVLink switch chips still join their trays' racks (tests/separate_design.py
    draws the same cluster device by device)."""
    from separate_design import draw_separately

    design = load_project(EXAMPLES / example)
    blocks = evaluate(design, catalog).site
    devices = evaluate(draw_separately(design, catalog), catalog).site
    assert devices.racks_by_kind == blocks.racks_by_kind
    assert devices.rack_kw_max == pytest.approx(blocks.rack_kw_max)
    assert devices.links_by_medium == blocks.links_by_medium
