"""pyqtgraph chart widgets with labelled axes: bars by category, stacked bar, line."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from designer.common import style

pg.setConfigOptions(antialias=True, background="w", foreground="#37474f")

CHART_HEIGHT = 166
STACKED_BAR_HEIGHT = 80
MISSING_COLOR = "#78909c"  # x values without a value ("does not fit")
_TICK_FONT = QFont()
_TICK_FONT.setPointSizeF(8)


def labelled_plot(title: str, left: str, bottom: str) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setMinimumHeight(CHART_HEIGHT)
    plot.setMaximumHeight(CHART_HEIGHT + 60)
    plot.setTitle(title, size="10pt", color="#263238")
    plot.setLabel("left", left, **{"font-size": "9pt"})
    if bottom:
        plot.setLabel("bottom", bottom, **{"font-size": "9pt"})
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setTickFont(_TICK_FONT)
        axis.setPen(pg.mkPen("#90a4ae"))
        axis.setTextPen(pg.mkPen("#37474f"))
    plot.showGrid(x=False, y=True, alpha=0.25)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    return plot


class LazyChart(QWidget):
    """A chart whose pyqtgraph plot is made when first needed (``plot``, or ``build()`` when its
    panel is first raised): a pyqtgraph plot costs ~15 ms to make, and the window opens with
    most panels behind tabs. Until then a placeholder of the plot's height keeps the layout;
    data set meanwhile is kept and drawn when the plot is made."""

    def __init__(self, min_height_px: int, max_height_px: int, parent=None):
        super().__init__(parent)
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(2)
        self._placeholder = QWidget()
        self._placeholder.setMinimumHeight(min_height_px)
        self._placeholder.setMaximumHeight(max_height_px)
        self._box.addWidget(self._placeholder)
        self._plot: pg.PlotWidget | None = None
        self._stale = False  # data set since the plot was last drawn
        self._plot_shown = True

    def _make_plot(self) -> pg.PlotWidget:
        raise NotImplementedError

    def _draw(self, plot: pg.PlotWidget) -> None:
        raise NotImplementedError

    @property
    def plot(self) -> pg.PlotWidget:
        if self._plot is None:
            self._plot = self._make_plot()
            self._plot.setVisible(self._plot_shown)
            self._box.replaceWidget(self._placeholder, self._plot)
            self._placeholder.deleteLater()
        if self._stale:
            self._stale = False
            self._draw(self._plot)
        return self._plot

    def build(self) -> None:
        """Make the plot now (its panel is shown) and draw what it was given."""
        _ = self.plot

    def _data_changed(self) -> None:
        self._stale = True
        if self._plot is not None:
            self.build()

    def _show_plot(self, shown: bool) -> None:
        self._plot_shown = shown
        (self._plot if self._plot is not None else self._placeholder).setVisible(shown)


class BarChart(LazyChart):
    """Vertical bars, one per category, value printed on each bar."""

    def __init__(self, title: str, unit_label: str, parent=None):
        super().__init__(CHART_HEIGHT, CHART_HEIGHT + 60, parent)
        self._title, self._unit = title, unit_label
        self.categories: list[str] = []
        self.values: list[float] = []
        self._colors: list[str] | None = None
        self._fmt = "{:,.0f}"

    def _make_plot(self) -> pg.PlotWidget:
        return labelled_plot(self._title, self._unit, "")

    def set_unit(self, label: str) -> None:
        self._unit = label
        if self._plot is not None:
            self._plot.setLabel("left", label, **{"font-size": "9pt"})

    def set_data(self, categories: list[str], values: list[float], colors: list[str] | None = None,
                 fmt: str = "{:,.0f}") -> None:
        self.categories, self.values = list(categories), list(values)
        self._colors, self._fmt = colors, fmt
        self._data_changed()

    def _draw(self, plot: pg.PlotWidget) -> None:
        categories, values, colors, fmt = self.categories, self.values, self._colors, self._fmt
        plot.clear()
        if not values:
            return
        colors = colors or [style.SERIES[i % len(style.SERIES)] for i in range(len(values))]
        labels = [fmt.format(v) if math.isfinite(v) else "n/a" for v in values]
        values = [v if math.isfinite(v) else 0.0 for v in values]  # no path: nothing to draw
        x = np.arange(len(values))
        bars = pg.BarGraphItem(x=x, height=values, width=0.62,
                               brushes=[pg.mkBrush(c) for c in colors], pens=[pg.mkPen(None)] * len(values))
        plot.addItem(bars)
        top = max(values) if max(values) > 0 else 1.0
        for xi, v, label in zip(x, values, labels):
            text = pg.TextItem(label, color="#263238", anchor=(0.5, 1.0))
            text.setFont(_TICK_FONT)
            text.setPos(float(xi), v + top * 0.02)
            plot.addItem(text)
        plot.getAxis("bottom").setTicks([[(float(i), c) for i, c in enumerate(categories)]])
        plot.setXRange(-0.6, len(values) - 0.4, padding=0)
        plot.setYRange(0, top * 1.18, padding=0)


class StackedBar(LazyChart):
    """One horizontal bar split into parts, with a legend that names each part and its value."""

    def __init__(self, title: str, unit_label: str, parent=None):
        super().__init__(STACKED_BAR_HEIGHT, STACKED_BAR_HEIGHT + 16, parent)
        # The unit goes in the title: an axis label would cost a line under a one-bar chart.
        self._title = f"{title} ({unit_label})"
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self._box.addWidget(self.legend)
        self.parts: list[tuple[str, float]] = []

    def _make_plot(self) -> pg.PlotWidget:
        plot = labelled_plot(self._title, "", "")
        plot.setMinimumHeight(STACKED_BAR_HEIGHT)
        plot.setMaximumHeight(STACKED_BAR_HEIGHT + 16)
        plot.getAxis("left").setTicks([[]])
        plot.showGrid(x=True, y=False, alpha=0.25)
        return plot

    def set_data(self, parts: list[tuple[str, float]], fmt) -> None:
        unbounded = [name for name, v in parts if not math.isfinite(v)]
        self.parts = [(name, v) for name, v in parts if math.isfinite(v) and v > 0]
        total = sum(v for _, v in self.parts)
        self._show_plot(not unbounded)
        self._data_changed()
        if unbounded:
            # A part without a network path takes forever; a bar cannot show it, words can.
            self.legend.setText(f"<span style='color:#c62828'>{', '.join(unbounded)}: unbounded "
                                "(the GPUs of a group are not connected)</span>")
            return
        if total <= 0:
            self.legend.setText("")
            return
        items = []
        for i, (name, v) in enumerate(self.parts):
            color = style.SERIES[i % len(style.SERIES)]
            name = name.replace(" ", "&nbsp;")
            items.append(f"<span style='white-space:nowrap'><span style='color:{color}; font-size:12pt'>■</span>"
                         f"&nbsp;{name}&nbsp;<b>{fmt(v).replace(' ', '&nbsp;')}</b>&nbsp;({v / total * 100:.0f}&nbsp;%)</span>")
        self.legend.setText(" &nbsp; ".join(items))

    def _draw(self, plot: pg.PlotWidget) -> None:
        plot.clear()
        total = sum(v for _, v in self.parts)
        if total <= 0 or not self._plot_shown:  # unbounded: the legend says so
            return
        x0 = 0.0
        for i, (_name, v) in enumerate(self.parts):
            color = style.SERIES[i % len(style.SERIES)]
            plot.addItem(pg.BarGraphItem(x0=[x0], y=[0], width=[v], height=0.6, brush=pg.mkBrush(color),
                                         pen=pg.mkPen("#ffffff", width=1)))
            x0 += v
        plot.setXRange(0, total * 1.02, padding=0)
        plot.setYRange(-0.5, 0.5, padding=0)


def compact(value: float) -> str:
    """1024 -> "1,024", 16384 -> "16k", 0.5 -> "0.5": short tick labels."""
    if value >= 10_000:
        return f"{value / 1000:,.0f}k"
    if value >= 1:
        return f"{value:,.0f}"
    return f"{value:g}"


def _log_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 steps between ``lo`` and ``hi``, thinned to decades when there are too many."""
    if lo <= 0 or hi <= 0:
        return []
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
             for m in (1, 2, 5)]
    ticks = [t for t in ticks if lo <= t <= hi]
    if len(ticks) > 8:
        ticks = [t for t in ticks if math.log10(t).is_integer()] or ticks[::3]
    return ticks


def _spread(values: list[float], min_gap: float = 0.07) -> list[float]:
    """Drop ticks closer than ``min_gap`` of the log span to the previous one (no overlaps);
    the last value (usually the highlighted one) is kept."""
    if len(values) < 3:
        return values
    logs = [math.log10(v) for v in values]
    span = (logs[-1] - logs[0]) or 1.0
    kept = [len(values) - 1]
    for i in range(len(values) - 2, -1, -1):
        if (logs[kept[-1]] - logs[i]) / span >= min_gap:
            kept.append(i)
    return [values[i] for i in sorted(kept)]


class LineChart(LazyChart):
    """A line with markers; optional highlighted point with a caption; x values without a y
    (None: e.g. a job size that does not fit) break the line and can be marked on the axis.

    With ``log_x`` the x values are plotted as log10 with our own tick labels: pyqtgraph's
    log-axis labels ("2·10³") crowd and overlap in a narrow dock.
    """

    def __init__(self, title: str, left: str, bottom: str, log_x: bool = False, parent=None):
        super().__init__(CHART_HEIGHT, CHART_HEIGHT + 60, parent)
        self._labels = (title, left, bottom)
        self._log_x = log_x
        self.x: list[float] = []
        self.y: list[float | None] = []
        self.marked: tuple[float, float] | None = None
        self.missing: list[float] = []  # x values drawn as "no value" crosses
        self._style: dict = {}

    def _make_plot(self) -> pg.PlotWidget:
        plot = labelled_plot(*self._labels)
        plot.showGrid(x=True, y=True, alpha=0.25)
        return plot

    def _tx(self, value: float) -> float:
        return math.log10(value) if self._log_x and value > 0 else value

    def set_data(self, x: list[float], y: list[float | None], symbols: bool = True,
                 mark: tuple[float, float] | None = None, mark_text: str = "",
                 y_range: tuple[float, float] | None = None, ticks_at_data: bool = False,
                 missing_text: str = "") -> None:
        """Plot ``y`` against ``x``. A y of None or not finite has no value: the line breaks
        there, and with ``missing_text`` the x gets a grey cross on the axis and that caption
        (never a point drawn at 0)."""
        self.x, self.y, self.marked = list(x), list(y), mark
        points = self._points()
        has_value = [b is not None and math.isfinite(b) for _, b in points]
        self.missing = [a for (a, _), ok in zip(points, has_value) if not ok] if missing_text else []
        self._style = {"symbols": symbols, "mark_text": mark_text, "y_range": y_range,
                       "ticks_at_data": ticks_at_data, "missing_text": missing_text}
        self._data_changed()

    def _points(self) -> list[tuple[float, float | None]]:
        points = [(a, b) for a, b in zip(self.x, self.y) if math.isfinite(a) and (a > 0 or not self._log_x)]
        points.sort(key=lambda p: p[0])
        return points

    def _draw(self, plot: pg.PlotWidget) -> None:
        symbols, mark_text, y_range, ticks_at_data, missing_text = (
            self._style[k] for k in ("symbols", "mark_text", "y_range", "ticks_at_data", "missing_text"))
        mark = self.marked
        plot.clear()
        points = self._points()
        has_value = [b is not None and math.isfinite(b) for _, b in points]
        valued = [(a, b) for (a, b), ok in zip(points, has_value) if ok]
        if not valued and not self.missing:
            return
        run: list[tuple[float, float]] = []
        for (a, b), ok in zip([*points, (math.nan, None)], [*has_value, False]):
            if ok:
                run.append((self._tx(a), b))
                continue
            if run:  # one line per stretch of sizes that have a value
                plot.plot([p[0] for p in run], [p[1] for p in run], pen=pg.mkPen(style.SERIES[0], width=2.2),
                          symbol="o" if symbols else None, symbolSize=7,
                          symbolBrush=pg.mkBrush(style.SERIES[0]), symbolPen=pg.mkPen("#ffffff"))
            run = []
        shown_x = [a for a, _ in valued] + self.missing
        if self._log_x:
            values = _spread(sorted(set(shown_x))) if ticks_at_data else _log_ticks(min(shown_x), max(shown_x))
            plot.getAxis("bottom").setTicks([[(self._tx(v), compact(v)) for v in values], []])
        px = [self._tx(v) for v in shown_x]
        span = (max(px) - min(px)) or 1.0
        plot.setXRange(min(px) - span * 0.04, max(px) + span * 0.04, padding=0)
        if self.missing:
            # On the floor of the plot, where no value could be mistaken for one.
            floor = y_range[0] if y_range is not None else min((b for _, b in valued), default=0.0)
            mx = [self._tx(v) for v in self.missing]
            plot.plot(mx, [floor] * len(mx), pen=None, symbol="x", symbolSize=12,
                      symbolBrush=pg.mkBrush(MISSING_COLOR), symbolPen=pg.mkPen(MISSING_COLOR))
            right = (mx[0] - min(px)) / span > 0.6
            caption = pg.TextItem(missing_text, color=QColor(MISSING_COLOR), anchor=(1.05 if right else -0.05, 1.1))
            caption.setFont(_TICK_FONT)
            caption.setPos(mx[0], floor)
            plot.addItem(caption)
        if mark is not None:
            mx = self._tx(mark[0])
            plot.addItem(pg.InfiniteLine(pos=mx, angle=90,
                                         pen=pg.mkPen("#c62828", width=1.2, style=Qt.PenStyle.DashLine)))
            plot.plot([mx], [mark[1]], pen=None, symbol="star", symbolSize=16,
                      symbolBrush=pg.mkBrush("#c62828"), symbolPen=pg.mkPen("#ffffff"))
            if mark_text:
                # Keep the caption inside the plot: right-align it when the mark is on the right.
                right = (mx - min(px)) / span > 0.6
                label = pg.TextItem(mark_text, color=QColor("#c62828"), anchor=(1.05 if right else -0.05, 1.2))
                label.setFont(_TICK_FONT)
                label.setPos(mx, mark[1])
                plot.addItem(label)
        if y_range is not None:
            plot.setYRange(*y_range, padding=0.02)
