"""Generator counts against the NVIDIA DGX SuperPOD tables (../shared/reference/topologies.md §2)."""

import pytest

from core.errors import DesignError, GeneratorError
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.generators.clos import plan_clos
from core.evaluate import evaluate
from core.flatten import flatten


# RA-11333-001 V11 Table 3 (H100 and B200), QM9700 64 x 400G, rail-optimised, 1:1.
SUPERPOD_TABLE_3 = [
    (1024, {"leaf": 32, "spine": 16}),
    (2048, {"leaf": 64, "spine": 32}),
    (4096, {"leaf": 128, "spine": 128, "core": 64}),
    (8192, {"leaf": 256, "spine": 256, "core": 128}),
    (16384, {"leaf": 512, "spine": 512, "core": 256}),
]


@pytest.mark.parametrize("gpus,expected", SUPERPOD_TABLE_3)
def test_superpod_table_3_switch_counts(catalog, gpus, expected):
    design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), catalog)
    assert design.metadata["switches_by_tier"] == expected
    flat = flatten(design, catalog)
    assert flat.gpus == gpus
    # Table 3: cables per tier = GPUs (node-leaf = leaf-spine = spine-core).
    assert sum(b.cables for b in flat.bundles) == gpus * len(expected)


def test_superpod_cables_per_tier(catalog):
    flat = flatten(generate_fat_tree(FatTreeOptions(4096, "DGX-H100", "QM9700"), catalog), catalog)
    per_owner = {}
    for bundle in flat.bundles:
        per_owner[bundle.owner_path] = per_owner.get(bundle.owner_path, 0) + bundle.cables
    # 3N cables in all for a 3-tier fabric (topologies.md §1.1), N per tier.
    assert sum(per_owner.values()) == 3 * 4096


def test_b300_xdr_rows_with_radix_144():
    # B300-XDR RA Table 3 (Q3400, 144 x 800G, 8 x 800G per node): 1 SU -> 8/4, 18 SU -> 144/72.
    assert plan_clos(72, 8, 144).switches_by_tier == {"leaf": 8, "spine": 4}
    assert plan_clos(1296, 8, 144).switches_by_tier == {"leaf": 144, "spine": 72}


def test_rail_optimised_su_has_one_leaf_per_rail(catalog):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)
    su = design.root.children["su"]
    assert su.count == 4 and su.children["nodes"].count == 32 and su.children["leaf"].count == 8
    assert design.metadata["rail_optimized"] is True


def test_oversubscribed_leaf_two_tier(catalog):
    # topologies.md §1.2: d = k r/(1+r); with k = 64 and r = 3, d = 48, u = 16.
    plan = plan_clos(128, 8, 64, oversubscription=3)
    assert (plan.leaf_down, plan.leaf_up) == (48, 16)


def test_breakout_radix_at_200g_doubles_ports(catalog):
    # QM9700 is 64 ports at 400G or 128 at 200G (hardware.md §4): a DGX A100 (8 x HDR 200G)
    # cluster of 2,048 GPUs fits 2 tiers at k = 128 (max 8,192 endpoints).
    design = generate_fat_tree(FatTreeOptions(2048, "DGX-A100", "QM9700"), catalog)
    assert design.metadata["switches_by_tier"] == {"leaf": 32, "spine": 16}


def test_islands_join_pods_at_ratio(catalog):
    design = generate_fat_tree(
        FatTreeOptions(8192, "DGX-H100", "SN5600", island_gpus=2048, island_oversubscription=4), catalog)
    counts = design.metadata["switches_by_tier"]
    assert set(counts) == {"leaf", "spine", "core"}
    assert design.root.children["pod"].count == 4


def test_nvl72_superpod_su(catalog):
    # GB200 SuperPOD SU = 8 NVL72 racks = 576 GPUs, one 400G NIC per GPU (topologies.md §2).
    design = generate_supernode(SupernodeOptions("GB200-NVL72", 8), catalog)
    flat = flatten(design, catalog)
    assert flat.gpus == 576
    # 576 endpoints on 32-port-down leaves: 18 leaves. 9 spines would do by ports, but 32 uplinks
    # per leaf only spread evenly over a divisor of 32: 16 spines (design-for-max rule).
    assert design.metadata["switches_by_tier"] == {"leaf": 18, "spine": 16}


@pytest.mark.parametrize("options,message", [
    (FatTreeOptions(100_000, "DGX-H100", "QM9700"), "exceed what 3 tiers"),
    (FatTreeOptions(0, "DGX-H100", "QM9700"), "must be positive"),
    (FatTreeOptions(-8, "DGX-H100", "QM9700"), "must be positive"),
    (FatTreeOptions(12, "DGX-H100", "QM9700"), "not a multiple"),
    (FatTreeOptions(1024, "NOPE", "QM9700"), "unknown component id 'NOPE'"),
    (FatTreeOptions(1024, "DGX-H100", "H100-SXM5-80GB"), "expected switch"),
    (FatTreeOptions(1024, "DGX-H100", "QM9700", tiers=2, oversubscription=0.5), "at least 1"),
    (FatTreeOptions(16384, "DGX-H100", "QM9700", tiers=2), "use 3 tiers"),
    (FatTreeOptions(1024, "DGX-H100", "Q3400"), "no 400 Gb/s ports"),
    (FatTreeOptions(1024, "DGX-H100", "QM9700", storage_nodes=4), "needs --storage"),
])
def test_impossible_requests_fail_plainly(catalog, options, message):
    with pytest.raises(DesignError, match=message):
        generate_fat_tree(options, catalog)


def test_supernode_count_must_be_positive(catalog):
    with pytest.raises(GeneratorError, match="positive"):
        generate_supernode(SupernodeOptions("GB200-NVL72", 0), catalog)


# RA-11333-001 V11 Table 4 (H100 compute fabric): one DGX slot per SU is given to the 4 UFM
# appliances, so 32n - 1 nodes; compute + UFM cables = GPUs + 4; 3 SU uses 16 spines
# ("design-for-max"), not the 12 that ports alone need.
SUPERPOD_TABLE_4 = [(248, 8, 4, 252, 256), (504, 16, 8, 508, 512), (760, 24, 16, 764, 768),
                    (1016, 32, 16, 1020, 1024)]


@pytest.mark.parametrize("gpus,leaves,spines,compute_ufm_cables,leaf_spine_cables",
                         SUPERPOD_TABLE_4)
def test_superpod_table_4(catalog, gpus, leaves, spines, compute_ufm_cables, leaf_spine_cables):
    design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700", ufm_appliances=4),
                               catalog)
    assert design.metadata["switches_by_tier"] == {"leaf": leaves, "spine": spines}
    flat = flatten(design, catalog)
    kinds = [(flat.groups[b.a].spec.kind, flat.groups[b.b].spec.kind) for b in flat.bundles]
    node_leaf = sum(b.cables for b, k in zip(flat.bundles, kinds) if k.count("switch") == 1)
    leaf_spine = sum(b.cables for b, k in zip(flat.bundles, kinds) if k.count("switch") == 2)
    assert (node_leaf, leaf_spine) == (compute_ufm_cables, leaf_spine_cables)
    ev = evaluate(design, catalog)
    codes = {w.code for w in ev.warnings}
    assert not codes & {"SWITCH_PORTS_EXCEEDED", "MIXED_LINK_SPEEDS", "PORT_SPEED_UNSUPPORTED"}
    assert ev.power.by_kind_kw["appliance"] == pytest.approx(4 * 0.75)
    assert ev.bandwidth.per_gpu_scale_out_gbit_s == pytest.approx(400)  # UFM adds no GPU bandwidth
    if gpus == 1016:
        # RA Tables 7-8 (4 SU): 2,040 NDR 400G + 4 NDR 200G cables; OSFP transceivers 1,536
        # switch-side + 508 system-side + 4 for UFM. Optics are counted per device, as the RA
        # does: a leaf's 31 DGX ports fill 16 twin-port cages (32 leaves x 32 + 16 spines x 32).
        # A UFM's 200G link is a 2x breakout of a leaf's 400G port: it takes the free half of
        # that 16th cage through a 1:2 splitter, as in the RA, and one 200G module at the UFM.
        assert ev.counts.links == 2044
        optics = {(item.catalog_id, item.powered): item.count
                  for item in ev.inventory.by_role("transceiver")}
        assert optics == {("OSFP-800G-2xSR4", True): 1536, ("OSFP-800G-2xSR4", False): 508,
                          ("QSFP-200G", True): 4}
        cables = {item.catalog_id: item.count for item in ev.inventory.by_role("cable")}
        assert cables == {"Fiber-MMF": 2040, "Fiber-MMF-Splitter-1x2": 4}


def test_ufm_needs_free_leaf_ports(catalog):
    # Full 32-node SUs leave no leaf port: say so (the RA drops one DGX per SU instead).
    with pytest.raises(GeneratorError, match="no free leaf ports.*31 instead of 32"):
        generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", ufm_appliances=4), catalog)
    with pytest.raises(GeneratorError, match="need 99 free leaf ports.*roomiest has 8"):
        generate_fat_tree(FatTreeOptions(1016, "DGX-H100", "QM9700", ufm_appliances=99), catalog)
    # A partial last SU has room: the appliances land on its leaves.
    design = generate_fat_tree(FatTreeOptions(1000, "DGX-H100", "QM9700", ufm_appliances=4),
                               catalog)
    link = design.root.link("ufm")
    assert link.b.endswith("/leaf") and link.b != "su/leaf" and link.count == 4
    assert "SWITCH_PORTS_EXCEEDED" not in {w.code for w in evaluate(design, catalog).warnings}


def test_b300_design_for_max_spines():
    # B300-XDR RA Table 3: 4 SU -> 18 spines and 8 SU -> 36 (not the 16 / 32 ports alone need).
    assert plan_clos(288, 8, 144).switches_by_tier == {"leaf": 32, "spine": 18}
    assert plan_clos(576, 8, 144).switches_by_tier == {"leaf": 64, "spine": 36}
