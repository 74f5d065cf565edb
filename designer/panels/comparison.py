"""The Comparison panel: the current design against the baseline, one sentence and a table of
every headline metric (baseline, current, change) grouped by section."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QHeaderView, QLabel, QScrollArea, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from core.compare import Comparison
from designer.common.delta_text import bare_value, delta_text

NO_BASELINE = ("No baseline. Design → Pin as Baseline keeps the current evaluation; "
               "Design → Compare with File… evaluates another project (or reads a saved evaluation). "
               "This panel then compares every later evaluation with it.")
COLUMNS = ("Metric", "Baseline", "Current", "Change", "")
# The unit is said once, in the metric's column; values keep only what makes them readable
# ("41.0%" for a fraction, "$12,345" for money).
UNIT_SHOWN = {"fraction": "%", "count": "", "USD": ""}
# The table keeps room for a dozen rows; in a shorter dock the panel scrolls as a whole (like
# the metric panels), so the tab group never asks the window for more height than they do.
TABLE_MIN_HEIGHT_PX = 260


class ComparisonPanel(QScrollArea):
    title = "Comparison"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 6, 10, 4)
        layout.setSpacing(6)
        self._sentence = QLabel()
        self._sentence.setWordWrap(True)
        self._table = QTreeWidget()
        self._table.setColumnCount(len(COLUMNS))
        self._table.setHeaderLabels(COLUMNS)
        self._table.setRootIsDecorated(False)
        self._table.setUniformRowHeights(True)
        self._table.setAlternatingRowColors(True)
        self._table.setMinimumHeight(TABLE_MIN_HEIGHT_PX)
        header = self._table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The metric's name takes what the numbers leave (elided, whole in its tooltip), so the
        # change and its verdict stay in view in a narrow dock.
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        layout.addWidget(self._sentence)
        layout.addWidget(self._table, 1)
        layout.addStretch(0)  # without a baseline the note sits at the top
        self.setWidget(body)
        self._rows: dict[str, QTreeWidgetItem] = {}
        self.show_comparison(None)

    def show_comparison(self, comparison: Comparison | None) -> None:
        """The table for ``comparison`` (baseline first, current design second), or how to set
        a baseline when there is none."""
        self._table.clear()
        self._rows.clear()
        if comparison is None:
            self._sentence.setText(NO_BASELINE)
            self._sentence.setToolTip("")
            self._sentence.setStyleSheet("color: #607d8b; font-style: italic;")
            self._table.hide()
            return
        self._sentence.setText(comparison.summary[1])
        self._sentence.setToolTip(comparison.summary[0])
        self._sentence.setStyleSheet("color: #263238;")
        # The names are long ("DGX H100 SuperPOD, 4 SU (1,024 GPUs)"): in the header's
        # tooltips and the sentence, not as column titles that would push the change out of view.
        for column, name in ((1, comparison.names[0]), (2, comparison.names[1])):
            self._table.headerItem().setToolTip(column, name)
        section_item = None
        for metric, values, d in zip(comparison.metrics, comparison.values, comparison.deltas[0]):
            if section_item is None or section_item.text(0) != metric.section.capitalize():
                section_item = QTreeWidgetItem(self._table, [metric.section.capitalize()])
                font = section_item.font(0)
                font.setBold(True)
                section_item.setFont(0, font)
                section_item.setFirstColumnSpanned(True)
            unit = UNIT_SHOWN.get(metric.unit, metric.unit)
            text = delta_text(metric, d, with_unit=False)
            change = text.absolute if text.absolute == "n/a" else f"{text.absolute} ({text.relative})"
            item = QTreeWidgetItem(section_item, [
                f"{metric.label} ({unit})" if unit and unit not in metric.label else metric.label,
                bare_value(values[0], metric.unit), bare_value(values[1], metric.unit),
                change, text.verdict])
            brush = QBrush(QColor(text.color))
            for column in (3, 4):
                item.setForeground(column, brush)
            item.setToolTip(0, f"{item.text(0)}: {metric.explain} ({metric.path})" if metric.explain
                            else f"{item.text(0)}: {metric.path}")
            self._rows[metric.path] = item
        self._table.expandAll()
        self._table.show()

    def scroll_to_section_of(self, path: str) -> None:
        """Bring the section holding metric ``path`` to the top of the table."""
        self._table.scrollToItem(self._rows[path].parent(), QAbstractItemView.ScrollHint.PositionAtTop)

    # --- read by tests -----------------------------------------------------------------------
    def sentence(self) -> str:
        return self._sentence.text()

    def row(self, path: str) -> tuple[str, ...]:
        """The texts of the row for metric ``path`` ("performance.mfu"): label, baseline,
        current, change ("−512 (−50%)"), verdict ("▼ worse")."""
        item = self._rows[path]
        return tuple(item.text(c) for c in range(len(COLUMNS)))

    def row_color(self, path: str) -> str:
        return self._rows[path].foreground(4).color().name()

    def paths(self) -> list[str]:
        return list(self._rows)

    def sections(self) -> list[str]:
        return [self._table.topLevelItem(i).text(0) for i in range(self._table.topLevelItemCount())]
