"""Reversible design operations: every edit's inverse restores the model exactly."""

import copy
import dataclasses

import pytest

from core.errors import DesignError
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Block, Design, Link, Node
from core.operations import (
    AddLink, AddNode, Group, Macro, MoveItems, RemoveLink, RemoveNode, SetProperty, Ungroup,
)


def small_design() -> Design:
    root = Block("root", "test")
    root.children["servers"] = Node("servers", "DGX-H100", 4, x=0, y=100)
    root.children["leaf"] = Node("leaf", "QM9700", 1, x=0, y=0)
    root.links.append(Link("l1", "servers", "leaf", count=32))
    return Design("test", root)


def test_every_operation_inverts_exactly():
    design = small_design()
    start = copy.deepcopy(design.root)
    ops = [
        AddNode("", Node("storage", "AI400X2", 2)),
        AddLink("", Link("l2", "storage", "leaf", "storage", 200, 16)),
        SetProperty("servers", "count", 8),
        SetProperty("", "speed_gbit_s", 200.0, link_id="l1"),
        MoveItems("", {"servers": (50.0, 60.0)}),
        Group("", ("servers", "leaf"), "su", "Scalable unit"),
        SetProperty("su", "count", 4),
        RemoveLink("", "l2"),
        RemoveNode("su", "leaf"),
    ]
    inverses = [design.apply(op) for op in ops]
    end = copy.deepcopy(design.root)
    for inverse in reversed(inverses):
        design.apply(inverse)
    assert design.root == start
    redo = [design.apply(op) for op in ops]
    assert design.root == end
    assert len(redo) == len(ops)


def test_group_keeps_wiring_and_metrics(catalog):
    design = small_design()
    before = flatten(design, catalog)
    design.apply(Group("", ("servers",), "rack"))
    after = flatten(design, catalog)
    assert design.root.links[0].a == "rack/servers"
    assert after.gpus == before.gpus
    assert [b.cables for b in after.bundles] == [b.cables for b in before.bundles]
    design.apply(Ungroup("", "rack"))
    assert design.root.links[0].a == "servers"


def test_block_count_multiplies_units_and_cables(catalog):
    design = small_design()
    design.apply(Group("", ("servers", "leaf"), "su"))
    design.apply(SetProperty("su", "count", 64))
    flat = flatten(design, catalog)
    assert flat.gpus == 64 * 4 * 8
    assert flat.bundles[0].cables == 64 * 32


def test_removing_a_node_removes_its_links_and_undo_restores_them():
    design = small_design()
    inverse = design.apply(RemoveNode("", "leaf"))
    assert design.root.links == []
    design.apply(inverse)
    assert [l.id for l in design.root.links] == ["l1"]
    assert list(design.root.children) == ["servers", "leaf"]


def test_removing_a_nested_node_removes_links_owned_by_ancestors(catalog):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)
    before = copy.deepcopy(design.root)
    inverse = design.apply(RemoveNode("su", "leaf"))
    assert all("su/leaf" not in (l.a, l.b) for l in design.root.links)
    design.apply(inverse)
    assert design.root == before


@pytest.mark.parametrize("op,message", [
    (SetProperty("servers", "count", 0), "at least 1"),
    (SetProperty("servers", "count", "many"), "expected int"),
    (SetProperty("servers", "colour", "red"), "cannot be set"),
    (AddLink("", Link("l9", "servers", "nowhere")), "no component"),
    (AddLink("", Link("l1", "servers", "leaf")), "already exists"),
    (AddNode("", Node("leaf", "QM9700")), "already exists"),
    (Ungroup("", "servers"), "not a block"),
    (RemoveNode("", "ghost"), "no 'ghost'"),
])
def test_invalid_edits_are_refused_and_change_nothing(op, message):
    design = small_design()
    before = copy.deepcopy(design.root)
    with pytest.raises(DesignError, match=message):
        design.apply(op)
    assert design.root == before


@pytest.mark.parametrize("build,message", [
    # what a project file cannot hold, code cannot build either (core/design_fields.py)
    (lambda: Link("l9", "servers", "leaf", kind="magic"), "kind: 'magic' is not one of"),
    (lambda: Node("bad id", "QM9700"), "invalid id 'bad id'"),
    (lambda: Node("n", "QM9700", count=2.5), "count: expected integer, got 2.5"),
    (lambda: Node("n", "QM9700", count=0), "count: must be at least 1"),
    (lambda: Node("n", "QM9700", x=float("nan")), "x: expected a finite number"),
    (lambda: Node("n", "QM9700", overrides={"max_power_kw": float("inf")}), "max_power_kw: expected a finite"),
    (lambda: Link("l", "a", "b", speed_gbit_s=0), "speed_gbit_s: must be above 0"),
    (lambda: Link("l", "a", "b", speed_gbit_s=-400.0), "speed_gbit_s: must be above 0"),
    (lambda: Link("l", "a", "b", length_m=float("nan")), "length_m: expected a finite number"),
    (lambda: Block("b", count=True), "count: expected integer, got True"),
    (lambda: Design("d", Block("root"), metadata={"v": float("nan")}), r"metadata\.v: expected a finite"),
])
def test_items_a_file_could_not_hold_cannot_be_built(build, message):
    with pytest.raises(DesignError, match=message):
        build()


def test_items_changed_in_code_obey_the_same_rules():
    # Nodes and links are frozen (operations and scripts put a changed copy in their place, and
    # the copy is checked); blocks check a field as it is set.
    node, link, block = Node("n", "QM9700"), Link("l", "a", "b"), Block("b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.count = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        link.speed_gbit_s = 0.0
    with pytest.raises(DesignError, match="count: expected integer, got 2.5"):
        dataclasses.replace(node, count=2.5)
    with pytest.raises(DesignError, match="speed_gbit_s: must be above 0"):
        dataclasses.replace(link, speed_gbit_s=0.0)
    with pytest.raises(DesignError, match=r"^block 'b' field count: expected integer, got 2\.5"):
        block.count = 2.5
    with pytest.raises(DesignError, match="block 'b' field x: expected a finite number"):
        block.x = float("nan")
    assert block.count == 1 and block.x == 0.0  # the refused values were not kept
    block.count = 4
    assert block.count == 4


@pytest.mark.parametrize("name,value,message", [
    ("count", 2.5, "count: expected integer"),
    ("x", float("inf"), "x: expected a finite number"),
    ("overrides", {"max_power_kw": -1.0}, r"overrides\.max_power_kw: -1\.0 is outside 0"),
])
def test_set_property_applies_the_same_rules(name, value, message):
    design = small_design()
    with pytest.raises(DesignError, match=message):
        design.apply(SetProperty("servers", name, value))


def test_set_property_stores_a_whole_coordinate_as_a_float():
    design = small_design()
    design.apply(SetProperty("servers", "x", 5))
    assert isinstance(design.root.children["servers"].x, float)


def test_macro_rolls_back_when_a_step_fails():
    design = small_design()
    before = copy.deepcopy(design.root)
    macro = Macro("two steps", [SetProperty("servers", "count", 16), SetProperty("leaf", "count", -1)])
    with pytest.raises(DesignError):
        design.apply(macro)
    assert design.root == before


def test_observers_hear_every_change():
    design = small_design()
    seen = []
    design.subscribe(seen.append)
    design.apply(SetProperty("servers", "count", 2))
    design.apply(MoveItems("", {"leaf": (1.0, 2.0)}))
    assert [c.kind for c in seen] == ["properties", "geometry"]


def test_snapshot_is_independent():
    design = small_design()
    snap = design.snapshot()
    design.apply(SetProperty("servers", "count", 99))
    assert snap.root.children["servers"].count == 4


def test_100k_gpu_design_is_a_few_nodes_not_100k_objects(catalog):
    design = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), catalog)
    nodes = list(design.root.iter_nodes())
    assert len(nodes) < 20
    assert flatten(design, catalog).gpus == 100_000


def test_undoing_a_link_removal_restores_its_position():
    design = small_design()
    design.apply(AddNode("", Node("storage", "AI400X2")))
    design.apply(AddLink("", Link("l2", "storage", "leaf", "storage", 200, 8)))
    before = copy.deepcopy(design.root)
    design.apply(design.apply(RemoveLink("", "l1")))
    assert design.root == before
