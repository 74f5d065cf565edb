"""A cluster imported device by device evaluates like the same cluster built from blocks.

An inventory import draws every server and switch on its own (count 1) with a link per pair of
cabled devices; tests/separate_design.py makes that drawing from a generated design, so both
are the same cluster and a user must get the same answers from either.
"""

import dataclasses
import math

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.generators.supernode import nvl72_rack_from_parts
from core.model import Block, Design
from core.site_spec import SiteSpec
from core.workload import load_preset, with_parallelism
from tests.separate_design import draw_separately

# Everything a user reads off an evaluation, except what names the drawing (paths, the name).
SECTIONS = ("counts", "bandwidth", "latency", "power", "reliability", "performance")
NAMES = {"spof_components"}


def numbers(evaluation) -> dict[str, object]:
    """The evaluation JSON's sections as {"section.key[.sub]": value}."""
    out: dict[str, object] = {}

    def walk(value, key: str) -> None:
        if isinstance(value, dict):
            for sub, item in value.items():
                if sub not in NAMES:
                    walk(item, f"{key}.{sub}")
        else:
            out[key] = value

    data = evaluation_to_json(evaluation)
    for section in SECTIONS:
        walk(data[section], section)
    return out


def assert_same_numbers(block_design: Design, separate: Design, catalog, workload=None) -> None:
    # At drawn lengths: placed, every copy of a repeated block is bought the parts of the copy
    # whose runs are longest (core/site/bought.py), which a drawing of single devices need not
    # match part for part; the drawing, not the floor plan, is what this compares.
    drawn = SiteSpec(cable_lengths="drawn")
    block_design, separate = (dataclasses.replace(d, site=drawn) for d in (block_design, separate))
    expected = numbers(evaluate(block_design, catalog, workload))
    got = numbers(evaluate(separate, catalog, workload))
    assert got.keys() == expected.keys()
    different = {
        key: (expected[key], got[key]) for key in expected
        if not (got[key] == expected[key] or (
            isinstance(got[key], float) and isinstance(expected[key], float)
            and math.isclose(got[key], expected[key], rel_tol=1e-9)))
    }
    assert different == {}


def workload_512():
    return with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=16, global_batch=512)


def test_64_servers_drawn_one_by_one_evaluate_like_two_scalable_units(catalog):
    # 64 DGX H100 on QM9700 (2 SU, 16 leaves, 8 spines) with 4 AI400X2 on a storage fabric
    blocks = generate_fat_tree(FatTreeOptions(512, "DGX-H100", "QM9700", storage="AI400X2",
                                              storage_nodes=4), catalog)
    separate = draw_separately(blocks, catalog)
    nodes = list(separate.root.children.values())
    assert all(node.count == 1 for node in nodes)
    assert sum(node.catalog_id == "DGX-H100" for node in nodes) == 64
    # one scale-out link per server rail, each to its own leaf
    rails = [link for link in separate.root.links
             if link.a == "nodes-0" and link.kind == "scale-out"]
    assert len(rails) == 8 and len({link.b for link in rails}) == 8
    assert_same_numbers(blocks, separate, catalog, workload_512())
    ev = evaluate(separate, catalog, workload_512())
    # the figures a reviewer reads, spelled out
    assert ev.counts.gpus == 512 and ev.counts.switches_by_tier["leaf"] == 16
    assert ev.bandwidth.per_gpu_scale_out_gbit_s == pytest.approx(400)
    assert ev.bandwidth.bisection_tbit_s == pytest.approx(512 * 400 / 2 / 1000)
    assert ev.performance.mfu == pytest.approx(evaluate(blocks, catalog, workload_512()).performance.mfu)


def test_islands_and_a_core_tier_drawn_one_by_one(catalog):
    # 4 islands of 2,048 H100 joined 4:1 (the README example), every switch on its own
    blocks = generate_fat_tree(FatTreeOptions(8192, "DGX-H100", "SN5600", island_gpus=2048,
                                              island_oversubscription=4), catalog)
    assert_same_numbers(blocks, draw_separately(blocks, catalog), catalog, workload_512())


def test_nvlink_domain_from_trays_and_switch_chips_drawn_one_by_one(catalog):
    # the scale-up domain comes from the drawn NVLink cables, tray by tray and chip by chip
    blocks = Design("racks", Block("root", children={"rack": nvl72_rack_from_parts(2)}))
    separate = draw_separately(blocks, catalog)
    assert len(separate.root.children) == 2 * 36
    assert evaluate(separate, catalog).bandwidth.scale_up_domain_gpus == 72
    assert_same_numbers(blocks, separate, catalog)


def test_twin_port_optics_are_counted_per_device(catalog):
    # A DGX H100's 8 rails fill 4 twin-port OSFP cages whether its 8 cables are one bundle of a
    # block or 8 links of their own; a leaf with 31 server cables fills 16.
    blocks = generate_fat_tree(FatTreeOptions(248, "DGX-H100", "QM9700"), catalog)
    for design in (blocks, draw_separately(blocks, catalog)):
        optics = {item.powered: item.count for item in evaluate(design, catalog).inventory.items
                  if item.catalog_id == "OSFP-800G-2xSR4"}
        assert optics[False] == 31 * 4           # server cages (inside the servers' power)
        assert optics[True] == 8 * 16 + 8 * 16 + 4 * 32  # leaf down + leaf up + spine down


@settings(max_examples=12)
@given(
    servers=st.integers(1, 160),
    server=st.sampled_from(["DGX-H100", "DGX-A100", "MI300X-Platform"]),
    switch=st.sampled_from(["QM9700", "SN5600"]),
    oversubscription=st.sampled_from([1, 3]),
    storage_nodes=st.sampled_from([0, 2]),
)
def test_any_generated_fabric_drawn_one_by_one_gives_the_same_numbers(
        catalog, servers, server, switch, oversubscription, storage_nodes):
    blocks = generate_fat_tree(FatTreeOptions(
        servers * 8, server, switch, oversubscription=oversubscription,
        storage="AI400X2" if storage_nodes else None, storage_nodes=storage_nodes), catalog)
    assert_same_numbers(blocks, draw_separately(blocks, catalog), catalog)
