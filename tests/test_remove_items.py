"""Deleting many components at once (a warning's components revealed in a block of 100,000, then
Delete) is one pass over the links: it must leave the design exactly as deleting them one by
one would, and undo must put everything back in its place."""

import copy
from pathlib import Path

from hypothesis import given, strategies as st

from core.operations import Macro, RemoveItems, RemoveLink, RemoveNode
from core.project import design_to_dict, load_project
from designer.project.edits import delete_items

EXAMPLES = Path(__file__).resolve().parents[1] / "resources" / "examples"
DESIGNS = {name: load_project(EXAMPLES / name) for name in ("dgx-h100-superpod-4su.json", "hand-drawn-nvl72-x4.json")}


@given(st.data())
def test_removing_items_at_once_equals_one_by_one_and_undoes_exactly(data):
    design = copy.deepcopy(DESIGNS[data.draw(st.sampled_from(sorted(DESIGNS)))])
    path = data.draw(st.sampled_from(["", *(p for p, _ in design.root.iter_blocks())]))
    block = design.block(path)
    items = data.draw(st.lists(st.sampled_from(list(block.children)), unique=True)) if block.children else []
    links = data.draw(st.lists(st.sampled_from([link.id for link in block.links]), unique=True)) if block.links else []
    one_by_one = copy.deepcopy(design)
    steps = [RemoveLink(path, link_id) for link_id in links] + [RemoveNode(path, item) for item in items]
    if steps:
        one_by_one.apply(Macro("Delete", steps))
    before = design_to_dict(design)
    inverse = design.apply(RemoveItems(path, tuple(items), tuple(links)))
    assert design_to_dict(design) == design_to_dict(one_by_one)
    redo = design.apply(inverse)
    assert design_to_dict(design) == before
    design.apply(redo)
    assert design_to_dict(design) == design_to_dict(one_by_one)


def test_the_canvas_deletes_one_item_as_before_and_several_in_one_pass():
    assert isinstance(delete_items("", ["spine"], []), RemoveNode)
    assert isinstance(delete_items("", [], ["l1"]), RemoveLink)
    assert isinstance(delete_items("", ["spine", "su"], ["l1"]), RemoveItems)
