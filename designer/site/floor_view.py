"""The Floor view: halls, rows and racks from above, coloured by kW or cooling, with the cables
between rows by medium (core/site). Clicking a rack selects what it holds on the canvas; a
selection on the canvas lights up the racks holding it; dragging a rack to another slot moves
it (one undo step; the evaluation runs again and the cables follow).

One item paints every rack from the site's arrays (QPainter.drawRects per colour), so a site
of 36,000 racks is one item, not 36,000."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDockWidget, QFileDialog, QGraphicsItem, QGraphicsScene,
                               QGraphicsView, QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout,
                               QWidget)

from core.cooling import COOLING_TYPES
from core.errors import DesignError
from core.project import atomic_write_bytes, atomic_write_text
from core.site.export import MEDIUM_COLOURS, floor_svg
from core.site.media import MEDIA
from core.site.templates import RACK_CLASSES

PX_PER_M = 20.0
COOLING_COLOURS = {"air": "#9ecae1", "rear-door": "#6baed6", "cold-plate": "#3182bd",
                   "immersion": "#08519c"}
KW_STEPS = 8  # colour buckets of rack kW


def kw_colour(level: float) -> QColor:
    """Green (light racks) to red (the densest)."""
    return QColor(int(255 * level), int(200 * (1 - level)) + 40, int(120 * (1 - level)))


class _FloorItem(QGraphicsItem):
    def __init__(self):
        super().__init__()
        self.site = None
        self.colour_by = "kw"
        self.show_cables = True
        self.highlight = np.zeros(0, dtype=bool)
        self.selected_rack = -1
        self._bounds = QRectF()

    def set_site(self, site) -> None:
        self.prepareGeometryChange()
        self.site = site
        lay = site.layout
        n = site.halls or 1
        right = max(float(x + h.width_m) for x, h in zip(lay.hall_x_m[:n], lay.halls[:n]))
        bottom = max(float(y + h.depth_m) for y, h in zip(lay.hall_y_m[:n], lay.halls[:n]))
        self._bounds = QRectF(-20, -30, right * PX_PER_M + 40, bottom * PX_PER_M + 60)
        if len(self.highlight) != site.racks:
            self.highlight = np.zeros(site.racks, dtype=bool)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def rack_rect(self, r: int) -> QRectF:
        s = self.site
        w = s.spec.rack_width_m
        d = min(1.2, s.spec.row_pitch_m / 2)
        return QRectF((s.layout.x_m[r] - w / 2) * PX_PER_M, (s.layout.y_m[r] - d / 2) * PX_PER_M,
                      w * PX_PER_M - 1, d * PX_PER_M)

    def rack_at(self, point: QPointF) -> int:
        s = self.site
        if s is None or not s.racks:
            return -1
        dx = np.abs(s.layout.x_m * PX_PER_M - point.x())
        dy = np.abs(s.layout.y_m * PX_PER_M - point.y())
        r = int(np.argmin(dx + dy))
        return r if self.rack_rect(r).adjusted(-1, -1, 1, 1).contains(point) else -1

    def slot_at(self, point: QPointF) -> tuple[int, int] | None:
        """(row, slot), from 0, of the floor position under ``point``, or None."""
        s = self.site
        lay, spec = s.layout, s.spec
        x, y = point.x() / PX_PER_M, point.y() / PX_PER_M
        for h, hall in enumerate(lay.halls[:s.halls]):
            hx, hy = lay.hall_x_m[h], lay.hall_y_m[h]
            if not (hx <= x < hx + hall.width_m and hy <= y < hy + hall.depth_m):
                continue
            in_hall = int((y - hy) // hall.row_pitch_m)
            rows = np.flatnonzero((lay.row_hall == h) & (lay.row_in_hall == in_hall))
            slot = int((x - hx - spec.end_aisle_m) // spec.rack_width_m)
            if len(rows) and 0 <= slot < spec.hall_racks_per_row(hall):
                return int(rows[0]), slot
        return None

    def paint(self, painter: QPainter, option, widget=None) -> None:
        s = self.site
        if s is None:
            return
        lay, t = s.layout, s.template
        painter.setPen(QPen(QColor("#222"), 1))
        for h, hall in enumerate(lay.halls[:s.halls]):
            painter.setBrush(QBrush(QColor("#fafafa")))
            painter.drawRect(QRectF(lay.hall_x_m[h] * PX_PER_M, lay.hall_y_m[h] * PX_PER_M,
                                    hall.width_m * PX_PER_M, hall.depth_m * PX_PER_M))
            kw = s.hall_kw[h] if h < len(s.hall_kw) else 0.0
            painter.drawText(QPointF(lay.hall_x_m[h] * PX_PER_M, lay.hall_y_m[h] * PX_PER_M - 6),
                             f"{hall.name}: {kw:,.0f} of {hall.power_kw:,.0f} kW")
        rects = [self.rack_rect(r) for r in range(t.racks)]
        if self.colour_by == "cooling":
            keys = t.rack_cooling.astype(np.int64)
            colours = [QColor(COOLING_COLOURS[c]) for c in COOLING_TYPES]
        else:
            kw = t.rack_w / max(float(t.rack_w.max(initial=0.0)), 1e-9)
            keys = np.minimum((kw * KW_STEPS).astype(np.int64), KW_STEPS - 1)
            colours = [kw_colour((k + 0.5) / KW_STEPS) for k in range(KW_STEPS)]
        painter.setPen(QPen(QColor("#333"), 0.5))
        for key in np.unique(keys).tolist():
            painter.setBrush(QBrush(colours[key]))
            painter.drawRects([rects[r] for r in np.flatnonzero(keys == key).tolist()])
        marked = np.flatnonzero(self.highlight).tolist()
        if self.selected_rack >= 0:
            marked.append(self.selected_rack)
        if marked:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(QColor("#1565c0"), 2.5))
            painter.drawRects([rects[r] for r in marked])
        if self.show_cables:
            self._paint_cables(painter)

    def _paint_cables(self, painter: QPainter) -> None:
        s = self.site
        c, lay = s.cables, s.layout
        if c is None or not c.count:
            return
        between = c.rack_a != c.rack_b
        key = np.stack([lay.rack_row[c.rack_a[between]], lay.rack_row[c.rack_b[between]],
                        c.medium[between]])
        if not key.size:
            return
        pairs, counts = np.unique(key, axis=1, return_counts=True)
        rows = np.maximum(np.bincount(lay.rack_row), 1)
        row_x = np.bincount(lay.rack_row, weights=lay.x_m) / rows * PX_PER_M
        row_y = np.bincount(lay.rack_row, weights=lay.y_m) / rows * PX_PER_M
        most = float(counts.max())
        for (a, b, m), n in zip(pairs.T.tolist(), counts.tolist()):
            if a == b:
                continue
            colour = QColor(MEDIUM_COLOURS[MEDIA[m]])
            colour.setAlphaF(0.55)
            painter.setPen(QPen(colour, 0.5 + 3.5 * np.log1p(n) / np.log1p(most)))
            path = QPainterPath(QPointF(row_x[a], row_y[a]))
            path.lineTo(row_x[a], row_y[b])
            path.lineTo(row_x[b], row_y[b])
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)


class _FloorGraphicsView(QGraphicsView):
    rack_clicked = Signal(int)
    rack_dropped = Signal(int, int, int)  # rack, row, slot (from 0)

    def __init__(self, item: _FloorItem):
        super().__init__()
        self.floor_scene = QGraphicsScene(self)  # owned by the view: it outlives no item
        self.floor_scene.addItem(item)
        self.setScene(self.floor_scene)
        self.item = item
        self._pressed = -1
        self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setMouseTracking(True)
        self.describe = lambda rack: ""  # the tooltip of a rack (FloorView sets it)
        # the whole plan follows the view's size (a raised or resized dock) until the user zooms
        self.follows_size = True

    def fit_plan(self) -> bool:
        """The whole plan in view; False while nothing is placed."""
        if self.item.site is None:
            return False
        self.fitInView(self.item.boundingRect(), Qt.AspectRatioMode.KeepAspectRatio)
        return True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.follows_size:
            self.fit_plan()

    def mouseMoveEvent(self, event) -> None:
        super().mouseMoveEvent(event)
        if self._pressed < 0:
            rack = self.item.rack_at(self.mapToScene(event.position().toPoint()))
            self.setToolTip(self.describe(rack) if rack >= 0 else "")

    def wheelEvent(self, event) -> None:
        factor = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
        self.follows_size = False
        self.scale(factor, factor)

    def mousePressEvent(self, event) -> None:
        self._pressed = self.item.rack_at(self.mapToScene(event.position().toPoint()))
        if self._pressed >= 0:
            self.setDragMode(QGraphicsView.DragMode.NoDrag)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        pressed, self._pressed = self._pressed, -1
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        if pressed < 0:
            return
        point = self.mapToScene(event.position().toPoint())
        target = self.item.rack_at(point)
        if target == pressed:
            self.rack_clicked.emit(pressed)
            return
        slot = self.item.slot_at(point)
        if slot is not None:
            self.rack_dropped.emit(pressed, *slot)


class FloorView(QWidget):
    """The Floor dock: the view, a colour choice, cables on or off, a line of figures."""

    components_picked = Signal(list)          # design paths of what the clicked rack holds
    rack_moved = Signal(int, int, int)        # rack, row, slot, from 1

    def __init__(self, parent=None):
        super().__init__(parent)
        self.title = "Floor"
        self.item = _FloorItem()
        self.view = _FloorGraphicsView(self.item)
        self.colour = QComboBox()
        self.colour.addItems(["Colour by kW", "Colour by cooling"])
        self.cables = QCheckBox("Cables")
        self.cables.setChecked(True)
        self.export = QPushButton("Export…")
        self.export.setToolTip("Save the floor plan as PDF or SVG, coloured as shown")
        self.export.setEnabled(False)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.legend = QLabel("")
        # Wrapped: on one line its width was the dock's minimum, which widened the column under
        # the canvas and squeezed the palette to 115 px on a 1366 px screen.
        self.legend.setWordWrap(True)
        bar = QHBoxLayout()
        bar.addWidget(self.colour)
        bar.addWidget(self.cables)
        bar.addWidget(self.export)
        bar.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.legend)
        layout.addWidget(self.view, 1)
        self.colour.currentIndexChanged.connect(self._restyle)
        self.cables.toggled.connect(self._restyle)
        self.export.clicked.connect(self._export_clicked)
        self.view.rack_clicked.connect(self._clicked)
        self.view.rack_dropped.connect(lambda r, row, slot: self.rack_moved.emit(r + 1, row + 1, slot + 1))
        self._flat = None
        self._title = ""
        self._fitted = False
        self.view.describe = self.describe_rack
        self.legend.setText(self.legend_html())

    def describe_rack(self, rack: int) -> str:
        """Where rack ``rack`` (from 0) is, what it draws and what it holds."""
        site, flat = self.item.site, self._flat
        if site is None or flat is None:
            return ""
        t, lay = site.template, site.layout
        hall = lay.halls[int(lay.rack_hall[rack])].name
        held = [f"{flat.paths[g]} x{int((racks == rack).sum())}"
                for g, (racks, _) in site.template.units.items() if (racks == rack).any()]
        return (f"rack {rack + 1}: {RACK_CLASSES[t.rack_class[rack]]}, "
                f"{t.rack_w[rack] / 1000:.1f} kW, {COOLING_TYPES[t.rack_cooling[rack]]}\n"
                f"{hall}, row {lay.rack_row[rack] + 1}, slot {lay.rack_slot[rack] + 1}\n"
                + "\n".join(held[:8]) + ("\n..." if len(held) > 8 else "")
                + "\ndrag to another slot to move it")

    def _restyle(self) -> None:
        self.item.colour_by = "cooling" if self.colour.currentIndex() == 1 else "kw"
        self.item.show_cables = self.cables.isChecked()
        self.legend.setText(self.legend_html())
        self.item.update()

    def legend_html(self) -> str:
        """What the colours mean: the racks' (kW or cooling), then the cables' media."""
        def swatch(colour: str, text: str) -> str:
            return f'<span style="color:{colour}">&#9632;</span>&nbsp;{text}&nbsp;&nbsp;'
        if self.item.colour_by == "cooling":
            racks = "".join(swatch(COOLING_COLOURS[c], c) for c in COOLING_TYPES)
        else:
            racks = (swatch(kw_colour(0.05).name(), "light") + swatch(kw_colour(0.5).name(), "")
                     + swatch(kw_colour(0.95).name(), "densest rack"))
        cables = ("&nbsp;&nbsp;cables: " + "".join(swatch(MEDIUM_COLOURS[m], m) for m in MEDIA)
                  if self.item.show_cables else "")
        return f"<small>racks: {racks}{cables}</small>"

    def update_result(self, result) -> None:
        ev = result.evaluation
        site = ev.site
        if site is None:
            return
        self._flat = ev.topology.flat
        self._title = ev.design_name
        self.item.set_site(site)
        self.export.setEnabled(True)
        self.view.scene().setSceneRect(self.item.boundingRect())
        lengths = site.cable_length_m
        media = ", ".join(f"{m} {n:,}" for m, n in site.cables_by_medium.items() if n) or "no cables"
        self.summary.setText(
            f"{site.racks:,} racks, {site.rows:,} rows, {site.halls} hall(s) ({site.placement}); "
            f"densest rack {site.rack_kw_max:.1f} kW; cables p50 {lengths['p50'] or 0:.1f} m, "
            f"max {lengths['max'] or 0:.1f} m; {media}"
            + (f"; {site.reach_violations:,} beyond reach" if site.reach_violations else ""))
        if not self._fitted:
            self.fit()

    def export_to(self, path: str) -> Path:
        """Write the floor plan shown to ``path`` (.pdf or .svg; another name gets .pdf), racks
        coloured as in the view; returns the file written."""
        from designer.site.site_export import svg_pdf_bytes  # noqa: PLC0415 - Qt PDF only when asked

        if self.item.site is None:
            raise DesignError("nothing is placed yet: the floor plan follows the first evaluation")
        out = Path(path)
        if out.suffix.lower() not in (".pdf", ".svg"):
            out = out.with_name(out.name + ".pdf")
        svg = floor_svg(self.item.site, self.item.colour_by)
        if out.suffix.lower() == ".svg":
            atomic_write_text(out, svg)
        else:
            atomic_write_bytes(out, svg_pdf_bytes(svg, f"{self._title or 'design'}: floor plan"))
        return out

    def _export_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export the floor plan", "floor.pdf",
                                              "PDF (*.pdf);;SVG (*.svg)")
        if not name:
            return
        try:
            self.export_to(name)
        except (DesignError, OSError) as exc:
            QMessageBox.warning(self, "Export the floor plan", str(exc))

    def fit(self) -> None:
        if self.view.fit_plan():
            self._fitted = True

    def _clicked(self, rack: int) -> None:
        self.item.selected_rack = rack
        self.item.update()
        site, flat = self.item.site, self._flat
        groups = sorted(g for g, (racks, _) in site.template.units.items() if (racks == rack).any())
        self.components_picked.emit([flat.paths[g] for g in groups])

    def highlight_paths(self, paths: list[str]) -> None:
        """Light up the racks holding anything at or under ``paths`` (a canvas selection)."""
        site, flat = self.item.site, self._flat
        if site is None or flat is None:
            return
        marked = np.zeros(site.racks, dtype=bool)
        prefixes = tuple(paths) + tuple(p + "/" for p in paths)
        if paths:
            for g, (racks, _) in site.template.units.items():
                if flat.paths[g] in paths or flat.paths[g].startswith(prefixes):
                    marked[racks] = True
        self.item.highlight = marked
        self.item.selected_rack = -1
        self.item.update()


# The Floor dock's height when its tab is raised: the view's controls, legend and a plan a
# user can read and drag racks on.
FLOOR_DOCK_MIN_PX = 320


def attach_floor_view(window) -> FloorView:
    """The Floor view as a dock of ``window`` (a MainWindow), tabbed with the Warnings, fed by
    the evaluator, its selection shared with the canvas and its moves pushed as undo steps."""
    from core.errors import DesignError  # noqa: PLC0415
    from core.site_edit import move_rack  # noqa: PLC0415

    floor = FloorView()
    dock = QDockWidget("Floor", window)
    dock.setObjectName("floor")  # saveState/restoreState key
    dock.setWidget(floor)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                     | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    window.tabifyDockWidget(window.warnings_dock, dock)
    window.warnings_dock.raise_()
    window.floor_dock = dock

    def raised(visible: bool) -> None:
        # Tabbed with the Warnings the dock keeps their strip of height, too short to read a
        # floor plan: raising it makes room; a height the user dragged to is kept.
        if visible and not dock.isFloating() and dock.height() < FLOOR_DOCK_MIN_PX:
            window.resizeDocks([dock], [max(FLOOR_DOCK_MIN_PX, window.height() * 2 // 5)],
                               Qt.Orientation.Vertical)

    dock.visibilityChanged.connect(raised)
    window.evaluator.finished.connect(floor.update_result)
    scene = window.scene

    def canvas_selected() -> None:
        if not shiboken6.isValid(scene) or not shiboken6.isValid(floor):  # window closing
            return
        floor.highlight_paths([scene.child_path(key) for key in scene.selected_ids()])

    def pick(paths: list[str]) -> None:
        """Select on the canvas the children of its current block that hold ``paths``."""
        prefix = f"{scene.block_path}/" if scene.block_path else ""
        ids = [p[len(prefix):].split("/")[0] for p in paths if p.startswith(prefix)]
        scene.select(list(dict.fromkeys(ids)))

    def moved(rack: int, row: int, slot: int) -> None:
        try:
            window.document.push(move_rack(window.document.design, rack, row, slot))
        except DesignError as exc:
            window.show_error(str(exc))

    scene.selectionChanged.connect(canvas_selected)
    floor.components_picked.connect(pick)
    floor.rack_moved.connect(moved)
    return floor
