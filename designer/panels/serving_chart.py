"""The throughput-latency chart of a serving deployment (core.analysis.serving.CurvePoint): one
point per decode batch, interactivity (tokens/s per user, 1000 / TPOT at load) across, served
output tokens per GPU (each request's prefill counted) up.

Points that meet both SLOs are filled, the others hollow; the batch the deployment runs at is
ringed; the TPOT SLO is the vertical line at 1000 / TPOT tokens/s per user (points left of it
stream too slowly). Hovering a point shows its batch, TTFT, TPOT and tokens per second.

A disaggregated deployment's points are its decode pool at each batch per decode replica, the
prefill pool as deployed: past the batch where the prefill pool limits, the served tokens stay
at what it can prefill, which the chart draws as a dotted line (``curve_marks``).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from designer.common import style
from designer.panels.charts import CHART_HEIGHT, labelled_plot

POINT_COLOR = style.SERIES[0]
CHOSEN_COLOR = "#c62828"
SLO_COLOR = "#ef6c00"
LIMIT_COLOR = "#6a1b9a"
X_LABEL = "tokens/s per user"
# A pool limit further above the curve than this is named in the legend, not drawn (drawn, it
# would squash the curve against the axis).
LIMIT_DRAWN_UP_TO = 2.0


def throughput(curve) -> tuple[list[float], str]:
    """(a value per point, what they are) on the chart's y axis: output tokens per second per
    GPU (each request's prefill counted), or decode tokens per second per GPU when the curve
    does not have them."""
    if all(p.output_tokens_per_s_per_gpu is not None for p in curve):
        return [p.output_tokens_per_s_per_gpu for p in curve], "output tokens/s per GPU"
    return [p.decode_tokens_per_s_per_gpu for p in curve], "decode tokens/s per GPU"


def point_tooltip(point) -> str:
    (value,), what = throughput([point])
    slo = "meets both SLOs" if point.meets_slo else "misses an SLO"
    return (f"batch {point.batch:,} ({slo})\nTTFT {point.ttft_ms:,.0f} ms · TPOT {point.tpot_ms:,.1f} ms at load\n"
            f"{point.tokens_per_s_per_user:,.1f} {X_LABEL}\n{value:,.0f} {what}\n"
            f"{point.decode_tokens_per_s_per_gpu:,.0f} decode tokens/s per GPU")


def curve_marks(inference) -> dict:
    """What ``set_curve`` draws besides the points for ``inference`` (a running result): for a
    disaggregated deployment, the served output tokens/s per GPU its prefill pool allows (the
    prefill pool's requests/s x the mean output tokens, over both pools' GPUs)."""
    dis = inference.disaggregated
    if dis is None:
        return {}
    workload = inference.workload
    limit = dis.prefill.requests_per_s * workload.requests.mean_output_tokens / workload.deployment.gpus
    return {"pool_limit": limit}


class ThroughputLatencyChart(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        # made with the first curve (``plot``): a training workload never shows the chart, and
        # a pyqtgraph plot is ~20 ms of the window's start
        self._plot: pg.PlotWidget | None = None
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self._layout.addWidget(self.legend)
        self.points: list = []  # the curve as drawn (tests read it)
        self.scatter: pg.ScatterPlotItem | None = None
        self.slo_x: float | None = None
        self.limit_y: float | None = None  # the prefill pool's limit, where drawn

    @property
    def plot(self) -> pg.PlotWidget:
        if self._plot is None:
            self._plot = labelled_plot("Throughput against interactivity",
                                       "output tokens/s per GPU", X_LABEL)
            self._plot.setMinimumHeight(CHART_HEIGHT + 40)
            self._plot.setMaximumHeight(CHART_HEIGHT + 140)
            self._plot.showGrid(x=True, y=True, alpha=0.25)
            self._layout.insertWidget(0, self._plot)
        return self._plot

    def set_curve(self, curve, chosen_batch: int | None, tpot_slo_ms: float | None,
                  pool_limit: float | None = None) -> None:
        """Draw ``curve`` (CurvePoints; empty: nothing to draw), ring ``chosen_batch`` and draw
        the TPOT SLO line; ``pool_limit`` (a disaggregated deployment, ``curve_marks``): the
        served output tokens/s per GPU its prefill pool allows."""
        self.points = sorted(curve, key=lambda p: p.batch)
        self.scatter = None
        self.slo_x = None
        self.limit_y = None
        if not self.points:
            if self._plot is not None:
                self._plot.clear()
            self.legend.setText("")
            return
        plot = self.plot
        plot.clear()
        ys, what = throughput(self.points)
        plot.setLabel("left", what, **{"font-size": "9pt"})
        xs = [p.tokens_per_s_per_user for p in self.points]
        plot.plot(xs, ys, pen=pg.mkPen(QColor(POINT_COLOR).lighter(150), width=1.5))
        self.scatter = pg.ScatterPlotItem(
            spots=[{"pos": (x, y), "data": p, "size": 9, "symbol": "o",
                    "pen": pg.mkPen(POINT_COLOR, width=1.6),
                    "brush": pg.mkBrush(POINT_COLOR if p.meets_slo else "#ffffff")}
                   for x, y, p in zip(xs, ys, self.points)],
            hoverable=True, hoverSize=12, tip=lambda x, y, data: point_tooltip(data))
        plot.addItem(self.scatter)
        chosen = next((i for i, p in enumerate(self.points) if p.batch == chosen_batch), None)
        if chosen is not None:
            cx, cy = xs[chosen], ys[chosen]
            plot.plot([cx], [cy], pen=None, symbol="o", symbolSize=18, symbolBrush=None,
                      symbolPen=pg.mkPen(CHOSEN_COLOR, width=2))
            # above the point (the space beyond the curve, which falls to the right), to its
            # left when it is on the right half
            right = cx > (min(xs) + max(xs)) / 2
            label = pg.TextItem(f"batch {chosen_batch:,}", color=QColor(CHOSEN_COLOR),
                                anchor=(1.0 if right else 0.0, 1.25))
            label.setPos(cx, cy)
            plot.addItem(label)
        x_low, x_high = min(xs), max(xs)
        if tpot_slo_ms:
            self.slo_x = 1000.0 / tpot_slo_ms
            plot.addItem(pg.InfiniteLine(
                pos=self.slo_x, angle=90, pen=pg.mkPen(SLO_COLOR, width=1.4, style=Qt.PenStyle.DashLine),
                label=f"TPOT SLO {tpot_slo_ms:,.0f} ms", labelOpts={"position": 0.06, "color": SLO_COLOR,
                                                                 "anchors": [(0, 0), (0, 0)]}))
            x_low, x_high = min(x_low, self.slo_x), max(x_high, self.slo_x)
        span = (x_high - x_low) or x_high or 1.0
        plot.setXRange(max(0.0, x_low - span * 0.06), x_high + span * 0.06, padding=0)
        top = max(ys)
        legend = [f"<span style='color:{POINT_COLOR}'>●</span> meets both SLOs",
                  f"<span style='color:{POINT_COLOR}'>○</span> misses one",
                  f"<span style='color:{CHOSEN_COLOR}'>◯</span> the deployment's batch",
                  f"<span style='color:{SLO_COLOR}'>┆</span> TPOT SLO (met to its right)"]
        note = ""
        if pool_limit is not None:
            note = "Each point: the decode pool at that batch per replica, the prefill pool as deployed.<br>"
            if pool_limit <= top * LIMIT_DRAWN_UP_TO:
                self.limit_y = pool_limit
                top = max(top, pool_limit)
                plot.addItem(pg.InfiniteLine(
                    pos=pool_limit, angle=0, pen=pg.mkPen(LIMIT_COLOR, width=1.2, style=Qt.PenStyle.DotLine),
                    label="prefill pool's limit", labelOpts={"position": 0.98, "color": LIMIT_COLOR,
                                                             "anchors": [(1, 1), (1, 1)]}))
                legend.append(f"<span style='color:{LIMIT_COLOR}'>┈</span> what the prefill pool can feed")
            else:
                legend.append(f"the prefill pool could feed {pool_limit:,.0f} tokens/s per GPU (off the chart)")
        plot.setYRange(0.0, top * 1.12 or 1.0, padding=0)
        self.legend.setText(note + " &nbsp; ".join(legend))
        self.legend.setToolTip("Hover a point for its batch, TTFT, TPOT and tokens per second")
