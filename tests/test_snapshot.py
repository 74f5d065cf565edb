"""Design.snapshot is what the evaluator computes on while the user keeps editing: no later edit,
undo or redo may change it, and it must not cost a copy of every node and link (a design drawn
device by device has 100,000 nodes and 1.5 million links)."""

from pathlib import Path

from hypothesis import given, strategies as st

from core.errors import DesignError
from core.model import Block, Design, Link, Node
from core.operations import (
    AddLink, AddNode, Group, MoveItems, RemoveLink, RemoveNode, SetProperty, Ungroup,
)
from core.project import design_to_dict, load_project

EXAMPLE = Path(__file__).resolve().parents[1] / "resources" / "examples" / "dgx-h100-superpod-4su.json"

_KINDS = ("remove", "remove_link", "group", "ungroup", "link", "add", "move", "set_node", "set_link",
          "set_block")


@st.composite
def _operation(draw, design: Design):
    """One operation of any kind that applies to ``design`` as it is now."""
    path = draw(st.sampled_from(["", *(p for p, _ in design.root.iter_blocks())]))
    block = design.block(path)
    children = list(block.children)
    nodes = [k for k, c in block.children.items() if isinstance(c, Node)]
    blocks = [k for k, c in block.children.items() if isinstance(c, Block)]
    kind = draw(st.sampled_from(_KINDS))
    within = lambda key: f"{path}/{key}" if path else key  # noqa: E731
    if kind == "remove" and children:
        return RemoveNode(path, draw(st.sampled_from(children)))
    if kind == "remove_link" and block.links:
        return RemoveLink(path, draw(st.sampled_from([link.id for link in block.links])))
    if kind == "group" and children:
        members = draw(st.lists(st.sampled_from(children), min_size=1, unique=True))
        return Group(path, tuple(members), draw(st.sampled_from(["g", *members])))
    if kind == "ungroup" and blocks:
        return Ungroup(path, draw(st.sampled_from(blocks)))
    if kind == "link":
        ends = [p for p, _ in block.iter_nodes()]
        if len(ends) > 1:
            a, b = draw(st.lists(st.sampled_from(ends), min_size=2, max_size=2, unique=True))
            return AddLink(path, Link(f"x{len(block.links)}", a, b), draw(st.integers(0, len(block.links))))
    if kind == "add":
        return AddNode(path, Node(f"n{len(children)}", "QM9700"), draw(st.integers(0, len(children))))
    if kind == "move" and children:
        return MoveItems(path, {draw(st.sampled_from(children)): (draw(st.floats(-1e3, 1e3)), 5.0)})
    if kind == "set_node" and nodes:
        name, value = draw(st.sampled_from([("count", 3), ("name", "renamed"), ("tier", "spine"),
                                            ("overrides", {"max_power_w": 900.0}), ("catalog_id", "SN5600")]))
        return SetProperty(within(draw(st.sampled_from(nodes))), name, value)
    if kind == "set_link" and block.links:
        name, value = draw(st.sampled_from([("count", 7), ("speed_gbit_s", 800.0), ("kind", "storage"),
                                            ("length_m", 3.0), ("medium", "copper")]))
        return SetProperty(path, name, value, draw(st.sampled_from([link.id for link in block.links])))
    if kind == "set_block" and blocks:
        name, value = draw(st.sampled_from([("count", 2), ("collapsed", False), ("role", "pod")]))
        return SetProperty(within(draw(st.sampled_from(blocks))), name, value)
    return MoveItems(path, {})  # the drawn kind does not apply here: an edit that changes nothing


@given(st.data())
def test_no_edit_undo_or_redo_changes_a_snapshot_taken_before_it(data):
    design = load_project(EXAMPLE)
    taken: list[tuple[Design, dict]] = []
    inverses = []
    for _ in range(data.draw(st.integers(1, 10))):
        taken.append((design.snapshot(), design_to_dict(design)))
        if inverses and data.draw(st.booleans()):
            design.apply(inverses.pop())  # an undo
            continue
        try:
            inverses.append(design.apply(data.draw(_operation(design))))
        except DesignError:
            continue  # a refused edit; the snapshots must still hold
    for snapshot, saved in taken:
        assert design_to_dict(snapshot) == saved


def test_a_snapshot_shares_nodes_and_links_but_not_the_blocks_that_hold_them():
    design = load_project(EXAMPLE)
    snapshot = design.snapshot()
    su = design.root.children["su"]
    copied = snapshot.root.children["su"]
    assert copied is not su and copied.children is not su.children and copied.links is not su.links
    assert copied.children["nodes"] is su.children["nodes"] and copied.links[0] is su.links[0]
    assert snapshot.content_equal(design)
    design.apply(SetProperty("su/nodes", "count", 7))
    design.apply(SetProperty("su", "count", 9))
    design.apply(SetProperty("su", "count", 5, "l1"))
    assert (su.children["nodes"].count, su.count, su.links[0].count) == (7, 9, 5)
    assert (copied.children["nodes"].count, copied.count, copied.links[0].count) == (32, 4, 8 * 32)
