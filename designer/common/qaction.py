"""Build a QAction with its shortcut, status tip and slot in one call (menus, toolbars, canvas)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence


def make_action(parent: QObject, text: str, slot, shortcut=None, tip: str = "") -> QAction:
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.setStatusTip(tip)
    action.triggered.connect(slot)
    return action
