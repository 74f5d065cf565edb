"""Fail / Drain / Restore from the canvas: drawn, evaluated, undone, saved."""

import pytest
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QInputDialog


def _context_menu(window, monkeypatch, key: str) -> dict:
    """Right-click the card ``key``; the actions of the menu it opens, by text (the menu is
    built as the click builds it, not shown: it would wait for a choice)."""
    view, card, actions = window.view, window.scene.card(key), window.canvas_actions
    clicked = []
    view.context_menu_requested.disconnect(actions.show_context_menu)
    view.context_menu_requested.connect(lambda _pos, item: clicked.append(item))
    try:
        view.centerOn(card)
        point = view.mapFromScene(card.pos())
        view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, view.mapToGlobal(point)))
    finally:
        view.context_menu_requested.disconnect()
        view.context_menu_requested.connect(actions.show_context_menu)
    assert clicked == [card] and window.scene.selected_ids() == [key]
    return {action.text(): action for action in actions.context_menu(card).actions()}


def test_fail_a_spine_from_the_context_menu_draws_it_lowers_the_bisection_and_undoes(
        window, qtbot, small_design, monkeypatch):
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000):
        window.load_design(small_design, None)
    intact = window.evaluator.last.evaluation.bandwidth.bisection_tbit_s
    shown = window.bandwidth_panel.value("Bisection")
    asked = []
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args: asked.append(args[2]) or (1, True))
    actions = _context_menu(window, monkeypatch, "spine")
    assert not actions["Rest&ore"].isEnabled()
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000) as blocker:
        actions["&Fail…"].trigger()
    assert "16 units of spine" in asked[0]  # how many is asked: the group has 16
    ev = blocker.args[0].evaluation
    assert ev.bandwidth.bisection_tbit_s == pytest.approx(intact * 15 / 16)
    assert ev.failure.lost_bisection_fraction == pytest.approx(1 / 16)
    card = window.scene.card("spine")
    assert card.out_of_service == (1, 0, 16) and "1 failed of 16" in card.toolTip()
    assert window.bandwidth_panel.value("Bisection") != shown
    assert window.bandwidth_panel.value("Bisection lost") == "6.2 %"
    assert "spine: 1 failed of 16" in window.overview_panel.value("Out of service")
    assert "Fail" in window.undo_action.text()
    assert window.canvas_actions.restore.isEnabled()

    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000) as blocker:
        window.document.undo_stack.undo()  # one gesture, one undo step
    assert blocker.args[0].evaluation.failure is None
    assert blocker.args[0].evaluation.bandwidth.bisection_tbit_s == pytest.approx(intact)
    assert window.scene.card("spine").out_of_service[:2] == (0, 0)
    assert window.bandwidth_panel.value("Bisection") == shown
    assert not window.canvas_actions.restore.isEnabled()


def test_drain_then_restore_a_block_and_the_state_survives_save_and_open(
        window, qtbot, small_design, monkeypatch, tmp_path):
    window.load_design(small_design, None)
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args: (1, True))
    _context_menu(window, monkeypatch, "su")["D&rain…"].trigger()
    assert window.document.design.block("su").drained == 1
    assert window.scene.card("su").out_of_service == (0, 1, 4)
    path = tmp_path / "what-if.json"
    assert window._save_to(path)
    assert window.open_file(path)
    assert window.document.design.block("su").drained == 1
    assert window.scene.card("su").out_of_service == (0, 1, 4)
    _context_menu(window, monkeypatch, "su")["Rest&ore"].trigger()
    assert window.document.design.block("su").drained == 0
    assert window.scene.card("su").out_of_service[:2] == (0, 0)
    assert window.document.modified


def test_a_right_click_on_an_outline_row_offers_fail_for_that_item(window, small_design):
    window.load_design(small_design, None)
    outline = window.outline
    asked = []
    outline.menu_requested.disconnect()
    outline.menu_requested.connect(lambda path, _at: asked.append(path))
    root = outline.model.index(0, 0)
    outline.tree.expand(root)
    rows = [outline.model.index(row, 0, root) for row in range(outline.model.rowCount(root))]
    index = next(row for row in rows if outline.model.path_of(row) == "spine")
    outline._row_menu(outline.tree.visualRect(index).center())
    assert asked == ["spine"] and window.scene.selected_ids() == ["spine"]
    menu = window.canvas_actions.failure_menu()
    assert [a.text() for a in menu.actions()] == ["&Fail…", "D&rain…", "Rest&ore"]
    assert window.canvas_actions.fail.isEnabled()
