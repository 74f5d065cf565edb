"""A searchable list of possibly a million rows (the members of a group card, the links of a
bundle) that builds nothing per row: a list model reads a row's text only when the view paints
it, and the filter keeps the matching rows as one array."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QListView, QVBoxLayout, QWidget

FILTER_DELAY_MS = 200  # typing in the filter: search once the user pauses


class RowsModel(QAbstractListModel):
    """Rows given as a sequence of values, shown through ``label(value)``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: Sequence = ()
        self._label: Callable[[object], str] = str

    def set_rows(self, rows: Sequence, label: Callable[[object], str]) -> None:
        self.beginResetModel()
        self._rows, self._label = rows, label
        self.endResetModel()

    def value(self, row: int) -> object:
        return self._rows[row]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self._label(self._rows[index.row()])
        return None


class MemberList(QWidget):
    """A filter field over a list; a click (or Enter) on a row emits ``picked(value)``."""

    picked = Signal(object)

    def __init__(self, what: str, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(f"Find {what}…")
        self.filter.setClearButtonEnabled(True)
        layout.addWidget(self.filter)
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color: #546e7a;")
        layout.addWidget(self.count_label)
        self.view = QListView()
        self.view.setUniformItemSizes(True)  # a million rows are laid out without asking each
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setMinimumHeight(160)
        self.model = RowsModel(self)
        self.view.setModel(self.model)
        self.view.clicked.connect(self._choose)
        self.view.activated.connect(self._choose)
        layout.addWidget(self.view)
        self._what = what
        self._rows: Sequence = ()
        self._label: Callable[[object], str] = str
        self._search: Callable[[object], str] = str
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FILTER_DELAY_MS)
        self._timer.timeout.connect(self.apply_filter)
        self.filter.textChanged.connect(lambda _text: self._timer.start())

    def set_rows(self, rows: Sequence, label: Callable[[object], str],
                 search: Callable[[object], str] | None = None) -> None:
        """Show ``rows`` (any sequence: a tuple of ids, an array of positions); ``search(value)``
        is the text the filter looks in (default: the label)."""
        self._rows, self._label, self._search = rows, label, search or label
        self.apply_filter()

    def apply_filter(self) -> None:
        self._timer.stop()
        needle = self.filter.text().strip().lower()
        rows = self._rows
        if needle:
            keep = np.fromiter((needle in self._search(value).lower() for value in rows), dtype=bool,
                               count=len(rows))
            rows = [value for value, hit in zip(rows, keep.tolist()) if hit] if not isinstance(rows, np.ndarray) \
                else rows[keep]
        self.model.set_rows(rows, self._label)
        total = len(self._rows)
        shown = len(rows)
        self.count_label.setText(f"{total:,} {self._what}" if shown == total else f"{shown:,} of {total:,} {self._what}")

    def _choose(self, index: QModelIndex) -> None:
        if index.isValid():
            self.picked.emit(self.model.value(index.row()))
