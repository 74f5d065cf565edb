"""Sweep results in the window: File > Open Sweep Results... shows a results CSV
(``cluster-designer sweep``) as a scatter of any metric against any other, the Pareto front
highlighted, serving designs that miss their SLOs hollow, the skipped combinations listed apart
with their reason; hovering a point shows its parameters and clicking it opens that design
(rebuilt from the row's recipe, its workload with it) in the main window.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QHeaderView, QLabel,
                               QMessageBox, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from core.compare import METRICS, format_value
from core.errors import DesignError
from designer.common.qaction import make_action
from designer.common.window_fit import beside

if TYPE_CHECKING:
    from core.sweep.results import SweepTable

FILE_FILTER = "Sweep results (*.csv);;All files (*)"
POINT_COLOR = "#607d8b"
FRONT_COLOR = "#e65100"
POINT_SIZE, FRONT_SIZE = 7, 11
# A table item per cell: listing 100,000 skipped rows would take seconds and hundreds of MB
# for nobody to read; the rest are in the file.
MAX_LISTED_ERRORS = 2000
# Default axes: the trade-off the default objectives describe (training: capex against time to
# train; serving: $ per million output tokens against TPOT; both kinds or none: capex against
# facility power), the first pair every design drawn has values for, else the first with any.
DEFAULT_AXES = (("cost.capex_usd", "performance.training_days"),
                ("inference.tpot_ms", "inference.usd_per_million_output_tokens"),
                ("cost.capex_usd", "power.facility_kw"),
                ("counts.gpus", "bandwidth.bisection_tbit_s"))
_METRICS = {m.path: m for m in METRICS}


def axis_label(path: str, scale_word: str = "") -> str:
    metric = _METRICS.get(path)
    if metric is None:
        return f"{path} ({scale_word})" if scale_word else path
    unit = {"fraction": "fraction", "count": "", "ratio": ""}.get(metric.unit, metric.unit)
    unit = " ".join(part for part in (scale_word, unit) if part)
    return f"{metric.label} ({unit})" if unit else metric.label


def axis_scale(values: np.ndarray) -> tuple[float, str]:
    """(divisor, word) that keeps tick labels short: capex in millions of dollars reads
    better than 8.6e+08."""
    finite = np.abs(values[np.isfinite(values)])
    largest = finite.max() if len(finite) else 0.0
    for divisor, word in ((1e9, "billion"), (1e6, "million")):
        if largest >= 10 * divisor:
            return divisor, word
    return 1.0, ""


def _cell_text(path: str, value: float) -> str:
    metric = _METRICS.get(path)
    return format_value(value, metric.unit) if metric else f"{value:g}"


class SweepScatter(QWidget):
    """One results table: axis choosers, the scatter, and the table of skipped combinations.
    ``design_requested(row)`` when a point is clicked."""

    design_requested = Signal(int)

    def __init__(self, table: SweepTable, path: Path, parent=None):
        super().__init__(parent, Qt.WindowType.Window)
        self.table = table
        self.path = Path(path)
        self.setWindowTitle(f"Sweep results - {self.path.name}")
        self.resize(1100, 760)
        # Axes worth choosing: metrics with at least one value.
        self.axes = [c for c in table.numbers if np.isfinite(table.numbers[c]).any()]
        self.x_combo, self.y_combo = QComboBox(), QComboBox()
        for combo in (self.x_combo, self.y_combo):
            for path_ in self.axes:
                combo.addItem(axis_label(path_), path_)
            combo.setMaxVisibleItems(25)
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setMenuEnabled(False)
        self.plot.addLegend(offset=(-10, 10))
        self.points = pg.ScatterPlotItem(size=POINT_SIZE, brush=pg.mkBrush(POINT_COLOR), pen=None,
                                         hoverable=True, hoverSize=POINT_SIZE + 4, tip=self.tooltip,
                                         name="design")
        self.front = pg.ScatterPlotItem(size=FRONT_SIZE, brush=pg.mkBrush(FRONT_COLOR),
                                        pen=pg.mkPen("#bf360c"), symbol="d", hoverable=True,
                                        hoverSize=FRONT_SIZE + 4, tip=self.tooltip,
                                        name="Pareto front")
        for item in (self.points, self.front):
            self.plot.addItem(item)
            item.sigClicked.connect(self._clicked)
        self._filled = (pg.mkBrush(POINT_COLOR), pg.mkPen(None))
        # A design that misses its SLOs: the ordinary colour, hollow (there, but not serving as asked).
        self._hollow = (pg.mkBrush(None), pg.mkPen(POINT_COLOR, width=1.5))
        if table.misses_slo.any():  # the legend's sample only: those points are drawn by self.points
            sample = pg.ScatterPlotItem(size=POINT_SIZE, brush=self._hollow[0], pen=self._hollow[1])
            self.plot.plotItem.legend.addItem(sample, "misses its SLOs")
        self._scales = (1.0, 1.0)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.errors = self._error_table()

        chooser = QFormLayout()
        chooser.addRow("X axis", self.x_combo)
        chooser.addRow("Y axis", self.y_combo)
        top = QHBoxLayout()
        top.addLayout(chooser, 1)
        top.addWidget(self.summary, 2)
        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addLayout(top)
        upper_layout.addWidget(self.plot, 1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        skipped = int(table.failed.sum())
        listed = "" if skipped <= MAX_LISTED_ERRORS else f", the first {MAX_LISTED_ERRORS:,} listed"
        lower_layout.addWidget(QLabel(f"Skipped combinations ({skipped:,}{listed}): the generator or "
                                      "the engine refused them, or the job cannot run"))
        lower_layout.addWidget(self.errors)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([560, 200])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        x_path, y_path = self._default_axes()
        self.x_combo.setCurrentIndex(max(0, self.x_combo.findData(x_path)))
        self.y_combo.setCurrentIndex(max(0, self.y_combo.findData(y_path)))
        self.x_combo.currentIndexChanged.connect(self.redraw)
        self.y_combo.currentIndexChanged.connect(self.redraw)
        self.redraw()

    def _default_axes(self) -> tuple[str | None, str | None]:
        ran = ~self.table.failed
        both = {pair: np.isfinite(self.table.numbers[pair[0]]) & np.isfinite(self.table.numbers[pair[1]])
                for pair in DEFAULT_AXES if set(pair) <= set(self.axes)}
        for pair, known in both.items():
            if ran.any() and known[ran].all():
                return pair
        for pair, known in both.items():
            if known.any():
                return pair
        return (self.axes[0], self.axes[min(1, len(self.axes) - 1)]) if self.axes else (None, None)

    def _error_table(self) -> QTableWidget:
        rows = np.flatnonzero(self.table.failed)[:MAX_LISTED_ERRORS]
        params = [c for c in self.table.parameter_columns if c != "template"]
        widget = QTableWidget(len(rows), len(params) + 1)
        widget.setHorizontalHeaderLabels([*params, "reason"])
        widget.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        widget.verticalHeader().setVisible(False)
        for r, row in enumerate(rows):
            for c, column in enumerate([*params, "error"]):
                item = QTableWidgetItem(self.table.cells[column][row])
                item.setToolTip(item.text())  # a long reason is cut at the column's edge
                widget.setItem(r, c, item)
        widget.resizeColumnsToContents()
        # The reason takes the width the other columns leave and wraps there: the rows grow to
        # show all of it (cut at the column's edge, it could not be read).
        widget.setWordWrap(True)
        widget.horizontalHeader().setSectionResizeMode(len(params), QHeaderView.ResizeMode.Stretch)
        widget.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        return widget

    def set_axes(self, x_path: str, y_path: str) -> None:
        """Both axes at once: one redraw (drawing 100,000 points takes a second)."""
        for combo, path in ((self.x_combo, x_path), (self.y_combo, y_path)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(path))
            combo.blockSignals(False)
        self.redraw()

    def plotted(self) -> tuple[np.ndarray, np.ndarray]:
        """Row numbers drawn as ordinary points and as Pareto points on the current axes: rows
        without an error that have both values."""
        x, y = self.table.numbers[self.x_path], self.table.numbers[self.y_path]
        shown = np.isfinite(x) & np.isfinite(y) & ~self.table.failed
        on_front = shown & self.table.pareto
        return np.flatnonzero(shown & ~on_front), np.flatnonzero(on_front)

    @property
    def x_path(self) -> str:
        return self.x_combo.currentData()

    @property
    def y_path(self) -> str:
        return self.y_combo.currentData()

    def redraw(self) -> None:
        if not self.axes:
            self.summary.setText("No design in this file has a metric to plot.")
            return
        ordinary, front = self.plotted()
        x_scale, x_word = axis_scale(self.table.numbers[self.x_path])
        y_scale, y_word = axis_scale(self.table.numbers[self.y_path])
        self._scales = (x_scale, y_scale)
        x, y = self.display_point(np.arange(self.table.rows))
        missed = self.table.misses_slo[ordinary]
        if missed.any():  # a brush and pen per point only then: a uniform one draws faster
            looks = [self._hollow if m else self._filled for m in missed]
            self.points.setData(x=x[ordinary], y=y[ordinary], data=ordinary,
                                brush=[b for b, _ in looks], pen=[p for _, p in looks])
        else:
            self.points.setData(x=x[ordinary], y=y[ordinary], data=ordinary,
                                brush=self._filled[0], pen=self._filled[1])
        self.front.setData(x=x[front], y=y[front], data=front)
        self.plot.setLabel("bottom", axis_label(self.x_path, x_word))
        self.plot.setLabel("left", axis_label(self.y_path, y_word))
        missing = int((~self.table.failed).sum()) - len(ordinary) - len(front)
        text = (f"{self.table.rows:,} designs: {len(ordinary) + len(front):,} plotted, "
                f"{len(front):,} on the Pareto front (of the sweep's objectives), "
                f"{int(self.table.failed.sum()):,} skipped (listed below)")
        if missing:
            text += f", {missing:,} without a value on these axes"
        if missed.any():
            text += f", {int(missed.sum()):,} plotted miss their serving SLOs (hollow, never on the front)"
        self.summary.setText(text + ". Hover a point for its parameters; click it to open the design.")

    def display_point(self, rows):
        """Where rows are drawn: their values on the two axes, divided by the axes' scales."""
        return (self.table.numbers[self.x_path][rows] / self._scales[0],
                self.table.numbers[self.y_path][rows] / self._scales[1])

    def tooltip(self, x: float, y: float, data: int) -> str:
        row = int(data)
        lines = [f"{name}: {value}" for name, value in self.table.parameters(row).items()
                 if value != "" and name != "template"]
        x_value, y_value = self.table.numbers[self.x_path][row], self.table.numbers[self.y_path][row]
        lines += [f"{axis_label(self.x_path)}: {_cell_text(self.x_path, x_value)}",
                  f"{axis_label(self.y_path)}: {_cell_text(self.y_path, y_value)}"]
        if self.table.pareto[row]:
            lines.append("on the Pareto front")
        if self.table.misses_slo[row]:
            lines.append("misses its SLOs (TTFT or TPOT), so never on the front")
        return "\n".join(lines)

    def _clicked(self, _item, points, _event=None) -> None:
        if len(points):
            self.design_requested.emit(int(points[0].data()))


class SweepResultsController(QObject):
    """The File > Open Sweep Results... action and the result windows it opened."""

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.views: list[SweepScatter] = []
        self.open_action = make_action(
            window, "Open Sweep &Results…", self.open_dialog,
            tip="Show a cluster-designer sweep results file as a scatter; click a point to open its design")

    def open_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self._window, "Open sweep results", "", FILE_FILTER)
        if name:
            self.open_results(Path(name))

    def open_results(self, path: Path) -> SweepScatter | None:
        from core.sweep.results import read_results  # noqa: PLC0415 - not at every window start

        try:
            table = read_results(path)
        except DesignError as exc:
            QMessageBox.critical(self._window, "Cannot open sweep results", str(exc))
            return None
        view = SweepScatter(table, path, self._window)
        view.design_requested.connect(lambda row, v=view: self.open_row(v, row))
        view.destroyed.connect(lambda _=None, v=view: self.views.remove(v) if v in self.views else None)
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.views.append(view)
        # Beside the main window, on its screen (Qt would put it at the screen's corner).
        window = self._window
        view.setGeometry(beside(window.frameGeometry(), view.size(), window.screen().availableGeometry()))
        view.show()
        return view

    def open_row(self, view: SweepScatter, row: int) -> bool:
        """Open the design of ``row`` in the main window, untitled (Save asks where), after
        asking to save unsaved work as File > Open does."""
        window = self._window
        if not window.maybe_save():
            return False
        from core.sweep.recipe import design_from_recipe  # noqa: PLC0415 - generators: on demand

        try:
            design = design_from_recipe(view.table.recipe(row), window.catalog)
        except DesignError as exc:
            QMessageBox.critical(window, "Cannot open this design", f"{view.path.name}: {exc}")
            return False
        window.recovery.discard()
        window.load_design(design, None)
        window.statusBar().showMessage(
            f"Opened row {row} of {view.path.name} ({design.name}); File > Save As keeps it", 10_000)
        window.raise_()
        window.activateWindow()
        return True
