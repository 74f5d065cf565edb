"""Warnings of the latest evaluation, most serious first, each with its severity's icon;
activating one selects the components it names.

Core merges and sorts them (errors, then warnings, then facts; each code once); the panel
shows them in that order with Qt's standard message-box icons, one per severity.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QStyle

from designer.project.evaluator import Result

SEVERITY_ICONS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}
SEVERITY_NAMES = {"error": "Error", "warning": "Warning", "info": "Note"}
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 1  # the item's severity (tests, accessibility)


class WarningsPanel(QListWidget):
    title = "Warnings"
    reveal = Signal(list)  # design paths of the components involved

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.itemClicked.connect(self._activate)
        self.itemActivated.connect(self._activate)

    def update_result(self, result: Result) -> None:
        self.clear()
        style = QApplication.style()
        for diag in result.evaluation.warnings:
            severity = diag.severity
            item = QListWidgetItem(style.standardIcon(SEVERITY_ICONS[severity]),
                                   f"{diag.code}: {diag.message}")
            item.setData(Qt.ItemDataRole.UserRole, list(diag.components))
            item.setData(SEVERITY_ROLE, severity)
            tip = f"{SEVERITY_NAMES[severity]}: {diag.message}"
            if diag.components:
                more = len(diag.components) - 8
                tip += "\n\nClick to select: " + ", ".join(diag.components[:8]) + (
                    f" and {more} more" if more > 0 else "")
            item.setToolTip(tip)
            self.addItem(item)
        if not result.evaluation.warnings:
            self.addItem(QListWidgetItem("No warnings."))

    def _activate(self, item: QListWidgetItem) -> None:
        paths = item.data(Qt.ItemDataRole.UserRole)
        if paths:
            self.reveal.emit(list(paths))
