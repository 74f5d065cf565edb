"""Edits that remove or move selected items: the Inspector and the canvas follow without
raising (pytest-qt fails a test on any exception that reaches Qt's event loop)."""

from PySide6.QtCore import QPointF

from core.model import Block
from core.operations import ReplaceRoot


def _two_linked(window):
    a = window.view.place("DGX-H100", QPointF(0, 200))
    b = window.view.place("QM9700", QPointF(0, 0))
    link = window.view.connect_items(a, b)
    return a, b, link


def test_grouping_a_selection_with_its_link_shows_the_new_block(window):
    a, b, link = _two_linked(window)
    announced = []  # the selected link ids the canvas announced, and those the design has then
    window.scene.selectionChanged.connect(lambda: announced.append(
        (window.scene.selected_link_ids(), [l.id for l in window.scene.current_block().links])))
    window.scene.select([a, b], [link])
    window.canvas_actions.group.trigger()
    group = window.scene.selected_ids()
    assert len(group) == 1 and isinstance(window.document.design.root.children[group[0]], Block)
    assert window.inspector._heading.text().startswith("Group")
    # Every selection the canvas announced named only links the design still had.
    assert len(announced) >= 2 and all(set(keys) <= set(links) for keys, links in announced)


def test_deleting_two_selected_links(window):
    a, b, first = _two_linked(window)
    c = window.view.place("QM9700", QPointF(300, 0))
    second = window.view.connect_items(b, c)
    window.scene.select([], [first, second])
    window.canvas_actions.delete.trigger()
    assert window.document.design.root.links == [] and window.inspector.fields == {}
    window.document.undo_stack.undo()
    assert [l.id for l in window.document.design.root.links] == [first, second]


def test_undoing_the_link_shown_in_the_inspector(window):
    a, b, link = _two_linked(window)
    window.scene.select([], [link])
    assert window.inspector._heading.text() == f"Link {link}"
    window.document.undo_stack.undo()  # the connect: the link goes
    assert window.document.design.root.links == []
    assert "kind" not in window.inspector.fields
    window.document.undo_stack.redo()
    window.scene.select([], [link])
    window.canvas_actions.delete.trigger()
    assert "kind" not in window.inspector.fields and window.scene.link_item(link) is None


def test_leaving_a_vanished_block_with_a_link_selected(window, small_design):
    a, b, link = _two_linked(window)
    window.scene.select([a, b])
    window.canvas_actions.group.trigger()
    window.canvas_actions.step_in.trigger()
    window.scene.select([], [link])
    assert window.inspector._heading.text() == f"Link {link}"
    # The content replaced (one undo step): the block we are in goes, the canvas steps out to
    # a top level that has no link of that id.
    window.document.push(ReplaceRoot(small_design.root, small_design.name, small_design.metadata))
    assert window.scene.block_path == "" and window.scene.link_item(link) is None
    assert "kind" not in window.inspector.fields
    window.document.undo_stack.undo()  # the group again, with the link inside it
    window.canvas_actions.select_all.trigger()
    window.canvas_actions.step_in.trigger()
    window.scene.select([], [link])
    window.document.undo_stack.undo()  # the group goes: the link is back at the top, unselected
    assert window.scene.block_path == "" and window.scene.link_item(link) is not None
    assert "kind" not in window.inspector.fields


def test_inspector_given_a_stale_selection_shows_nothing(window):
    a, b, link = _two_linked(window)
    window.inspector.show_selection("", [], ["no-such-link"])
    assert window.inspector.fields == {}
    window.inspector.show_selection("no-such-block", [a], [])
    assert window.inspector.fields == {}
    window.inspector.show_selection("", [a], [])
    assert "count" in window.inspector.fields


def test_inspector_says_a_link_is_a_breakout(window):
    # DGX A100's 200G NICs on QM9700's 400G ports: each port split in two.
    from core.catalog import default_catalog
    from core.generators import FatTreeOptions, generate_fat_tree

    window.apply_template(generate_fat_tree(FatTreeOptions(2048, "DGX-A100", "QM9700"),
                                            default_catalog()))
    window.inspector.show_selection("su", [], ["l1"])
    assert "200G via 2x breakout of 400G ports at leaf" in window.inspector._info.text()
    window.inspector.show_selection("", [], ["l1"])  # leaf to spine at the native 400G
    assert "Breakout" not in window.inspector._info.text()
