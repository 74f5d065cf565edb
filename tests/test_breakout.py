"""Breakout and downshift: endpoints slower than the switch's ports, counted by hand.

A switch port of native speed S carries k links of S/k where the catalog lists that mode
(core/port_modes.py). The shipped Q3400 lists only 144 x 800G; these tests give it the 2x400G
mode ("400": 288) and add a Tomahawk-6-like switch in a test-local catalog, so they hold
whatever the shipped catalog says about those parts.
"""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.catalog import Catalog, ComponentSpec, load_catalog
from core.errors import GeneratorError
from core.evaluate import evaluate
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.generators.clos import plan_clos
from core.port_modes import breakout_words, links_per_port


def _entry(template: ComponentSpec, new_id: str, **fields) -> ComponentSpec:
    return dataclasses.replace(template, id=new_id, origin="test", **fields)


@pytest.fixture(scope="module")
def lab(catalog):
    """The built-in catalog with Q3400 able to split its 800G ports in two, a 102.4T switch
    with 1.6T cages (64 x 1.6T, 128 x 800G, 256 x 400G, 512 x 200G: Tomahawk 6's modes) and a
    single-port 1.6T module for its native links."""
    specs = [spec for spec in catalog if spec.id != "Q3400"]
    q3400 = catalog.get("Q3400")
    specs.append(dataclasses.replace(q3400, ports_by_gbit_s={"800": 144, "400": 288}))
    specs.append(_entry(catalog.get("TH5"), "Lab-102T",
                        ports_by_gbit_s={"1600": 64, "800": 128, "400": 256, "200": 512},
                        ports_per_cage=1))
    specs.append(_entry(catalog.get("OSFP-400G-DR4"), "Lab-OSFP-1.6T-DR8", gbit_s=1600,
                        lanes=1, power_w=25))
    # a single-mode 200G module, so a 200G server can face the lab switch's single-mode ports
    specs.append(_entry(catalog.get("QSFP-200G"), "Lab-QSFP-200G-DR4", fiber="single-mode",
                        reach_m=500))
    return Catalog(specs)


def _bom(ev) -> dict[tuple[str, str], int]:
    """Cables and modules by id, the server-side (unpowered) and switch-side lines summed."""
    out: dict[tuple[str, str], int] = {}
    for item in ev.inventory.by_role("cable", "transceiver"):
        out[item.role, item.catalog_id] = out.get((item.role, item.catalog_id), 0) + item.count
    return out


def test_port_modes_read_the_catalog(catalog, lab):
    assert links_per_port(lab.get("Q3400"), 400) == 2
    assert links_per_port(lab.get("Q3400"), 800) == 1
    assert links_per_port(catalog.get("QM9700"), 200) == 2
    assert links_per_port(catalog.get("SN5600"), 200) == 4
    assert links_per_port(lab.get("Lab-102T"), 200) == 8
    assert links_per_port(catalog.get("QM9700"), 800) == 0  # faster than its ports
    # a NIC without modes offers its one speed
    assert catalog.get("ConnectX-7").port_count_at(400) == 1
    assert catalog.get("ConnectX-7").port_count_at(200) == 0
    assert breakout_words(400, 2, 800) == "400G via 2x breakout of 800G ports"


def test_leaf_sized_in_native_ports_with_breakout_down_links():
    # 144 Q3400 ports: 72 split to 144 x 400G down, 72 x 800G up (full bisection).
    plan = plan_clos(256, 8, 144, down_per_port=2, speed_ratio=2)
    assert (plan.leaf_down, plan.leaf_up, plan.down_per_port) == (144, 72, 2)
    # 3:1 in bandwidth: 36 up (28.8 Tb/s), 216 down links on 108 ports (86.4 Tb/s).
    plan = plan_clos(256, 8, 144, oversubscription=3, down_per_port=2, speed_ratio=2)
    assert (plan.leaf_down, plan.leaf_up) == (216, 36)
    # a downshift (one slower link per port) leaves more ports down for the same bandwidth
    plan = plan_clos(64, 8, 64, down_per_port=1, speed_ratio=2)
    assert (plan.leaf_down, plan.leaf_up) == (42, 21)


def test_256_dgx_h100_on_q3400_with_400g_breakout(lab):
    design = generate_fat_tree(FatTreeOptions(2048, "DGX-H100", "Q3400"), lab)
    # SU = 144 nodes x 8 rails on 8 leaves (144 x 400G down each); 256 nodes = 144 + 112.
    assert design.metadata["switches_by_tier"] == {"leaf": 16, "spine": 8}
    assert design.metadata["link_gbit_s"] == {"endpoint": 400, "switch": 800}
    assert design.metadata["endpoint_links_per_port"] == 2
    ev = evaluate(design, lab)
    # 2,048 node links + 16 leaves x 72 uplinks at 800G (8 spines x 144 ports, all used)
    assert ev.counts.links == 2048 + 1152
    assert ev.counts.cables == 1024 + 1152  # what is bought: a splitter per split port
    from core.evaluate import evaluation_to_json
    assert evaluation_to_json(ev)["counts"]["cables"] == ev.counts.cables
    assert _bom(ev) == {
        # one 1:2 splitter per leaf port: 72 x 8 + 56 x 8 leaves; single-mode end to end, as
        # the switch's DR4 optics are (issue 22: no multimode fibre on DR4 optics)
        ("cable", "Fiber-SMF-Splitter-1x2"): 1024,
        ("cable", "Fiber-SMF"): 1152,
        # leaves: 36 (SU 1) or 28 (SU 2) twin 1.6T modules down (4 x 400G each), 36 up;
        # spines: 144 uplinks / 2 = 72 each
        ("transceiver", "OSFP-1.6T-2xDR4"): 8 * (36 + 36) + 8 * (28 + 36) + 8 * 72,
        # the DGX's own 4 twin-port 800G cages (2 x 400G), single-mode to face DR4
        ("transceiver", "OSFP-800G-2xDR4"): 256 * 4,
    }
    assert ev.bandwidth.per_gpu_scale_out_gbit_s == pytest.approx(400)
    assert ev.bandwidth.oversubscription_by_tier["leaf"] <= 1.0
    codes = {w.code for w in ev.warnings}
    assert not codes & {"SWITCH_PORTS_EXCEEDED", "PORT_SPEED_UNSUPPORTED", "NO_CABLE",
                        "NO_TRANSCEIVER", "NODE_PORTS_EXCEEDED"}


def test_102t_switch_at_400g_splits_each_800g_module_port(lab):
    # 64 ports of 1.6T = 256 x 400G: 32 ports split 4 ways down (128 links), 32 x 1.6T up.
    design = generate_fat_tree(FatTreeOptions(2048, "DGX-H100", "Lab-102T"), lab)
    assert design.metadata["switches_by_tier"] == {"leaf": 16, "spine": 8}
    assert design.metadata["link_gbit_s"] == {"endpoint": 400, "switch": 1600}
    ev = evaluate(design, lab)
    assert _bom(ev) == {
        # a 1.6T cage holds a 2 x 800G module; each 800G port splits 1:2 to 400G
        ("cable", "Fiber-SMF-Splitter-1x2"): 16 * 64,
        ("cable", "Fiber-SMF"): 16 * 32,
        ("transceiver", "OSFP-1.6T-2xDR4"): 16 * 32,          # 128 links / 4 per module
        ("transceiver", "Lab-OSFP-1.6T-DR8"): 16 * 32 + 8 * 64,  # leaf and spine 1.6T ports
        ("transceiver", "OSFP-800G-2xDR4"): 256 * 4,
    }


def test_102t_switch_at_200g_splits_each_800g_module_port_four_ways(lab):
    # DGX A100: 8 x 200G. 64 ports = 512 x 200G: 32 ports split 8 ways (256 links), 32 up.
    design = generate_fat_tree(FatTreeOptions(2048, "DGX-A100", "Lab-102T"), lab)
    assert design.metadata["switches_by_tier"] == {"leaf": 8, "spine": 4}
    assert design.metadata["endpoint_links_per_port"] == 8
    ev = evaluate(design, lab)
    assert _bom(ev) == {
        ("cable", "Fiber-SMF-Splitter-1x4"): 8 * 64,           # 256 links / 4 legs
        ("cable", "Fiber-SMF"): 8 * 32,
        ("transceiver", "OSFP-1.6T-2xDR4"): 8 * 32,            # 256 links / 8 per module
        ("transceiver", "Lab-OSFP-1.6T-DR8"): 8 * 32 + 4 * 64,
        ("transceiver", "Lab-QSFP-200G-DR4"): 256 * 8,
    }


def test_splitters_follow_into_power_and_cost(lab):
    ev = evaluate(generate_fat_tree(FatTreeOptions(2048, "DGX-H100", "Q3400"), lab), lab)
    lines = {item.catalog_id: item for item in ev.inventory.by_role("cable")}
    splitter = lines["Fiber-SMF-Splitter-1x2"]
    assert splitter.links == 2 * splitter.count == 2048
    price = {item.catalog_id: line for item, line in zip(ev.inventory.items, ev.cost.lines)}
    assert price["Fiber-SMF-Splitter-1x2"].extended_price_usd == pytest.approx(
        1024 * float(splitter.spec.price.usd))
    assert ev.cost.hardware_capex_usd == pytest.approx(
        sum(line.extended_price_usd or 0 for line in ev.cost.lines))
    optics_w = sum(item.count * float(item.spec.power_w)
                   for item in ev.inventory.by_role("transceiver") if item.powered)
    assert ev.power.by_kind_kw["transceiver"] == pytest.approx(optics_w / 1000)


def test_native_uplinks_give_way_when_they_would_cost_a_tier(lab):
    # 4,096 DGX H100 need 232 leaves: more than 144 native spine ports reach in 2 tiers, fewer
    # than 288 at 400G; 2 tiers at 400G beat 3 tiers at 800G.
    design = generate_fat_tree(FatTreeOptions(32768, "DGX-H100", "Q3400"), lab)
    assert design.metadata["link_gbit_s"] == {"endpoint": 400, "switch": 400}
    assert set(design.metadata["switches_by_tier"]) == {"leaf", "spine"}
    # asked for 3 tiers, the native uplinks come back
    design = generate_fat_tree(FatTreeOptions(32768, "DGX-H100", "Q3400", tiers=3), lab)
    assert design.metadata["link_gbit_s"] == {"endpoint": 400, "switch": 800}


def test_shipped_q3400_without_a_400g_mode_still_refuses_400g_nics(catalog):
    if catalog.get("Q3400").port_count_at(400):
        pytest.skip("the shipped Q3400 lists a 400G mode")
    with pytest.raises(GeneratorError, match="no 400 Gb/s ports"):
        generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "Q3400"), catalog)


def test_a_million_dgx_h100_on_q3400_in_three_tiers(lab):
    design = generate_fat_tree(FatTreeOptions(1_000_000, "DGX-H100", "Q3400"), lab)
    tiers = design.metadata["switches_by_tier"]
    assert set(tiers) == {"leaf", "spine", "core"}
    flat = flatten(design, lab)
    kinds = [(flat.groups[b.a].spec.kind, flat.groups[b.b].spec.kind) for b in flat.bundles]
    node_links = sum(b.cables for b, k in zip(flat.bundles, kinds) if "switch" not in k[0])
    assert node_links == 1_000_000  # every NIC port has a leaf port
    assert tiers["leaf"] * 144 >= node_links  # 144 x 400G down per leaf
    ev = evaluate(design, lab)
    assert ev.counts.gpus == 1_000_000
    assert ev.counts.switches_by_tier == tiers
    # every node link is a leg of a 1:2 single-mode splitter: the one-piece 50 m cord, or the
    # 500 m breakout over a patch panel where its bundle's longest placed run needs it (an SU of
    # 37 racks can straddle two halls)
    splitters = [i for i in ev.inventory.by_role("cable")
                 if i.catalog_id.startswith("Fiber-SMF-Splitter-1x2")]
    assert sum(i.links for i in splitters) == node_links
    assert sum(i.count for i in splitters) >= node_links // 2
    codes = {w.code for w in ev.warnings}
    assert not codes & {"SWITCH_PORTS_EXCEEDED", "PORT_SPEED_UNSUPPORTED", "NODE_PORTS_EXCEEDED",
                        "NO_CABLE", "NO_TRANSCEIVER"}


def test_bom_lines_say_what_serves_a_breakout(lab):
    from core.report import bom_rows

    ev = evaluate(generate_fat_tree(FatTreeOptions(2048, "DGX-H100", "Q3400"), lab), lab)
    notes = {(row[1], row[5]) for row in bom_rows(ev)}
    assert ("Fiber-SMF-Splitter-1x2", "2-way splitter: 400G via 2x breakout of 800G ports") in notes
    assert ("OSFP-1.6T-2xDR4", "serves 400G via 2x breakout of 800G ports") in notes
    assert ("Fiber-SMF", "") in notes  # the 800G uplinks are straight links


def test_a_link_at_a_speed_the_switch_cannot_run_is_named(catalog):
    from core.model import Block, Design, Link, Node

    root = Block("root", children={"dgx": Node("dgx", "DGX-H100", 4),
                                   "leaf": Node("leaf", "Q3400", 1)})
    root.links.append(Link("up", "dgx", "leaf", "scale-out", 400.0, 32, 10.0, "fiber"))
    warning = next(w for w in evaluate(Design("d", root), catalog).warnings
                   if w.code == "PORT_SPEED_UNSUPPORTED")
    assert warning.severity == "error"
    assert warning.message.startswith("leaf (Q3400) has no 400 Gb/s ports for the link dgx - leaf")
    assert "144 x 800G" in warning.message
    assert set(warning.components) == {"leaf", "dgx"}


@settings(max_examples=60)
@given(nodes=st.integers(1, 5000), endpoints=st.sampled_from([1, 4, 8]),
       ports=st.sampled_from([32, 64, 144]), split=st.sampled_from([1, 2, 4, 8]),
       ratio=st.sampled_from([1.0, 1.5, 2.0, 3.0, 4.0]))
def test_a_breakout_leaf_fits_its_ports_at_the_asked_ratio(nodes, endpoints, ports, split, ratio):
    try:
        plan = plan_clos(nodes, endpoints, ports, oversubscription=ratio, down_per_port=split,
                         speed_ratio=split)
    except GeneratorError:
        return  # more than 3 tiers reach
    down_ports = -(-plan.leaf_down // split)
    assert down_ports + plan.leaf_up <= ports
    # down:up in bandwidth, the uplinks split times faster than the endpoint links
    assert plan.leaf_down <= ratio * plan.leaf_up * split + 1e-9
    assert plan.leaves * plan.leaf_down >= nodes * endpoints  # every endpoint has a leaf port
    if split == 1:  # the classic formula, unchanged
        assert plan == plan_clos(nodes, endpoints, ports, oversubscription=ratio)


def test_copper_breakout_takes_a_splitter_dac_per_switch_port(catalog):
    from core.model import Block, Design, Link, Node

    # 3 DGX A100 (8 x 200G) on one QM9700 over 2 m copper: 24 links on 400G ports split in two
    root = Block("root", children={"dgx": Node("dgx", "DGX-A100", 3),
                                   "leaf": Node("leaf", "QM9700", 1)})
    root.links.append(Link("down", "dgx", "leaf", "scale-out", 200.0, 24, 2.0, "copper"))
    ev = evaluate(Design("d", root), catalog)
    assert _bom(ev) == {("cable", "DAC-Splitter-1x2"): 12}
    assert ev.counts.links == 24


def test_sn5600_400g_is_a_twin_port_half_not_a_splitter(catalog):
    from core.model import Block, Design, Link, Node
    from core.site_spec import SiteSpec

    # SN5600 counts 800G cages: its 400G links go straight into a 2 x 400G module's ports at
    # 10 m (multimode SR4, as the DGX's), and into the single-mode 2 x 400G DR4 module where
    # the 50 m SR4 module cannot reach 100 m (one module per 800G cage, never a 400G one).
    root = Block("root", children={"dgx": Node("dgx", "DGX-H100", 4),
                                   "leaf": Node("leaf", "SN5600", 1),
                                   "spine": Node("spine", "SN5600", 1)})
    root.links += [Link("down", "dgx", "leaf", "scale-out", 400.0, 32, 10.0, "fiber"),
                   Link("up", "leaf", "spine", "scale-out", 400.0, 32, 100.0, "fiber")]
    design = Design("d", root)
    design.site = SiteSpec(cable_lengths="drawn")  # the drawn 10 m and 100 m, not the placed ones
    ev = evaluate(design, catalog)
    assert _bom(ev) == {("cable", "Fiber-MMF"): 32, ("cable", "Fiber-SMF"): 32,
                        ("transceiver", "OSFP-800G-2xSR4"): 16 + 16,  # DGX side + leaf side
                        ("transceiver", "OSFP-800G-2xDR4"): 16 + 16}


def test_a_co_packaged_optics_switch_takes_no_module_at_its_own_ports():
    # 256 DGX B300 (2,048 ConnectX-8 at 800G) on 144 x 800G Quantum-X800: Q3400 takes a 1.6T
    # twin-port module per two switch ports, the photonics Q3450 none (its optics are inside,
    # in its price and power); the servers' own 2,048 single-port 800G DR4 modules (one per
    # ConnectX-8 cage) are the same.
    catalog = load_catalog()
    counts = {}
    for switch in ("Q3400", "Q3450-CPO"):
        design = generate_fat_tree(FatTreeOptions(2048, "DGX-B300", switch), catalog)
        result = evaluate(design)
        modules = {(item.spec.id, item.powered): item.count
                   for item in result.inventory.items if item.role == "transceiver"}
        counts[switch] = (result.counts.switches, result.counts.links, modules)
    (q3400_switches, q3400_links, q3400), (cpo_switches, cpo_links, cpo) = counts.values()
    assert (cpo_switches, cpo_links) == (q3400_switches, q3400_links) == (50, 4352)
    # server side: 2,048 links / 2 per twin-port module, drawn from the server's power
    assert cpo == {("OSFP-800G-DR4", False): 2048}
    # switch side on Q3400: 2,048 leaf ports down and 2,304 leaf-spine links with a switch at
    # both ends, each port half a 1.6T module
    assert q3400[("OSFP-1.6T-2xDR4", True)] == (2048 + 2 * (4352 - 2048)) // 2
