"""Breadcrumb bar: where in the hierarchy the canvas is; click a crumb to step out to it."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from core.errors import DesignError
from core.model import Design


class Breadcrumb(QWidget):
    navigate = Signal(str)  # block path

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(2)
        self.crumbs: list[tuple[str, str]] = []  # (label, path) in order

    def show_path(self, design: Design, path: str) -> None:
        while self._layout.count():
            widget = self._layout.takeAt(0).widget()
            if widget is not None:
                widget.hide()  # deleteLater is deferred: hide now so old crumbs never overlap
                widget.deleteLater()
        self.crumbs = [(design.root.label or design.name or "Design", "")]
        parts = path.split("/") if path else []
        for n in range(len(parts)):
            sub = "/".join(parts[: n + 1])
            try:
                block = design.block(sub)
            except DesignError:
                break
            self.crumbs.append((f"{block.label} ×{block.count:,}" if block.count > 1 else block.label, sub))
        for n, (label, sub) in enumerate(self.crumbs):
            if n:
                sep = QLabel("›")
                sep.setStyleSheet("color: #90a4ae; font-weight: bold;")
                self._layout.addWidget(sep)
            button = QToolButton()
            button.setText(label)
            button.setAutoRaise(True)
            button.setEnabled(n < len(self.crumbs) - 1)
            if n == len(self.crumbs) - 1:
                button.setStyleSheet("font-weight: bold; color: #263238;")
            button.clicked.connect(lambda _=False, p=sub: self.navigate.emit(p))
            self._layout.addWidget(button)
        self._layout.addStretch(1)
