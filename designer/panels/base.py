"""Shared layout of metric panels: a titled table of values with units, then charts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from core.compare import Comparison
from core.metrics import metric
from designer.common.delta_text import delta_text
from designer.common.format import num, pct
from designer.common.style import tinted
from designer.panels.charts import LazyChart


class MetricsPanel(QScrollArea):
    """Rows of (label, value) plus optional charts, in a scroll area so nothing is clipped."""

    title = ""
    # Row label -> the path of the same metric in core/metrics.py (core.metrics.panel_paths):
    # those rows get a small "+12% better" mark beside their value while a baseline is set.
    metric_paths: dict[str, str] = {}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(10, 6, 10, 4)
        self._layout.setSpacing(6)
        self._message = QLabel()
        self._message.setWordWrap(True)
        self._message.setStyleSheet("color: #607d8b; font-style: italic;")
        self._layout.addWidget(self._message)
        self._grid_host = QWidget()
        self._grid = QGridLayout(self._grid_host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(14)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self._layout.addWidget(self._grid_host)
        self._charts = QVBoxLayout()
        self._charts.setSpacing(8)
        self._layout.addLayout(self._charts)
        self._layout.addStretch(1)
        self.setWidget(body)
        self._values: dict[str, QLabel] = {}
        self._names: dict[str, QLabel] = {}
        self._shape: list[tuple[str, bool]] = []
        self._rows_of: dict[str, int] = {}
        self._deltas: dict[str, QLabel] = {}
        self.show_message("Waiting for the first evaluation…")

    def add_chart(self, widget: QWidget) -> None:
        self._charts.addWidget(widget)

    def build_charts(self) -> None:
        """Make the plots of the panel's charts (charts.LazyChart): the panel is shown."""
        for chart in self.findChildren(LazyChart):
            chart.build()

    def dock_visibility_changed(self, shown: bool) -> None:
        """Connected to the dock's visibilityChanged: a tab raised shows its charts."""
        if shown:
            self.build_charts()

    def show_message(self, text: str) -> None:
        self._message.setText(text)
        self._message.setVisible(bool(text))

    def set_rows(self, rows: list[tuple[str, str] | tuple[str, str, str]]) -> None:
        """Show ``(label, value[, tooltip])`` rows; a row with value ``None`` is a section title.

        When the labels are the same as last time (every edit of a design), only the values
        change: no widgets are rebuilt, so panels update without a relayout."""
        shape = [(row[0], row[1] is None) for row in rows]
        if shape == self._shape and shape:
            for row in rows:
                if row[1] is None:
                    continue
                shown = self._values[row[0]]
                if shown.text() != row[1]:
                    shown.setText(row[1])
                tip = row[2] if len(row) > 2 else ""
                if shown.toolTip() != tip:
                    shown.setToolTip(tip)
                    self._names[row[0]].setToolTip(tip)
            return
        self._shape = shape
        self._names: dict[str, QLabel] = {}
        while self._grid.count():
            widget = self._grid.takeAt(0).widget()
            if widget is not None:
                widget.hide()  # deleteLater is deferred: hide now so old rows never overlap
                widget.deleteLater()
        self._values.clear()
        self._rows_of.clear()
        self._deltas.clear()  # their labels went with the grid's other widgets
        for r, row in enumerate(rows):
            label, value = row[0], row[1]
            tip = row[2] if len(row) > 2 else ""
            if value is None:
                header = tinted(QLabel(label), "#37474f", bold=True)
                header.setContentsMargins(0, 6, 0, 0)
                self._grid.addWidget(header, r, 0, 1, 2)
                continue
            name = tinted(QLabel(label), "#546e7a")
            shown = tinted(QLabel(value), "#263238", bold=True)
            shown.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # In a narrow dock a long value ("TP 8 · PP 8 · DP 16 · CP 1 · EP 1") wraps rather
            # than pushing the column past the edge, where it would be cut.
            shown.setWordWrap(True)
            if tip:
                name.setToolTip(tip)
                shown.setToolTip(tip)
            self._grid.addWidget(name, r, 0)
            self._grid.addWidget(shown, r, 1)
            self._values[label] = shown
            self._names[label] = name
            self._rows_of[label] = r

    def show_deltas(self, comparison: Comparison | None) -> None:
        """Beside each row of ``metric_paths``, its change against the baseline (the first
        design of ``comparison``); nothing, and the values as they were, when it is None."""
        marks = {}
        if comparison is not None:
            found = {m.path: (m, d) for m, d in zip(comparison.metrics, comparison.deltas[0])}
            for label, path in self.metric_paths.items():
                if label in self._values and path in found:
                    marks[label] = delta_text(*found[path])
        for label, shown in self._deltas.items():
            if label not in marks:
                shown.hide()
        for label, text in marks.items():
            shown = self._deltas.get(label)
            if shown is None:
                shown = QLabel()
                self._grid.addWidget(shown, self._rows_of[label], 2)
                self._deltas[label] = shown
            shown.setText(text.short)
            shown.setToolTip(f"{text.absolute} against {comparison.names[0]}")
            shown.setStyleSheet(f"color: {text.color}; font-size: 8pt;")
            shown.show()

    def delta(self, label: str) -> str:
        """The change shown beside ``label`` ("" when none; tests read panels through this)."""
        shown = self._deltas.get(label)
        return shown.text() if shown is not None and not shown.isHidden() else ""

    def message(self) -> str:
        """The note shown above the values ("" when none)."""
        return self._message.text() if self._message.isVisibleTo(self) else ""

    def value(self, label: str) -> str:
        """The text shown for ``label`` (tests read panels through this)."""
        return self._values[label].text()


def metric_label(path: str, panel: str = "") -> str:
    """The row label of metric ``path`` in the panel titled ``panel`` (core/metrics.py)."""
    return metric(path).in_panel(panel)


def metric_row(path: str, value: float | int | None, text: str | None = None, tip: str | None = None,
               panel: str = "") -> tuple[str, str, str]:
    """(label, value, tooltip) of metric ``path``: its panel label, ``text`` (default: the value
    in the metric's digits and unit) and ``tip`` (default: the metric's one-line explanation)."""
    m = metric(path)
    if text is None:
        text = pct(value, m.digits) if m.unit == "fraction" else num(value, m.digits, m.symbol)
    return m.in_panel(panel), text, m.explain if tip is None else tip
