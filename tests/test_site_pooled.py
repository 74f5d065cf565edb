"""A separate storage fabric's leaves placed where an installer puts them (core/site/pooled.py):
at the end of the compute rows they serve once a central storage rack would be out of
multimode's reach, each node's storage cables dealt to the leaf of its own row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.evaluate import evaluate
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.project import load_project
from core.site.place import place
from core.site.pooled import CENTRAL_REACH_M
from core.site.templates import NETWORK
from core.site_spec import SiteSpec

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"


def _bundles(flat, b_path: str) -> list[int]:
    return [k for k in range(len(flat.cables)) if flat.paths[flat.bundle_b[k]] == b_path]


@pytest.fixture(scope="module")
def placed_100k(catalog):
    return place(load_project(EXAMPLES / "h100-100k.json", catalog), catalog)


def test_storage_leaves_sit_at_the_end_of_the_rows_they_serve(placed_100k):
    """The 100,000-GPU example's 202 storage leaves: in network racks at the ends of the
    compute (and storage) rows, never more leaves in a row than its nodes' ports call for, and
    every node-to-leaf cable within its row or the next (it was 42-244 m with the leaves
    racked together)."""
    site, flat, graph = placed_100k
    t, lay, c = site.template, site.layout, site.cables
    leaf = flat.index["storage-fabric/leaf"]
    racks, _ = t.units[leaf]
    assert len(racks) == 202 == flat.multiplicity[leaf]
    assert (t.rack_class[racks] == NETWORK).all()
    # each leaf rack is at the end of a row holding compute or storage racks
    leaf_racks = np.unique(racks)
    for r in leaf_racks[:40].tolist():
        row = lay.rack_row == lay.rack_row[r]
        others = row & ~np.isin(np.arange(t.racks), leaf_racks)
        assert (t.rack_class[others] != NETWORK).any()
        assert lay.rack_slot[r] > lay.rack_slot[others].max()
    to_leaf = np.isin(c.bundle, _bundles(flat, "storage-fabric/leaf"))
    assert c.length_m[to_leaf].max() < 25.0 < CENTRAL_REACH_M
    # no row is longer than the hall's rows: the leaf racks took free slots
    assert lay.rack_slot.max() < SiteSpec().racks_per_row


def test_dealing_keeps_the_design(placed_100k):
    """The floor's wiring is a choice the design leaves open, not a change to it: every node
    keeps its storage cables, every cable still ends on a storage leaf, no leaf takes more
    ports than ceil(D/L) (the drawing's fullest), and the leaf-spine cables are the graph's."""
    site, flat, graph = placed_100k
    c = site.cables
    leaf = flat.index["storage-fabric/leaf"]
    first, count = int(graph.offsets[leaf]), int(flat.multiplicity[leaf])
    down = np.isin(c.bundle, _bundles(flat, "storage-fabric/leaf"))
    assert np.array_equal(np.sort(c.unit_a[down]), np.sort(graph.src[down]))
    ends = c.unit_b[down]
    assert ((ends >= first) & (ends < first + count)).all()
    per_leaf = np.bincount(ends - first, minlength=count)
    assert per_leaf.max() <= -(-int(down.sum()) // count)
    up = ~down
    assert np.array_equal(c.unit_a[up], graph.src[up]) and np.array_equal(c.unit_b[up], graph.dst[up])


def test_leaf_racks_are_counted_and_within_their_limits(catalog, placed_100k):
    """The leaves' racks take rack space and power: racks_by_kind counts them, no rack or row
    is over its limit, and the IT power of the racks is the same design's."""
    site, flat, graph = placed_100k
    assert site.racks_by_kind["network"] > 528 - 26  # 26 central leaf racks became per-row ones
    codes = {d.code for d in site.diagnostics}
    assert not codes & {"SITE_RACK_OVER_LIMIT", "ROW_CDU_EXCEEDED", "HALL_POWER_EXCEEDED",
                        "CABLE_REACH_EXCEEDED"}
    leaf = flat.index["storage-fabric/leaf"]
    racks, _ = site.template.units[leaf]
    leaf_w = float(flat.specs[flat.spec_row[leaf]].max_power_w)
    assert np.isclose(site.template.rack_w[np.unique(racks)].sum(), 202 * leaf_w)


def test_a_small_cluster_keeps_its_storage_leaves_together(catalog):
    """Where racked together every storage cable is within multimode's reach (the 4-SU DGX
    H100 example), the leaves stay in one network rack, as the SuperPOD RA racks them."""
    site, flat, graph = place(load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog), catalog)
    leaf = flat.index["storage-fabric/leaf"]
    assert len(np.unique(site.template.units[leaf][0])) == 1
    assert np.array_equal(site.cables.unit_b, graph.dst)


@settings(max_examples=6, deadline=None)
@given(racks_per_row=st.integers(12, 30), rows_per_hall=st.integers(3, 12))
def test_generated_storage_fabric_is_row_local_on_any_floor(catalog, racks_per_row, rows_per_hall):
    """A generated 16-SU DGX B200 fabric with a separate storage fabric, on floors of any row
    length and hall depth: each leaf keeps at most ceil(D/L) endpoint ports, no rack is past
    its row, and every node-to-storage-leaf cable within one hall stays within multimode's
    reach. A leaf serves two halls only where the fabric has too few spare ports to start
    each hall on a fresh leaf (this one has none: 37 leaves of 64 down ports, 2,368 node and
    storage ports), at most one per hall boundary."""
    design = generate_fat_tree(FatTreeOptions(16 * 32 * 8, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=40), catalog)
    design.site = SiteSpec(racks_per_row=racks_per_row, rows_per_hall=rows_per_hall)
    site, flat, graph = place(design, catalog)
    c, lay = site.cables, site.layout
    leaf = flat.index["storage-fabric/leaf"]
    down = np.isin(c.bundle, _bundles(flat, "storage-fabric/leaf"))
    first, count = int(graph.offsets[leaf]), int(flat.multiplicity[leaf])
    per_leaf = np.bincount(c.unit_b[down] - first, minlength=count)
    assert per_leaf.max() <= -(-int(down.sum()) // count) and per_leaf.sum() == down.sum()
    assert lay.rack_slot.max() < racks_per_row
    hall_a, hall_b = lay.rack_hall[c.rack_a[down]], lay.rack_hall[c.rack_b[down]]
    assert c.length_m[down][hall_a == hall_b].max() <= CENTRAL_REACH_M
    two_halls = np.unique(c.unit_b[down][hall_a != hall_b])
    assert len(two_halls) <= site.halls - 1


def test_the_100k_example_is_valid_again(catalog):
    """Its storage runs placed in-row, the example is buildable with catalog parts."""
    ev = evaluate(load_project(EXAMPLES / "h100-100k.json", catalog), catalog)
    assert ev.valid and "LINK_TOO_LONG" not in {w.code for w in ev.warnings}
    assert ev.site.cables_optics.beyond_catalog_reach == 0
