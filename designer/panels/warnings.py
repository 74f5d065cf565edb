"""Warnings of the latest evaluation; activating one selects the components it names."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QStyle

from designer.evaluator import Result


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
        icon = QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        info = QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation)
        for diag in result.evaluation.warnings:
            item = QListWidgetItem(icon if diag.components else info, f"{diag.code}: {diag.message}")
            item.setData(Qt.ItemDataRole.UserRole, list(diag.components))
            tip = diag.message
            if diag.components:
                tip += "\n\nClick to select: " + ", ".join(diag.components[:8])
            item.setToolTip(tip)
            self.addItem(item)
        if not result.evaluation.warnings:
            self.addItem(QListWidgetItem("No warnings."))

    def _activate(self, item: QListWidgetItem) -> None:
        paths = item.data(Qt.ItemDataRole.UserRole)
        if paths:
            self.reveal.emit(list(paths))
