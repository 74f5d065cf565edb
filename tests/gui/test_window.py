"""The window as a user meets it: keys, size on the screen, the default layout."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from core.model import MoveItems


def _one_undone_move(window, small_design):
    window.load_design(small_design, None)
    key = next(iter(small_design.root.children))
    window.document.push(MoveItems("", {key: (1234.0, 56.0)}))
    window.document.undo_stack.undo()
    assert window.document.undo_stack.canRedo()
    return small_design.root.children[key]


@pytest.mark.parametrize("keys", ["Ctrl+Y", "Ctrl+Shift+Z"])
def test_redo_keys_redo(window, qtbot, small_design, keys):
    item = _one_undone_move(window, small_design)
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(window.isActiveWindow)
    sequence = QKeySequence(keys)
    combo = sequence[0]
    qtbot.keyClick(window.view, combo.key(), combo.keyboardModifiers())
    assert (item.x, item.y) == (1234.0, 56.0)
    assert not window.document.undo_stack.canRedo()


def test_no_two_actions_share_a_key(window):
    """A key bound to two actions fires neither (Qt calls it ambiguous)."""
    owners: dict[str, str] = {}
    for action in window.findChildren(QAction):
        if action.shortcutContext() == Qt.ShortcutContext.WidgetShortcut:
            continue
        for key in action.shortcuts():
            text = key.toString()
            assert text not in owners, f"{text} is bound to both {owners[text]!r} and {action.text()!r}"
            owners[text] = action.text()
    assert {"Ctrl+Y", "Ctrl+Shift+Z", "Ctrl+Z"} <= set(owners)
