"""The Help menu: User Guide (docs/guide/index.md in the system's viewer for it), Keyboard
Shortcuts, About.

Run from a checkout, the guide is the one beside the code; installed with pip, it is the copy
pyproject.toml's data-files put under the environment's share/cluster-designer/."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMessageBox, QWidget

GUIDE = Path("docs") / "guide" / "index.md"
CHECKOUT = Path(__file__).resolve().parents[2]  # designer/window/guide.py -> the checkout
INSTALLED = Path(sys.prefix) / "share" / "cluster-designer"


def guide_path() -> Path | None:
    """The guide's index page, or None when neither copy is there."""
    for root in (CHECKOUT, INSTALLED):
        if (root / GUIDE).is_file():
            return root / GUIDE
    return None


def open_guide(parent: QWidget) -> bool:
    """Open the guide; when it cannot be found or opened, say where it lives instead."""
    path = guide_path()
    if path is not None and QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return True
    where = str(path) if path is not None else f"{GUIDE} in the Cluster Designer sources"
    QMessageBox.information(parent, "User guide", f"The user guide is {where} (Markdown, readable as text).")
    return False


def show_shortcuts(parent: QWidget, actions: list[QAction]) -> None:
    """The keys of ``actions`` (those that have one) and of the mouse gestures, in a table."""
    rows = [(action.text().replace("&", "").rstrip("…"),
             " or ".join(key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()))
            for action in actions if not action.shortcut().isEmpty()]
    rows += [("Connect two components", "Shift+drag"), ("Pan", "Middle-drag / scroll bars"),
             ("Zoom", "Mouse wheel"), ("Step inside a block", "Double-click")]
    text = "<table>" + "".join(f"<tr><td>{name}</td><td>&nbsp;&nbsp;<b>{keys}</b></td></tr>"
                               for name, keys in rows) + "</table>"
    QMessageBox.information(parent, "Keyboard shortcuts", text)


def show_about(parent: QWidget) -> None:
    QMessageBox.about(parent, "About Cluster Designer",
                      "<b>Cluster Designer</b><br>Design AI GPU clusters and see bandwidth, latency, "
                      "power, reliability and training efficiency as you draw.")
