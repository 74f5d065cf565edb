"""Multi-plane and rail-only fabrics: structure, hand-computed counts, bandwidth, reliability."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.assumptions import Assumptions
from core.catalog import default_catalog
from core.errors import GeneratorError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.generators.planes import choose_plane_mode
from core.model import Block
from tests.plane_catalog import plane_catalog

CATALOG = default_catalog()
SERVER, NIC, SWITCH = "TEST-SERVER-8x800", "TEST-NIC-800", "TEST-SWITCH-102T"


def _json(design, catalog=CATALOG, workload=None) -> dict:
    return evaluation_to_json(evaluate(design, catalog, workload))


def _blocks(design) -> dict[str, Block]:
    return dict(design.root.iter_blocks())


# --------------------------------------------------------------------------- structure and counts


def test_small_multi_plane_counts_by_hand():
    """128 DGX H100 (8 x 400G ConnectX-7) on 8 planes of QM9700 (64 x 400G).

    Each plane takes one NIC per server: 128 endpoints. A leaf has 32 ports down and 32 up,
    so a plane has 128 / 32 = 4 leaves and 4 x 32 / 64 = 2 spines: 6 switches, 48 in all.
    Cables: 128 x 8 = 1,024 server-leaf + 8 planes x 4 leaves x 32 = 1,024 leaf-spine.
    Optics: a QM9700 cage is a twin-port 2 x 400G OSFP, so the switch side has
    (1,024 + 2 x 1,024) / 2 = 1,536; each DGX H100 carries 4 twin-port OSFPs for its 8 NICs: 512.
    """
    design = generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700",
                                              planes=8), CATALOG)
    plane = _blocks(design)["plane"]
    assert (plane.role, plane.count) == ("plane", 8)  # stored once, repeated 8 times
    assert plane.children["leaf"].count == 4 and plane.children["spine"].count == 2
    out = _json(design)
    counts = out["counts"]
    assert counts["switches_by_tier"] == {"leaf": 32, "spine": 16}
    assert counts["links"] == 2048
    assert counts["transceivers"] == 1536 + 512
    per_plane = out["bandwidth"]["per_plane"]
    assert per_plane["switches_per_plane_by_tier"] == {"leaf": 4, "spine": 2}
    assert per_plane["cables_per_plane"] == 128 + 4 * 32
    assert per_plane["planes"] == 8 and out["bandwidth"]["planes"] == 8
    assert per_plane["per_gpu_scale_out_per_plane_gbit_s"] == 50.0  # 400 / 8
    assert out["bandwidth"]["per_gpu_scale_out_gbit_s"] == 400.0     # summed over the planes
    assert per_plane["nic_spans_planes"] is False  # one single-port NIC per plane


def test_each_leaf_is_cabled_to_the_servers_of_its_own_scalable_unit():
    """The round-robin bundle rule must give the real cabling: a leaf of plane p serves one
    SU, so the leaf-level GPU domain is one SU (32 servers x 8 GPUs), as in one plane."""
    one = evaluate(generate_fat_tree(FatTreeOptions(gpus=16384, server="DGX-H100",
                                                    switch="QM9700"), CATALOG), CATALOG)
    eight = evaluate(generate_fat_tree(FatTreeOptions(gpus=16384, server="DGX-H100",
                                                      switch="QM9700", planes=8), CATALOG), CATALOG)
    leaf = {lv.name: lv.domain_gpus for lv in eight.topology.fabric.levels}["leaf"]
    assert leaf == 256 == {lv.name: lv.domain_gpus for lv in one.topology.fabric.levels}["leaf"]


def test_planes_reach_more_in_two_tiers_with_fewer_switches_and_hops():
    """16,384 DGX H100 GPUs on QM9700: one fabric needs 3 tiers (2,048 x 8 = 16,384 endpoints
    > 64 x 32 = 2,048 in two), 512 leaves + 512 spines + 256 cores = 1,280 switches, 5 hops.
    8 planes of 2,048 endpoints each fit 2 tiers exactly: 8 x (64 + 32) = 768 switches, 3 hops,
    the same bisection."""
    one = _json(generate_fat_tree(FatTreeOptions(gpus=16384, server="DGX-H100",
                                                 switch="QM9700"), CATALOG))
    eight = _json(generate_fat_tree(FatTreeOptions(gpus=16384, server="DGX-H100",
                                                   switch="QM9700", planes=8), CATALOG))
    assert one["counts"]["switches_by_tier"] == {"leaf": 512, "spine": 512, "core": 256}
    assert eight["counts"]["switches_by_tier"] == {"leaf": 512, "spine": 256}
    assert (one["latency"]["max_switch_hops"], eight["latency"]["max_switch_hops"]) == (5, 3)
    assert eight["bandwidth"]["bisection_tbit_s"] == one["bandwidth"]["bisection_tbit_s"] == 3276.8
    assert eight["latency"]["gpu_to_gpu_max_us"] < one["latency"]["gpu_to_gpu_max_us"]


def test_deepseek_mpft_switch_counts():
    """DeepSeek's multi-plane fat-tree table (docs/reference/planes.md §1): 8 planes of 64-port
    400G switches, 16,384 endpoints on 768 switches; a three-layer fat-tree of the same
    switches, 65,536 endpoints on 5,120."""
    mpft = _json(generate_fat_tree(FatTreeOptions(gpus=16384, server="DGX-H100", switch="QM9700",
                                                  planes=8), CATALOG))
    ft3 = _json(generate_fat_tree(FatTreeOptions(gpus=65536, server="DGX-H100", switch="QM9700",
                                                 tiers=3), CATALOG))
    assert (mpft["counts"]["nics"], mpft["counts"]["switches"]) == (16384, 768)
    assert (ft3["counts"]["nics"], ft3["counts"]["switches"]) == (65536, 5120)


def test_131072_b300_class_gpus_on_four_200g_planes_in_two_tiers():
    """131,072 GPUs of 8 x 800G servers on a 102.4T switch. One fabric at 800G (128 ports):
    3 tiers, 2,048 leaves + 2,048 spines + 1,024 cores = 5,120 switches, 5 hops. Four planes,
    each NIC as 4 x 200G (512 ports): a plane has 16,384 x 8 = 131,072 endpoints = 512 x 256,
    the most 2 tiers reach: 512 leaves + 256 spines per plane, 3,072 switches, 3 hops."""
    catalog = plane_catalog()
    one = _json(generate_fat_tree(FatTreeOptions(gpus=131072, server=SERVER, switch=SWITCH), catalog),
                catalog)
    four = _json(generate_fat_tree(FatTreeOptions(gpus=131072, server=SERVER, switch=SWITCH,
                                                  planes=4), catalog), catalog)
    assert one["counts"]["switches_by_tier"] == {"leaf": 2048, "spine": 2048, "core": 1024}
    assert four["counts"]["switches_by_tier"] == {"leaf": 2048, "spine": 1024}
    assert (one["counts"]["switches"], four["counts"]["switches"]) == (5120, 3072)
    assert (one["latency"]["max_switch_hops"], four["latency"]["max_switch_hops"]) == (5, 3)
    per_plane = four["bandwidth"]["per_plane"]
    assert per_plane["link_gbit_s"] == 200.0 and per_plane["nic_spans_planes"] is True
    assert per_plane["switches_per_plane_by_tier"] == {"leaf": 512, "spine": 256}
    assert four["bandwidth"]["per_gpu_scale_out_gbit_s"] == 800.0  # 4 planes x 200G
    # the same servers, one more plane: 131,072 endpoints is the 2-tier limit
    with pytest.raises(GeneratorError, match="3 tiers"):
        generate_fat_tree(FatTreeOptions(gpus=131072 + 8, server=SERVER, switch=SWITCH, planes=4,
                                         tiers=2), catalog)


@settings(max_examples=12, deadline=None)
@given(planes=st.sampled_from([1, 2, 4, 8]), servers=st.integers(1, 300))
def test_bisection_of_n_planes_is_n_times_one_plane(planes, servers):
    """Full-bisection planes: every plane carries servers x 8 / N ports of 400G, so its
    bisection is that / 2 and the design's is N times it."""
    design = generate_fat_tree(FatTreeOptions(gpus=8 * servers, server="DGX-H100",
                                              switch="QM9700", planes=planes), CATALOG)
    out = _json(design)
    one_plane_tbit_s = servers * 8 // planes * 400 / 2 / 1000
    if servers * 8 // planes > 1:  # a single endpoint per plane has no bisection
        assert out["bandwidth"]["bisection_tbit_s"] == pytest.approx(planes * one_plane_tbit_s)
    if planes > 1:
        per_plane = out["bandwidth"]["per_plane"]
        assert per_plane["per_plane_bisection_tbit_s"] * planes == pytest.approx(
            out["bandwidth"]["bisection_tbit_s"])


def test_partial_scalable_unit_gets_its_own_groups():
    """1,000 GPUs = 125 servers: 3 full 32-server SUs and one of 29, per plane."""
    design = generate_fat_tree(FatTreeOptions(gpus=1000, server="DGX-H100", switch="QM9700",
                                              planes=8), CATALOG)
    assert design.root.children["nodes"].count == 96
    assert design.root.children["partial-nodes"].count == 29
    out = _json(design)
    assert out["counts"]["servers"] == 125 and out["counts"]["gpus"] == 1000
    assert out["counts"]["links"] == 1000 + 8 * 4 * 32


def test_three_tier_planes_keep_pods_as_domains():
    """65,536 DGX H100 GPUs on 8 planes of QM9700: 8,192 servers, one port per plane, pods of
    32 SUs x 32 servers = 1,024 servers (8,192 GPUs); 8 pods, cores per plane = 8 x 1,024 / 64."""
    design = generate_fat_tree(FatTreeOptions(gpus=65536, server="DGX-H100", switch="QM9700",
                                              planes=8), CATALOG)
    blocks = _blocks(design)
    assert blocks["pod"].count == 8 and blocks["pod/plane"].count == 8
    assert blocks["core-plane"].count == 8 and blocks["core-plane"].children["core"].count == 128
    ev = evaluate(design, CATALOG)
    domains = {lv.name: lv.domain_gpus for lv in ev.topology.fabric.levels}
    assert domains == {"scale-up": 8, "leaf": 256, "spine": 8192, "core": 65536}
    assert evaluation_to_json(ev)["bandwidth"]["per_plane"]["switches_per_plane_by_tier"] == {
        "leaf": 256, "spine": 256, "core": 128}


def test_large_multi_plane_design_stays_small():
    """1,000,000 GPUs on 4 planes: a few dozen drawn items, whatever the GPU count."""
    design = generate_fat_tree(FatTreeOptions(gpus=1_000_000, server=SERVER, switch=SWITCH,
                                              planes=4), plane_catalog())
    items = sum(1 for _ in design.root.iter_nodes()) + sum(1 for _ in design.root.iter_blocks())
    assert items < 20
    assert len(json.dumps(design.metadata)) < 2000


# --------------------------------------------------------------------------- NIC modes


@pytest.mark.parametrize("planes, speed, ports, spans", [
    (1, 800.0, 1, True),
    (2, 400.0, 2, True),    # each NIC as 2 x 400G, one port per plane
    (4, 200.0, 4, True),    # 4 x 200G
    (8, 800.0, 1, False),   # 8 NICs on 8 planes: each GPU-NIC pair on its own plane
    (16, 400.0, 2, False),  # 2 x 400G: 16 ports, one per plane (the fastest that divides)
])
def test_nic_mode_follows_the_planes(planes, speed, ports, spans):
    catalog = plane_catalog()
    choice = choose_plane_mode(catalog.get(SERVER), catalog, catalog.get(SWITCH), planes)
    assert (choice.gbit_s, choice.ports_per_nic, choice.nic_spans_planes) == (speed, ports, spans)


def test_planes_that_do_not_divide_the_endpoints_are_refused_plainly():
    with pytest.raises(GeneratorError, match=r"--planes 3 does not divide DGX-H100's scale-out "
                                             r"endpoints: 8 x ConnectX-7 give 8 ports"):
        generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700", planes=3),
                          CATALOG)


def test_no_shared_speed_is_refused_plainly():
    with pytest.raises(GeneratorError, match="Q3400 .* offers none of ConnectX-7's port speeds"):
        generate_supernode(SupernodeOptions("GB200-NVL72", 8, "Q3400", planes=2), CATALOG)


# --------------------------------------------------------------------------- reliability


def test_plane_failure_costs_bandwidth_not_the_job():
    """128 servers with 8 x (4 x 200G) on 4 planes of 512-port switches. A plane: 1,024
    endpoints on 4 leaves (2 rails each of the one 128-server SU) and 2 spines: 24 switches.
    8,192 cables (4,096 server-leaf, 4 x 4 x 256 leaf-spine). The job (all 1,024 GPUs) stays
    under one SU's leaves, so its spines do not count (failure_rates.py): 16 leaves. Every NIC
    has a port on every plane, so these fail over: 16 x 0.02 + 8,192 x 0.02 per 1000 days
    degrade, none interrupt; a lost plane leaves 3/4 of the bandwidth."""
    catalog = plane_catalog()
    out = _json(generate_fat_tree(FatTreeOptions(gpus=1024, server=SERVER, switch=SWITCH,
                                                 planes=4), catalog), catalog)
    assert out["counts"]["switches"] == 24 and out["counts"]["links"] == 8192
    rel = out["reliability"]
    assert rel["rate_by_kind_per_day"]["switch"] == 0.0
    assert rel["rate_by_kind_per_day"]["link"] == 0.0
    planes = rel["planes"]
    assert planes["failover"] is True
    assert planes["degraded_by_kind_per_day"]["switch"] == pytest.approx(16 * 0.02 / 1000)
    assert planes["degraded_by_kind_per_day"]["link"] == pytest.approx(8192 * 0.02 / 1000)
    assert planes["bandwidth_left_after_plane_failure"] == 0.75
    # The same fabric as one plane at 800G interrupts the job on every switch failure.
    one = _json(generate_fat_tree(FatTreeOptions(gpus=1024, server=SERVER, switch=SWITCH),
                                  catalog), catalog)
    assert one["reliability"]["rate_by_kind_per_day"]["switch"] > 0
    assert rel["interruptions_per_day"] < one["reliability"]["interruptions_per_day"]
    assert rel["ettr"] >= one["reliability"]["ettr"]


def test_one_nic_per_plane_still_interrupts_on_a_leaf_failure():
    """8 single-port NICs on 8 planes: a leaf failure cuts a NIC off, as in one fabric, so the
    interruptions equal those of the same servers on one plane (same switches and cables)."""
    one = _json(generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700"),
                                  CATALOG))
    eight = _json(generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700",
                                                   planes=8), CATALOG))
    assert eight["reliability"]["planes"]["failover"] is False
    assert eight["reliability"]["interruptions_per_day"] == pytest.approx(
        one["reliability"]["interruptions_per_day"])


@pytest.mark.parametrize("policy, servers, failover", [
    ("any-multi-plane", "DGX-H100", True),   # 8 single-port NICs on 8 planes fail over too
    ("never", SERVER, False),                # the 4 x 200G NICs no longer do
])
def test_plane_failover_assumption(policy, servers, failover):
    catalog = plane_catalog()
    design = generate_fat_tree(FatTreeOptions(gpus=1024, server=servers,
                                              switch="QM9700" if servers == "DGX-H100" else SWITCH,
                                              planes=8 if servers == "DGX-H100" else 4), catalog)
    before = _json(design, catalog)["reliability"]
    design.assumptions = Assumptions(reliability=ReliabilityAssumptions(plane_failover=policy))
    after = _json(design, catalog)["reliability"]
    assert after["planes"]["failover"] is failover
    moved = after["planes"]["degraded_events_per_day"] or before["planes"]["degraded_events_per_day"]
    change = before["interruptions_per_day"] - after["interruptions_per_day"]
    assert change == pytest.approx(moved if failover else -moved)


def test_designs_without_planes_report_one_plane():
    out = _json(generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700"),
                                  CATALOG))
    assert out["bandwidth"]["planes"] == 1 and out["bandwidth"]["per_plane"] is None
    assert out["reliability"]["planes"] is None


# --------------------------------------------------------------------------- super-nodes


@pytest.mark.parametrize("system", [spec.id for spec in CATALOG
                                    if spec.kind == "supernode" and spec.nics])
def test_supernode_accepts_every_scale_up_system_in_the_catalog(system):
    spec = CATALOG.get(system)
    nic = CATALOG.get(spec.nic)
    speed = float(nic.port_gbit_s)
    # the widest switch at the NIC's speed: an 8,192-NPU super-node has 4,096 ports per plane
    switch = max((s for s in CATALOG if s.kind == "switch" and s.role == "scale-out"),
                 key=lambda s: s.port_count_at(speed))
    out = _json(generate_supernode(SupernodeOptions(system, 4, switch.id, planes=2), CATALOG))
    assert out["counts"]["gpus"] == 4 * int(spec.accelerators)
    assert out["bandwidth"]["planes"] == 2
    assert out["bandwidth"]["scale_up_domain_gpus"] == int(spec.scale_up_domain)


def test_supernode_planes_split_the_racks_nics():
    """64 GB200 NVL72 racks (72 x 400G ConnectX-7 each) on 8 planes of QM9700: 9 endpoints
    per rack per plane, 576 per plane; an SU is 32 racks on 9 one-rail leaves, so 2 SUs x 9 =
    18 leaves; their 18 x 32 uplinks need 9 spines by ports, and the fewest that divide each
    leaf's 32 uplinks evenly is 16 (clos.spine_count, NVIDIA's design-for-max)."""
    out = _json(generate_supernode(SupernodeOptions("GB200-NVL72", 64, "QM9700", planes=8),
                                   CATALOG))
    assert out["bandwidth"]["per_plane"]["switches_per_plane_by_tier"] == {"leaf": 18, "spine": 16}
    assert out["counts"]["switches_by_tier"] == {"leaf": 144, "spine": 128}
    assert out["latency"]["max_switch_hops"] == 3


# --------------------------------------------------------------------------- rail-only


def test_rail_only_has_no_spine_and_routes_between_rails_over_nvlink():
    """64 DGX H100 on rail switches: 8 rails, one QM9700 each, 64 servers on its 64 ports."""
    design = generate_fat_tree(FatTreeOptions(gpus=512, server="DGX-H100", switch="QM9700",
                                              rail_only=True), CATALOG)
    assert _blocks(design)["rail"].count == 8
    ev = evaluate(design, CATALOG)
    out = evaluation_to_json(ev)
    assert out["counts"]["switches_by_tier"] == {"leaf": 8}
    assert out["latency"]["max_switch_hops"] == 1
    assert out["bandwidth"]["bisection_tbit_s"] == pytest.approx(64 * 8 * 400 / 2 / 1000)
    assert out["bandwidth"]["per_plane"]["rails"] == 8
    # a pair on different rails crosses NVLink first: the rail level costs the scale-up hop too
    levels = {lv.name: lv for lv in ev.topology.fabric.levels}
    railed = _json(generate_fat_tree(FatTreeOptions(gpus=512, server="DGX-H100", switch="QM9700",
                                                    tiers=2), CATALOG))
    assert levels["leaf"].latency_us == pytest.approx(
        railed["latency"]["by_level_us"]["leaf"] + ev.assumptions.network.scale_up_latency_us)


def test_rail_only_beyond_one_switch_per_rail_is_refused_plainly():
    with pytest.raises(GeneratorError, match="reaches at most 64 servers; 128 DGX-H100 need a spine"):
        generate_fat_tree(FatTreeOptions(gpus=1024, server="DGX-H100", switch="QM9700",
                                         rail_only=True), CATALOG)


def test_rail_only_super_nodes_save_most_switches_at_little_cost():
    """Rail-only's own setting: 128 GB200 NVL72 racks (72-GPU NVLink domains) on 72 rail
    switches of 128 x 400G, against a 3-tier Clos of the same switches (400G down on a
    breakout, 800G between switches: 147 leaves, 196 spines, 74 cores = 417, so more than
    5 x 72). Mixtral 8x22B (EP 8 inside a rack) trains within 1% of the MFU."""
    from core.workload import load_preset
    workload = load_preset("mixtral-8x22b")
    rails = _json(generate_supernode(SupernodeOptions("GB200-NVL72", 128, "TH5", rail_only=True),
                                     CATALOG), CATALOG, workload)
    clos = _json(generate_supernode(SupernodeOptions("GB200-NVL72", 128, "TH5"), CATALOG),
                 CATALOG, workload)
    assert rails["counts"]["switches_by_tier"] == {"leaf": 72}
    assert clos["counts"]["switches_by_tier"] == {"leaf": 147, "spine": 196, "core": 74}
    assert clos["counts"]["switches"] > 5 * rails["counts"]["switches"]
    assert rails["bandwidth"]["per_plane"]["rails"] == 72
    assert rails["performance"]["mfu"] == pytest.approx(clos["performance"]["mfu"], rel=0.01)


def test_multi_plane_project_round_trips(tmp_path):
    from core.project import load_project, save_project
    design = generate_fat_tree(FatTreeOptions(gpus=65536, server="DGX-H100", switch="QM9700",
                                              planes=8), CATALOG)
    path = tmp_path / "planes.json"
    save_project(design, path)
    assert _json(load_project(path, CATALOG))["bandwidth"]["per_plane"] == \
        _json(design)["bandwidth"]["per_plane"]


@settings(max_examples=25, deadline=None)
@given(servers=st.integers(1, 6000), planes=st.sampled_from([2, 4, 8]),
       oversubscription=st.sampled_from([1.0, 2.0]))
def test_plane_counts_add_up(servers, planes, oversubscription):
    """Whatever the size: N identical planes, every GPU's scale-out bandwidth summed over them,
    switches and cables N x one plane's, hops those of one plane's tiers."""
    try:
        design = generate_fat_tree(FatTreeOptions(gpus=8 * servers, server="DGX-H100",
                                                  switch="QM9700", planes=planes,
                                                  oversubscription=oversubscription), CATALOG)
    except GeneratorError as problem:
        assert "exceed" in str(problem)
        return
    out = _json(design)
    per_plane = out["bandwidth"]["per_plane"]
    assert out["counts"]["gpus"] == 8 * servers
    assert out["counts"]["switches"] == planes * sum(per_plane["switches_per_plane_by_tier"].values())
    assert out["counts"]["links"] == planes * per_plane["cables_per_plane"]
    assert out["bandwidth"]["per_gpu_scale_out_gbit_s"] == pytest.approx(400.0)
    assert out["latency"]["max_switch_hops"] == 2 * len(per_plane["switches_per_plane_by_tier"]) - 1


def test_rail_only_all_to_all_forwards_over_the_scale_up_links():
    """On 64 DGX H100 with 8 rails, 7/8 of an all-to-all's network bytes are bound for another
    rail and cross the scale-up links first: with a slow scale-up level that sets the pace."""
    from dataclasses import replace

    from core.analysis.collectives import alltoall_time_s
    design = generate_fat_tree(FatTreeOptions(gpus=512, server="DGX-H100", switch="QM9700",
                                              rail_only=True), CATALOG)
    fabric = evaluate(design, CATALOG).topology.fabric
    assert fabric.rails_via_scale_up == 8
    slow = replace(fabric.levels[0], per_gpu_gbyte_s=1.0, effective_gbyte_s=1.0)
    fabric = replace(fabric, levels=(slow, *fabric.levels[1:]))
    nbytes, n = 1e9, 512
    inside, network = nbytes * 7 / n, nbytes * (n - 8) / n
    latency_s = sum(lv.latency_us + 1.0 for lv in fabric.levels) * 1e-6
    assert alltoall_time_s(fabric, nbytes, n) == pytest.approx(
        (inside + network * 7 / 8) / 1e9 + latency_s, rel=1e-6)
    assert alltoall_time_s(replace(fabric, rails_via_scale_up=0), nbytes, n) == pytest.approx(
        max(inside / 1e9, network / (fabric.levels[1].effective_gbyte_s * 1e9)) + latency_s,
        rel=1e-6)


def test_a_hand_drawn_leaf_only_fabric_is_rail_only_too():
    """32 DGX H100 drawn on 8 leaves (one per rail) and no spine: GPUs on different rails can
    only meet through NVLink, whoever drew it."""
    from core.model import Design, Link, Node
    root = Block("root", "one SU, no spine", children={
        "nodes": Node("nodes", "DGX-H100", 32), "leaf": Node("leaf", "QM9700", 8)},
        links=[Link("l1", "leaf", "nodes", "scale-out", 400.0, 256)])
    fabric = evaluate(Design("su", root), CATALOG).topology.fabric
    assert fabric.rails_via_scale_up == 8
    levels = {lv.name: lv for lv in fabric.levels}
    # two NIC sides (0.5 µs each), the leaf and its two 10 m cables (0.23 µs), the NVLink hop
    assert levels["leaf"].latency_us == pytest.approx(2 * 0.5 + 0.23 + 1.0)
