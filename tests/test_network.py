"""Topology derivation, bandwidth and latency against topologies.md formulas."""

import pytest

from core.analysis.network import analyze_bandwidth, analyze_latency
from core.evaluate import evaluate
from core.flatten import flatten, unit_graph
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.model import Block, Design, Link, Node
from core.workload import load_preset, with_parallelism
from core.topology import analyze_topology, single_points_of_failure


def topo(design, catalog):
    return analyze_topology(flatten(design, catalog))


def test_non_blocking_fat_tree_bisection_is_half_of_n_b(catalog):
    # topologies.md §1.1: bisection = (N/2) * b. 16,384 GPUs x 400 Gb/s / 2 = 3,276.8 Tb/s.
    t = topo(generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog), catalog)
    bw = analyze_bandwidth(t)
    assert bw.bisection_tbit_s == pytest.approx(3276.8)
    assert bw.per_gpu_scale_out_gbit_s == pytest.approx(400)
    assert bw.oversubscription_by_tier == {"leaf": 1.0, "spine": 1.0}
    assert bw.scale_up_domain_gpus == 8
    assert bw.per_gpu_scale_up_gbyte_s == 450  # NVLink4 per direction (hardware.md §1)


def test_islands_example_from_reference(catalog):
    # topologies.md §5 example: 4 islands x 2,048 GPUs at 400G joined 4:1 -> 100 Gb/s per GPU
    # across islands and a bisection of 409.6 Tb/s (vs 1,638.4 non-blocking).
    design = generate_fat_tree(
        FatTreeOptions(8192, "DGX-H100", "SN5600", island_gpus=2048, island_oversubscription=4), catalog)
    t = topo(design, catalog)
    bw = analyze_bandwidth(t)
    assert bw.bisection_tbit_s == pytest.approx(409.6)
    assert bw.per_gpu_by_level_gbit_s["core"] == pytest.approx(100)
    assert t.fabric.levels[2].domain_gpus == 2048  # an island is the spine domain


def test_leaf_oversubscription_divides_cross_leaf_bandwidth(catalog):
    # topologies.md §1.2: cross-leaf bandwidth per endpoint = b / r.
    design = generate_fat_tree(FatTreeOptions(1536, "DGX-H100", "QM9700", oversubscription=3), catalog)
    t = topo(design, catalog)
    assert t.oversubscription["leaf"] == pytest.approx(3.0)
    assert analyze_bandwidth(t).per_gpu_by_level_gbit_s["spine"] == pytest.approx(400 / 3, rel=0.01)


def test_rail_optimised_domains(catalog):
    # An SU of 32 DGX H100 (256 GPUs) shares its 8 rail leaves; a 2-tier pod is 1,024 GPUs.
    t = topo(generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog), catalog)
    assert [lv.domain_gpus for lv in t.fabric.levels] == [8, 256, 1024, 16384]


def test_multi_node_allreduce_busbw_matches_nccl_rule(catalog):
    # topologies.md §7: multi-node DGX H100 ring all-reduce busbw ~ min(NVLink ~370,
    # 8 x 46-48 GB/s) -> expect ~350-380 GB/s (nccl-tests #309: 365.8 at 4 nodes; #283: ~350).
    t = topo(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog), catalog)
    assert 350 <= analyze_bandwidth(t).allreduce_busbw_gbyte_s <= 385


def test_a100_hdr_busbw(catalog):
    # topologies.md §7: A100 with 4 x HDR per node, ~94 GB/s vs 85-96 measured; a DGX A100 has
    # 8 x HDR (200G), so twice that: the NIC side gives 8 x 23.5 = 188 GB/s per node.
    t = topo(generate_fat_tree(FatTreeOptions(256, "DGX-A100", "QM8700"), catalog), catalog)
    assert 170 <= analyze_bandwidth(t).allreduce_busbw_gbyte_s <= 200


def test_latency_hops_and_range(catalog):
    # topologies.md §6: h = 1 within a leaf, 3 via a spine, 5 via a core; IB switching alone
    # ~0.4 us at h = 3 and ~0.65 us at h = 5, plus 2 x NIC and cable propagation.
    t = topo(generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog), catalog)
    lat = analyze_latency(t)
    assert lat.max_switch_hops == 5
    assert [lv.switch_hops for lv in t.fabric.levels] == [0, 1, 3, 5]
    switching_us = 5 * 0.130
    cables_us = 2 * (10 + 30 + 100) * 5.0 / 1000
    assert lat.gpu_to_gpu_max_us == pytest.approx(2 * 0.5 + switching_us + cables_us)
    assert lat.by_level_us["scale-up"] < lat.gpu_to_gpu_mean_us < lat.gpu_to_gpu_max_us
    # Small all-reduce over 16k GPUs: tree latency, tens to ~150 us.
    assert 20 < lat.allreduce_small_us < 150


def test_eight_gpu_small_allreduce_latency(catalog):
    # topologies.md §7: 8 Hopper GPUs, 4-8 B all-reduce ~12.5 us (nccl-tests in DeepEP #303).
    root = Block("root")
    root.children["n"] = Node("n", "DGX-H100")
    lat = analyze_latency(topo(Design("one", root), catalog))
    assert 6 <= lat.allreduce_small_us <= 16


def hand_drawn(leaves: int, servers: int, catalog, uplinks_per_leaf: int, spines: int) -> Design:
    """Servers with 8 NICs striped over leaves, leaves to spines, all at the root."""
    root = Block("root")
    root.children["servers"] = Node("servers", "DGX-H100", servers)
    root.children["leaf"] = Node("leaf", "QM9700", leaves)
    root.children["spine"] = Node("spine", "QM9700", spines)
    root.links.append(Link("a", "servers", "leaf", count=servers * 8))
    root.links.append(Link("b", "leaf", "spine", count=leaves * uplinks_per_leaf))
    return Design("hand", root)


def test_hand_drawn_flat_design_matches_generated(catalog):
    flat_drawn = topo(hand_drawn(32, 128, catalog, 32, 16), catalog)
    generated = topo(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog), catalog)
    assert [lv.domain_gpus for lv in flat_drawn.fabric.levels] == [lv.domain_gpus for lv in generated.fabric.levels]
    assert analyze_bandwidth(flat_drawn).bisection_tbit_s == pytest.approx(204.8)


def test_spectral_bisection_on_non_layered_graph(catalog):
    # Two 2-tier halves joined by one leaf-to-leaf bundle of 16 x 400G: the min bisection is that
    # bundle, 6.4 Tb/s, which the spectral cut finds.
    root = Block("root")
    for side in ("a", "b"):
        root.children[f"servers-{side}"] = Node(f"servers-{side}", "DGX-H100", 16)
        root.children[f"leaf-{side}"] = Node(f"leaf-{side}", "QM9700", 4)
        root.links.append(Link(f"s{side}", f"servers-{side}", f"leaf-{side}", count=128))
    root.links.append(Link("x", "leaf-a", "leaf-b", count=16))
    t = topo(Design("two halves", root), catalog)
    assert not t.layered
    bw = analyze_bandwidth(t)
    assert bw.bisection_method == "spectral"
    assert bw.bisection_tbit_s == pytest.approx(6.4)


def test_wiring_rule_gives_each_server_one_cable_per_rail_leaf(catalog):
    flat = flatten(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog), catalog)
    graph = unit_graph(flat)
    leaf = flat.index["su/leaf"]
    server = flat.index["su/nodes"]
    first = graph.offsets[server]
    mask = graph.src == first
    targets = graph.dst[mask]
    assert len(targets) == 8 and len(set(targets.tolist())) == 8
    assert set(targets.tolist()) <= set(range(graph.offsets[leaf], graph.offsets[leaf] + 8))


def test_single_leaf_is_a_single_point_of_failure(catalog):
    root = Block("root")
    root.children["servers"] = Node("servers", "DGX-H100", 4)
    root.children["leaf"] = Node("leaf", "QM9700", 1)
    root.links.append(Link("a", "servers", "leaf", count=32))
    flat = flatten(Design("tiny", root), catalog)
    count, paths = single_points_of_failure(flat, analyze_topology(flat).tiers)
    assert (count, paths) == (1, ("leaf",))
    big = flatten(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog), catalog)
    assert single_points_of_failure(big, analyze_topology(big).tiers) == (0, ())


def test_warnings_name_the_components(catalog):
    root = Block("root")
    root.children["servers"] = Node("servers", "DGX-H100", 16)
    root.children["leaf"] = Node("leaf", "QM9700", 1)
    root.children["lonely"] = Node("lonely", "DGX-H100", 1)
    root.links.append(Link("a", "servers", "leaf", count=128))
    codes = {w.code: w for w in evaluate(Design("bad", root), catalog).warnings}
    assert "SWITCH_PORTS_EXCEEDED" in codes and codes["SWITCH_PORTS_EXCEEDED"].components == ("leaf",)
    assert "GPU_WITHOUT_SCALE_OUT" in codes and "lonely" in codes["GPU_WITHOUT_SCALE_OUT"].components


def test_nvl72_scale_up_domain_and_counts(catalog):
    # hardware.md §3: 72 GPUs in one NVLink5 domain at 900 GB/s per direction; 18 switch chips.
    ev = evaluate(generate_supernode(SupernodeOptions("GB200-NVL72", 8), catalog), catalog)
    assert ev.bandwidth.scale_up_domain_gpus == 72
    assert ev.bandwidth.per_gpu_scale_up_gbyte_s == 900
    assert ev.counts.scale_up_switches == 8 * 18


def test_cloudmatrix384_counts(catalog):
    # topologies.md §2 test vectors: L1 = 48 x 7 = 336; L2 = 7 x 16 = 112; 384 NPUs in one domain.
    ev = evaluate(generate_supernode(SupernodeOptions("CloudMatrix384", 1), catalog), catalog)
    assert ev.counts.gpus == 384
    assert ev.bandwidth.scale_up_domain_gpus == 384
    assert ev.counts.scale_up_switches == 336 + 112


def test_bare_accelerators_are_explained(catalog):
    root = Block("root")
    root.children["gpus"] = Node("gpus", "H100-SXM5-80GB", 8)
    warnings = {w.code: w for w in evaluate(Design("bare", root), catalog).warnings}
    assert warnings["ACCELERATOR_OUTSIDE_SERVER"].components == ("gpus",)


def _drawn_nvl72(links_per_chip: int = 4) -> Design:
    """An NVL72 drawn by hand: 18 compute trays cabled to 18 NVLink5 switch chips, one link per
    GPU to each chip when ``links_per_chip`` is 4 (hardware.md §3: 18 links per GPU)."""
    root = Block("root", children={
        "trays": Node("trays", "GB200-Compute-Tray", 18),
        "nvlink": Node("nvlink", "NVLink5-Switch-Chip", 18)})
    root.links.append(Link("nvl", "trays", "nvlink", "scale-up", 400, 18 * 18 * links_per_chip,
                           1.0, "copper"))
    return Design("drawn NVL72", root)


def test_drawn_nvl72_evaluates_like_the_catalog_rack(catalog):
    drawn = evaluate(_drawn_nvl72(), catalog)
    rack = evaluate(generate_supernode(SupernodeOptions("GB200-NVL72", 1), catalog), catalog)
    assert drawn.bandwidth.scale_up_domain_gpus == rack.bandwidth.scale_up_domain_gpus == 72
    assert drawn.bandwidth.per_gpu_scale_up_gbyte_s == 900
    assert drawn.bandwidth.allreduce_busbw_gbyte_s == pytest.approx(
        rack.bandwidth.allreduce_busbw_gbyte_s, rel=1e-3)
    assert drawn.bandwidth.bisection_tbit_s == pytest.approx(rack.bandwidth.bisection_tbit_s)
    # 18 trays at 6.4 kW + 18 chips at 270 W against the rack's nominal 120 kW (hardware.md §3)
    assert drawn.power.it_kw == pytest.approx(rack.power.it_kw, rel=0.01)
    codes = {w.code for w in drawn.warnings}
    assert not codes & {"NO_SCALE_OUT", "SWITCH_PORTS_EXCEEDED", "NODE_PORTS_EXCEEDED",
                        "NO_SCALE_UP_PORTS"}


def test_drawn_scale_up_runs_a_workload_like_the_catalog_rack(catalog):
    workload = with_parallelism(load_preset("llama3-70b"), tp=8, pp=1, dp=9, cp=1, virtual_stages=1,
                                global_batch=144)
    drawn_design, rack_design = _drawn_nvl72(), generate_supernode(
        SupernodeOptions("GB200-NVL72", 1), catalog)
    drawn_design.workload = rack_design.workload = workload
    drawn, rack = evaluate(drawn_design, catalog), evaluate(rack_design, catalog)
    assert drawn.performance.step_time_s == pytest.approx(rack.performance.step_time_s, rel=0.01)


def test_under_cabled_scale_up_is_slower(catalog):
    # Half the NVLink cables: 9 links per GPU -> 450 GB/s per direction and half the busbw.
    full = evaluate(_drawn_nvl72(4), catalog).bandwidth
    half = evaluate(_drawn_nvl72(2), catalog).bandwidth
    assert half.per_gpu_scale_up_gbyte_s == 450
    assert half.allreduce_busbw_gbyte_s == pytest.approx(full.allreduce_busbw_gbyte_s / 2, rel=0.01)


def test_servers_joined_by_drawn_scale_up_switches_extend_the_domain(catalog):
    # Two DGX H100 joined through NVSwitch chips: a 16-GPU domain on top of each 8-GPU one,
    # at the cabled rate; the DGX H100 lists no external NVLink ports, which is said.
    root = Block("root", children={
        "dgx": Node("dgx", "DGX-H100", 2),
        "nvs": Node("nvs", "NVSwitch-Gen3", 4)})
    root.links.append(Link("nvl", "dgx", "nvs", "scale-up", 200, 2 * 4 * 32, 2.0, "copper"))
    t = topo(Design("2 x DGX", root), catalog)
    assert [lv.domain_gpus for lv in t.fabric.levels] == [8, 16]
    assert t.fabric.scale_up_domain_gpus == 16
    assert t.fabric.levels[1].per_gpu_gbyte_s == pytest.approx(4 * 32 * 200 / 8 / 8)
    codes = {d.code for d in t.diagnostics}
    assert "NO_SCALE_UP_PORTS" in codes and "NO_SCALE_OUT" not in codes


def _two_tier_nvlink(l1_l2_cables_per_rack: int) -> Design:
    """Two racks of 2 GB200 trays on 2 NVLink5 chips each (36 links per tray and chip pair
    half-populated), the racks' chips joined by 2 upper-tier chips: an NVL576-style second
    NVLink tier in miniature."""
    rack = Block("rack", count=2, children={
        "trays": Node("trays", "GB200-Compute-Tray", 2),
        "l1": Node("l1", "NVLink5-Switch-Chip", 2)},
        links=[Link("up", "trays", "l1", "scale-up", 400, 2 * 36, 1.0, "copper")])
    root = Block("root", children={"rack": rack, "l2": Node("l2", "NVLink5-Switch-Chip", 2)})
    root.links.append(Link("spine", "rack/l1", "l2", "scale-up", 400, 2 * l1_l2_cables_per_rack,
                           3.0, "copper"))
    return Design("2-tier NVLink", root)


def test_drawn_second_scale_up_tier_joins_racks_at_its_tapered_rate(catalog):
    full = topo(_two_tier_nvlink(72), catalog).fabric
    # tier 1: one rack (8 GPUs) at 36 x 400G per tray of 4 GPUs = 450 GB/s; tier 2: both racks
    assert [(lv.domain_gpus, lv.per_gpu_gbyte_s) for lv in full.levels] == [(8, 450), (16, 450)]
    assert full.scale_up_domain_gpus == 16 and full.levels[1].latency_us > full.levels[0].latency_us
    tapered = topo(_two_tier_nvlink(36), catalog).fabric  # half the uplinks: 2:1 above the racks
    assert [(lv.domain_gpus, lv.per_gpu_gbyte_s) for lv in tapered.levels] == [(8, 450), (16, 225)]


def test_node_to_node_scale_up_links_form_a_domain(catalog):
    # Two trays cabled directly (no switch): each cable is a link at both ends.
    root = Block("root", children={"trays": Node("trays", "GB200-Compute-Tray", 2)})
    root.links.append(Link("direct", "trays", "trays", "scale-up", 400, 36, 1.0, "copper"))
    fabric = topo(Design("direct", root), catalog).fabric
    assert [(lv.domain_gpus, lv.per_gpu_gbyte_s) for lv in fabric.levels] == [(8, 450)]


def test_drawn_nvlink_switches_sit_in_the_compute_rack(catalog):
    # A drawn NVL72's switch chips count towards its rack's power (as in the catalog rack's
    # 120 kW, hardware.md §3), not as a rack of network switches.
    drawn = evaluate(_drawn_nvl72(), catalog).power
    rack = evaluate(generate_supernode(SupernodeOptions("GB200-NVL72", 1), catalog), catalog).power
    assert drawn.max_rack_kw == pytest.approx(rack.max_rack_kw, rel=0.01)
