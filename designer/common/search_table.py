"""The table a search's results are listed in (the training parallelism search and the serving
deployment search, designer/workload/workload_panel.py and designer/panels/deployment_search.py): a row of
numbers per candidate, the best one first and shaded, then a full-width word-wrapped note (why
it wins or loses) spanning every column; optionally a "Use" button in the first column.

Its height follows its rows (no inner scrolling): it sits in a scrolling dock already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QToolButton)

BEST_FILL = QColor("#e8f5e9")
WINS_COLOR, LOSES_COLOR = "#2e7d32", "#607d8b"


class SearchTable(QTableWidget):
    """``columns``: (header, tooltip) per column; with ``use_column`` the first one holds the
    "Use" buttons (``show_candidates``'s ``use``). An empty last column takes the width the
    values leave, so the columns stay together and the notes span the whole table."""

    def __init__(self, columns: Sequence[tuple[str, str]], use_column: bool = True, parent=None):
        super().__init__(0, len(columns) + 1, parent)
        self.use_column = use_column
        self.setHorizontalHeaderLabels([h for h, _ in columns] + [""])
        for col, (_, tip) in enumerate(columns):
            self.horizontalHeaderItem(col).setToolTip(tip)
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setShowGrid(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        small = QFont(self.font())
        small.setPointSizeF(max(7.5, small.pointSizeF() - 0.5))
        self.setFont(small)
        header = self.horizontalHeader()
        header.setFont(small)
        header.setMinimumSectionSize(0)  # the filler column may shrink to nothing in a narrow dock
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(columns), QHeaderView.ResizeMode.Stretch)
        if use_column:
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
            probe = QToolButton()
            probe.setText("Use")
            self.setColumnWidth(0, probe.sizeHint().width() + 6)

    def show_candidates(self, rows: Sequence[tuple[list[str], str]], use: Callable[[int], None] | None = None,
                        warn: Callable[[int, int], str] | None = None) -> None:
        """One pair of rows per candidate, best first: ``(values, note)`` (the values of the
        columns after the "Use" one, right-aligned; the note under them, green for the best,
        grey and italic for the others). ``use(n)`` is what the n-th "Use" button does;
        ``warn(n, col)`` a tooltip that marks a value red ("" for none)."""
        self.clearSpans()
        self.clearContents()
        self.setRowCount(2 * len(rows))
        first = 1 if self.use_column else 0
        for n, (values, note) in enumerate(rows):
            row = 2 * n
            if self.use_column and use is not None:
                button = QToolButton()
                button.setText("Use")
                button.setToolTip("Apply this row (one undo step)")
                button.clicked.connect(lambda _=False, k=n: use(k))
                self.setCellWidget(row, 0, button)
            for col, value in enumerate(values, start=first):
                item = QTableWidgetItem(value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if n == 0:
                    item.setBackground(BEST_FILL)
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                tip = warn(n, col) if warn is not None else ""
                if tip:
                    item.setForeground(QColor("#c62828"))
                    item.setToolTip(tip)
                self.setItem(row, col, item)
            self.set_note(row + 1, note, WINS_COLOR if n == 0 else LOSES_COLOR, italic=n > 0)
        self.fit()
        QTimer.singleShot(0, self, self.fit)  # again once the layout has given the table its width

    def mark_used(self, index: int) -> None:
        """The ``index``-th candidate's button says it is applied, the others "Use"."""
        for row in range(0, self.rowCount(), 2):
            widget = self.cellWidget(row, 0)
            if isinstance(widget, QToolButton):
                widget.setText("✓" if row == 2 * index else "Use")
                widget.setToolTip("Applied" if row == 2 * index else "Apply this row (one undo step)")

    def set_note(self, row: int, text: str, color: str, italic: bool) -> None:
        note = QLabel(text)
        note.setWordWrap(True)
        note.setToolTip(text)
        note.setFont(self.font())
        note.setStyleSheet(f"color: {color}; padding: 0 4px 3px 4px;{' font-style: italic;' if italic else ''}")
        self.setSpan(row, 0, 1, self.columnCount())
        self.setCellWidget(row, 0, note)

    def note(self, row: int) -> str:
        widget = self.cellWidget(row, 0)
        return widget.text() if isinstance(widget, QLabel) else ""

    def fit(self) -> None:
        """Row heights for the wrapped notes, then the table's own height."""
        # the note's span: the columns, the last one stretched to the viewport (which it may
        # not have been yet while the table is being resized)
        width = max(sum(self.columnWidth(c) for c in range(self.columnCount() - 1)), self.viewport().width())
        for row in range(self.rowCount()):
            widget = self.cellWidget(row, 0)
            if isinstance(widget, QLabel):
                self.setRowHeight(row, widget.heightForWidth(width) + 2)
            else:
                self.resizeRowToContents(row)
        height = self.horizontalHeader().height() + sum(self.rowHeight(r) for r in range(self.rowCount()))
        bar = self.horizontalScrollBar()
        extra = bar.sizeHint().height() if bar.maximum() > 0 else 0
        self.setFixedHeight(height + 2 * self.frameWidth() + extra + 2)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit()
