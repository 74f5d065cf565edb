"""Every operation's inverse restores the design exactly, including the ORDER of children and
links in every block (dataclass equality ignores dict order; the saved form does not)."""

import copy
import dataclasses
from pathlib import Path

from hypothesis import given, strategies as st

from core.errors import DesignError
from core.model import Block, Design, Link, Node
from core.inference_workload import load_inference_preset
from core.operations import (
    AddLink, AddService, ChangeService, Group, Macro, RemoveLink, RemoveNode, RemoveService,
    SetDesignName, SetProperty, SetServices, SetWorkloadPartition, Ungroup,
)
from core.project import design_from_dict, design_to_dict, load_project
from core.services import Partition, Service

EXAMPLE = Path(__file__).resolve().parents[1] / "resources" / "examples" / "dgx-h100-superpod-4su.json"


def _row(*ids: str) -> Design:
    root = Block("root")
    for n, node_id in enumerate(ids):
        root.children[node_id] = Node(node_id, "QM9700", x=100.0 * n)
    return Design("row", root)


def _undo_redo_exact(design: Design, operation) -> None:
    before = design_to_dict(design), design.snapshot()
    inverse = design.apply(operation)
    after = design_to_dict(design), design.snapshot()
    forward = design.apply(inverse)
    assert design_to_dict(design) == before[0] and design.content_equal(before[1])
    design.apply(forward)
    assert design_to_dict(design) == after[0] and design.content_equal(after[1])


def test_undoing_a_group_of_scattered_items_puts_them_back_in_order():
    design = _row("a", "b", "c", "d")
    root = design.root
    root.links += [Link("l1", "a", "b"), Link("l2", "c", "d"), Link("l3", "a", "c"), Link("l4", "b", "d")]
    inverse = design.apply(Group("", ("a", "c"), "g"))
    assert list(root.children) == ["g", "b", "d"] and [l.id for l in root.children["g"].links] == ["l3"]
    design.apply(inverse)
    assert list(root.children) == ["a", "b", "c", "d"]
    assert [(l.id, l.a, l.b) for l in root.links] == [("l1", "a", "b"), ("l2", "c", "d"), ("l3", "a", "c"),
                                                      ("l4", "b", "d")]
    _undo_redo_exact(design, Group("", ("d", "a"), "g"))


def test_undoing_an_ungroup_restores_the_block_as_it_was():
    design = _row("a", "x")
    inner = Block("rack", "Rack A", x=12.5, y=-3.0, collapsed=False, role="rack")
    inner.children["b"] = Node("b", "DGX-H100")
    inner.children["c"] = Node("c", "QM9700")
    inner.links.append(Link("l1", "b", "c"))  # the same id as a link outside: renamed on ungroup
    design.root.children = {"a": design.root.children["a"], "rack": inner, "x": design.root.children["x"]}
    design.root.links += [Link("l1", "a", "rack/c"), Link("l2", "x", "a")]
    saved = design_to_dict(design)
    inverse = design.apply(Ungroup("", "rack"))
    assert list(design.root.children) == ["a", "b", "c", "x"]
    assert sorted(l.id for l in design.root.links) == ["l1", "l2", "link3"]
    design.apply(inverse)
    assert design_to_dict(design) == saved
    assert design.root.children["rack"].links[0].id == "l1"
    _undo_redo_exact(design, Ungroup("", "rack"))


def test_undoing_a_delete_puts_links_back_in_their_places_here_and_above():
    design = load_project(EXAMPLE)
    su = design.root.children["su"]
    su.links.insert(0, Link("first", "nodes", "leaf", count=2))
    design.root.links.insert(0, Link("outer", "su/leaf", "storage-fabric/leaf"))
    # su/leaf is an end of links in the middle of both lists: su's and the root's.
    assert [l.id for l in design.root.links] == ["outer", "l1", "st1"]
    _undo_redo_exact(design, RemoveNode("su", "leaf"))
    _undo_redo_exact(design, RemoveNode("", "spine"))


def test_a_loaded_link_a_new_one_could_not_be_comes_back_on_undo():
    raw = design_to_dict(load_project(EXAMPLE))
    # A file may hold a link joining a component to itself, which a new link may not.
    raw["design"]["links"].insert(1, {"id": "loop1", "a": "spine", "b": "spine"})
    design = design_from_dict(raw)
    _undo_redo_exact(design, RemoveLink("", "loop1"))
    _undo_redo_exact(design, RemoveNode("", "spine"))


_OPERATIONS = ("remove", "remove_link", "group", "ungroup", "set", "rename", "link")


@st.composite
def _operation(draw, design: Design):
    """One operation that applies to ``design`` as it is now, of a kind a user's gesture makes."""
    blocks = ["", *(path for path, _ in design.root.iter_blocks())]
    path = draw(st.sampled_from(blocks))
    block = design.block(path)
    children = list(block.children)
    kind = draw(st.sampled_from(_OPERATIONS))
    if kind == "remove" and children:
        return RemoveNode(path, draw(st.sampled_from(children)))
    if kind == "remove_link" and block.links:
        return RemoveLink(path, draw(st.sampled_from([l.id for l in block.links])))
    if kind == "group" and children:
        members = draw(st.lists(st.sampled_from(children), min_size=1, unique=True))
        new_id = draw(st.sampled_from(["g", "group", *members]))
        return Group(path, tuple(members), new_id, "Group")
    if kind == "ungroup":
        singles = [k for k, c in block.children.items() if isinstance(c, Block) and c.count == 1]
        if singles:
            return Ungroup(path, draw(st.sampled_from(singles)))
    if kind == "link":
        ends = [p for p, _ in block.iter_nodes()]
        if len(ends) > 1:
            a, b = draw(st.lists(st.sampled_from(ends), min_size=2, max_size=2, unique=True))
            return AddLink(path, Link(f"x{len(block.links)}", a, b), draw(st.integers(0, len(block.links))))
    if kind == "rename":
        return SetDesignName(draw(st.sampled_from(["", "Untitled", "pod"])))
    target = "/".join(part for part in (path, children[0] if children else "") if part)
    return SetProperty(target, "x", draw(st.floats(-1e3, 1e3)))


@given(st.data())
def test_any_sequence_of_edits_undoes_and_redoes_exactly(data):
    design = load_project(EXAMPLE)
    states = [copy.deepcopy(design_to_dict(design))]
    inverses = []
    for _ in range(data.draw(st.integers(1, 8))):
        operation = data.draw(_operation(design))
        try:
            inverses.append(design.apply(operation))
        except DesignError as exc:  # a refused edit is fine (the user reads why) if it changed nothing
            assert design_to_dict(design) == states[-1], f"{operation} failed half-way: {exc}"
            continue
        states.append(design_to_dict(design))
    forwards = []
    for inverse, state in zip(reversed(inverses), reversed(states[:-1])):
        forwards.append(design.apply(inverse))
        assert design_to_dict(design) == state
    for forward, state in zip(reversed(forwards), states[1:]):
        design.apply(forward)
        assert design_to_dict(design) == state


def test_service_operations_undo_and_redo_exactly():
    train_and_serve = load_project(EXAMPLE.parent / "train-and-serve.json")
    llama, r1 = load_inference_preset("llama31-70b-serve"), load_inference_preset("deepseek-r1-serve")
    chat = Service("chat", Partition(gpus=64), llama)
    _undo_redo_exact(train_and_serve, AddService(chat, 0))
    assert [s.name for s in train_and_serve.services] == ["chat", "reasoning"]
    _undo_redo_exact(train_and_serve, RemoveService("reasoning"))
    _undo_redo_exact(train_and_serve, ChangeService("chat", dataclasses.replace(chat, name="chat-2")))
    _undo_redo_exact(train_and_serve, SetWorkloadPartition(Partition("t", gpus=128)))
    _undo_redo_exact(train_and_serve, SetWorkloadPartition(None))
    _undo_redo_exact(train_and_serve, SetServices(()))
    _undo_redo_exact(train_and_serve, Macro("Serve", [SetServices(()), AddService(chat)]))
    reasoning = Service("reasoning", Partition(blocks=("serve",)), r1)
    train_and_serve.apply(SetServices((chat, reasoning)))
    train_and_serve.apply(train_and_serve.apply(RemoveService("chat")))
    assert [s.name for s in train_and_serve.services] == ["chat", "reasoning"]  # back in its place
