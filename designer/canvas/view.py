"""The canvas widget: zoom, pan, drop from the palette, drag to move and drag to connect.

Gestures become document operations here (one undo step each); the scene redraws itself from
the resulting model change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QCursor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsView, QLabel, QMenu

from core.catalog import Catalog
from core.errors import DesignError
from core.operations import MoveItems
from designer.canvas.aggregate_items import BundleItem, GroupCard
from designer.canvas.items import CARD_H, CARD_W, BlockItem, Card
from designer.canvas.links import LinkItem
from designer.canvas.placement import free_spot
from designer.canvas.scene import DesignScene
from designer.common import mime, style
from designer.project import edits
from designer.project.connect import components_inside, default_link, preferred_endpoint
from designer.project.document import DesignDocument

ZOOM_MIN, ZOOM_MAX = 0.03, 4.0
ZOOM_STEP = 1.18
FIT_MAX_ZOOM = 1.25   # a lone card should not fill the screen
PLACE_GAP = 20.0      # free space kept around a newly placed card
BANNER_MARGIN = 8     # px between the banner and the canvas's edges


class DesignView(QGraphicsView):
    error = Signal(str)
    file_dropped = Signal(Path)
    step_inside = Signal(str)              # child block id
    context_menu_requested = Signal(object, object)  # (QPoint global, item or None)
    link_created = Signal(str)             # link id

    def __init__(self, scene: DesignScene, document: DesignDocument, catalog: Catalog, parent=None):
        super().__init__(scene, parent)
        self.document = document
        self.catalog = catalog
        self.connect_mode = False
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._press_positions: dict[str, QPointF] = {}
        self._link_source: Card | None = None
        self._link_line: QGraphicsLineItem | None = None
        self._link_target: Card | None = None
        self._pan_origin: QPointF | None = None
        # While a palette card is dragged over the canvas: where it would land, and what the
        # landing spot must keep clear of (gathered when the drag enters).
        self.ghost_spot: QPointF | None = None
        self._ghost_name = ""
        self._ghost_cell: tuple[int, int] | None = None
        self._drop_obstacles: tuple[np.ndarray, np.ndarray] | None = None
        # After fit() the view keeps fitting when it is resized (window shown, docks resized)
        # until the user zooms or pans: a design opened before the window has its final size
        # must not end up as a small diagram in a big empty canvas.
        self.auto_fit = False
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._user_scrolled)
        # Over the top of the canvas, at screen size whatever the zoom: says when the block is
        # drawn aggregated (designer.canvas.aggregate). A child of the view, not of its viewport,
        # so scrolling does not move it; clicks go through to the canvas.
        self.banner = QLabel(self)
        self.banner.setWordWrap(True)
        self.banner.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.banner.setStyleSheet("background: #e3f2fd; color: #0d47a1; border: 1px solid #90caf9; "
                                  "border-radius: 6px; padding: 6px 10px;")
        self.banner.hide()
        scene.note_changed.connect(self.show_note)
        self.show_note(scene.note)

    @property
    def design_scene(self) -> DesignScene:
        return self.scene()  # type: ignore[return-value]

    # --- zoom and pan --------------------------------------------------------------------
    def _user_scrolled(self, _action: int) -> None:
        self.auto_fit = False

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        current = self.transform().m11()
        factor = max(ZOOM_MIN / current, min(ZOOM_MAX / current, factor))
        self.scale(factor, factor)

    def zoom_level(self) -> float:
        return self.transform().m11()

    def fit(self) -> None:
        rect = self.design_scene.content_rect()
        if rect.isNull():
            return
        covered = self._banner_height()
        if covered:
            # The content fits below the banner: the scale of the viewport less its height, and
            # the centre moved up by half of it.
            viewport = self.viewport().rect()
            padded = rect.adjusted(-40, -40, 40, 40)
            zoom = min(viewport.width() / padded.width(), (viewport.height() - covered) / padded.height(),
                       FIT_MAX_ZOOM)
            self.resetTransform()
            self.scale(zoom, zoom)
            self.centerOn(rect.center().x(), rect.center().y() - covered / 2 / zoom)
        else:
            self.fitInView(rect.adjusted(-40, -40, 40, 40), Qt.AspectRatioMode.KeepAspectRatio)
            if self.zoom_level() > FIT_MAX_ZOOM:
                self.resetTransform()
                self.scale(FIT_MAX_ZOOM, FIT_MAX_ZOOM)
                self.centerOn(rect.center())
        self.auto_fit = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_banner()
        if self.auto_fit:
            self.fit()

    # --- the banner of an aggregated block -------------------------------------------------
    def show_note(self, text: str) -> None:
        was_shown = self.banner.isVisible()
        self.banner.setText(text)
        self.banner.setVisible(bool(text))
        self._place_banner()
        if was_shown != bool(text) and self.auto_fit:
            self.fit()

    def _place_banner(self) -> None:
        if not self.banner.text():
            return
        area = self.viewport().geometry()
        width = max(120, area.width() - 2 * BANNER_MARGIN)
        self.banner.setGeometry(area.left() + BANNER_MARGIN, area.top() + BANNER_MARGIN, width,
                                self.banner.heightForWidth(width))

    def _banner_height(self) -> int:
        """Pixels at the top of the canvas the banner covers (0 when it is hidden)."""
        return self.banner.height() + 2 * BANNER_MARGIN if not self.banner.isHidden() else 0

    def center_on_item(self, key: str) -> None:
        card = self.design_scene.card(key) or self.design_scene.group_card_of(key)
        if card is not None:
            self.centerOn(card)

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)  # shift+wheel scrolls horizontally as everywhere else
            return
        delta = event.angleDelta().y()
        if delta:
            self.zoom(ZOOM_STEP ** (delta / 120.0))
        event.accept()

    # --- mouse ---------------------------------------------------------------------------
    def _card_at(self, pos) -> Card | None:
        for item in self.items(pos):
            if isinstance(item, Card):
                return item
        return None

    def _aggregate_item_at(self, pos) -> GroupCard | BundleItem | None:
        for item in self.items(pos):
            if isinstance(item, (GroupCard, BundleItem)):
                return item
        return None

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_origin = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            card = self._card_at(event.position().toPoint())
            wants_link = self.connect_mode or event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            if card is not None and wants_link:
                self._start_link(card)
                event.accept()
                return
            summary_item = self._aggregate_item_at(event.position().toPoint())
            if summary_item is not None and not event.modifiers():
                # A plain click on a group card or bundle selects it and lists its members, even
                # when it is already selected because one of them was picked.
                self._select_aggregate(summary_item)
                event.accept()
                return
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.design_scene.snapping = True
            self._press_positions = {
                item.key: item.pos() for item in self.design_scene.selectedItems() if isinstance(item, Card)
            }

    def mouseMoveEvent(self, event) -> None:
        if self._pan_origin is not None:
            self.auto_fit = False
            delta = event.position() - self._pan_origin
            self._pan_origin = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            event.accept()
            return
        if self._link_source is not None:
            self._drag_link(event.position().toPoint())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._pan_origin is not None and event.button() == Qt.MouseButton.MiddleButton:
            self._pan_origin = None
            self.viewport().unsetCursor()
            event.accept()
            return
        if self._link_source is not None:
            self._finish_link(event.position().toPoint())
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.design_scene.snapping = False
            self._commit_move()

    def mouseDoubleClickEvent(self, event) -> None:
        card = self._card_at(event.position().toPoint())
        if isinstance(card, BlockItem):
            # Navigate after the event returns to Qt: the scene is rebuilt on navigation.
            self.step_inside.emit(card.key)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def _commit_move(self) -> None:
        moved = {}
        for key, old in self._press_positions.items():
            card = self.design_scene.card(key)
            if card is not None and card.pos() != old:
                moved[key] = (card.pos().x(), card.pos().y())
        self._press_positions = {}
        if moved:
            self._push(MoveItems(self.design_scene.block_path, moved))

    # --- connecting ----------------------------------------------------------------------
    def _start_link(self, card: Card) -> None:
        self._link_source = card
        line = QGraphicsLineItem(QLineF(card.pos(), card.pos()))
        line.setPen(QPen(style.SELECTION, 2.5, Qt.PenStyle.DashLine, Qt.PenCapStyle.RoundCap))
        line.setZValue(10)
        self.design_scene.addItem(line)
        self._link_line = line

    def _set_target(self, card: Card | None) -> None:
        if self._link_target is card:
            return
        if self._link_target is not None:
            self._link_target.highlight = False
            self._link_target.update()
        self._link_target = card
        if card is not None:
            card.highlight = True
            card.update()

    def _drag_link(self, pos) -> None:
        assert self._link_source is not None and self._link_line is not None
        target = self._card_at(pos)
        self._set_target(target if target is not self._link_source else None)
        end = self._link_target.pos() if self._link_target else self.mapToScene(pos)
        self._link_line.setLine(QLineF(self._link_source.pos(), end))

    def _finish_link(self, pos) -> None:
        source = self._link_source
        self._drag_link(pos)
        target = self._link_target
        self._cancel_link()
        if source is not None and target is not None:
            self.connect_items(source.key, target.key)

    def _cancel_link(self) -> None:
        self._set_target(None)
        if self._link_line is not None:
            self.design_scene.removeItem(self._link_line)
        self._link_line = None
        self._link_source = None

    def connect_items(self, source_key: str, target_key: str) -> str | None:
        """Add a link bundle between two children of the current block (one undo step)."""
        design = self.document.design
        block_path = self.design_scene.block_path
        ends = []
        for key in (source_key, target_key):
            candidates = components_inside(design, block_path, key)
            if not candidates:
                self.error.emit(f"{key} has no component to connect to")
                return None
            ends.append(self._choose_endpoint(key, candidates))
            if ends[-1] is None:
                return None
        try:
            link = default_link(design, self.catalog, block_path, ends[0], ends[1])
            op = edits.new_link(design, block_path, link)
            self.document.push(op, f"Connect {ends[0]} → {ends[1]}")
        except DesignError as exc:
            self.error.emit(str(exc))
            return None
        self.design_scene.select([], [op.link.id])
        self.link_created.emit(op.link.id)
        return op.link.id

    def _choose_endpoint(self, key: str, candidates: list[str]) -> str | None:
        if len(candidates) == 1:
            return candidates[0]
        preferred = preferred_endpoint(self.document.design, self.catalog, self.design_scene.block_path,
                                       candidates)
        menu = QMenu(self)
        menu.addSection(f"Connect to which component of {key}?")
        default = None
        for rel in sorted(candidates, key=lambda c: c != preferred):
            action = menu.addAction(rel)
            action.setData(rel)
            if rel == preferred:
                default = action
        menu.setDefaultAction(default)
        # highlighted on opening, so Return takes the likely end and arrows move from there
        menu.aboutToShow.connect(lambda: menu.setActiveAction(default))
        chosen = menu.exec(QCursor.pos(), default)
        return chosen.data() if chosen is not None else None

    # --- drag and drop -------------------------------------------------------------------
    def _accepts(self, event) -> bool:
        data = event.mimeData()
        return data.hasFormat(mime.CATALOG_ID) or data.hasUrls()

    def dragEnterEvent(self, event) -> None:
        if not self._accepts(event):
            event.ignore()
            return
        event.acceptProposedAction()
        data = event.mimeData()
        if data.hasFormat(mime.CATALOG_ID):
            # Nothing on the canvas moves during a drag: gather what to avoid once.
            self._drop_obstacles = self.design_scene.placement_obstacles()
            self._ghost_cell = None
            catalog_id = bytes(data.data(mime.CATALOG_ID)).decode("utf-8")
            self._ghost_name = self.catalog.get(catalog_id).name if catalog_id in self.catalog else catalog_id
            self._move_ghost(event.position())

    def dragMoveEvent(self, event) -> None:
        if not self._accepts(event):
            event.ignore()
            return
        event.acceptProposedAction()
        if self._drop_obstacles is not None:
            self._move_ghost(event.position())

    def dragLeaveEvent(self, event) -> None:
        self._hide_ghost()
        event.accept()

    def dropEvent(self, event) -> None:
        self._hide_ghost()
        data = event.mimeData()
        if data.hasFormat(mime.CATALOG_ID):
            catalog_id = bytes(data.data(mime.CATALOG_ID)).decode("utf-8")
            self.place(catalog_id, self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
            return
        for url in data.urls():
            if url.isLocalFile():
                self.file_dropped.emit(Path(url.toLocalFile()))
                event.acceptProposedAction()
                return
        event.ignore()

    def _move_ghost(self, position: QPointF) -> None:
        at = self.mapToScene(position.toPoint())
        cell = (round(at.x() / style.GRID), round(at.y() / style.GRID))
        if cell == self._ghost_cell:
            return  # the pointer moved within one grid cell: same landing spot
        self._ghost_cell = cell
        spot = self.landing_spot(at, self._drop_obstacles)
        if spot != self.ghost_spot:
            self.ghost_spot = spot
            self.viewport().update()

    def _hide_ghost(self) -> None:
        self._drop_obstacles = None
        self._ghost_cell = None
        if self.ghost_spot is not None:
            self.ghost_spot = None
            self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """While a palette card is dragged over the canvas: an outline where it will land."""
        super().drawForeground(painter, rect)
        if self.ghost_spot is None:
            return
        ghost = QRectF(self.ghost_spot.x() - CARD_W / 2, self.ghost_spot.y() - CARD_H / 2, CARD_W, CARD_H)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(style.SELECTION, 1.8, Qt.PenStyle.DashLine))
        fill = QColor(style.SELECTION)
        fill.setAlpha(36)
        painter.setBrush(fill)
        painter.drawRoundedRect(ghost, 8, 8)
        painter.setPen(style.SUBTEXT)
        text = ghost.adjusted(10, 0, -10, 0)
        painter.drawText(text, Qt.AlignmentFlag.AlignCenter,
                         painter.fontMetrics().elidedText(self._ghost_name, Qt.TextElideMode.ElideRight,
                                                          int(text.width())))

    def place(self, catalog_id: str, at: QPointF | None = None) -> str | None:
        """Add one unit of ``catalog_id`` at the free spot nearest to ``at`` (scene coordinates;
        default: view centre)."""
        if at is None:
            at = self.mapToScene(self.viewport().rect().center())
        spot = self.landing_spot(at)
        try:
            op = edits.add_component(self.document.design, self.catalog, self.design_scene.block_path,
                                     catalog_id, spot.x(), spot.y())
            self.document.push(op, f"Add {catalog_id}")
        except DesignError as exc:
            self.error.emit(str(exc))
            return None
        self.design_scene.select([op.item.id])
        return op.item.id

    def landing_spot(self, at: QPointF, obstacles: tuple[np.ndarray, np.ndarray] | None = None) -> QPointF:
        """Where a new card asked for at ``at`` lands: the grid point nearest to it where it
        overlaps no card or link label and sits on no link line (placing several components at
        one spot must not stack them, nor hide a link under a card)."""
        rects, segments = obstacles if obstacles is not None else self.design_scene.placement_obstacles()
        grid = style.GRID
        x, y = free_spot(round(at.x() / grid) * grid, round(at.y() / grid) * grid, CARD_W, CARD_H,
                         rects, segments, grid, PLACE_GAP)
        return QPointF(x, y)

    # --- keys and menus ------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape:
            if self._link_source is not None:
                self._cancel_link()
            else:
                self.design_scene.clearSelection()
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:
        item = None
        for candidate in self.items(event.pos()):
            if isinstance(candidate, (Card, LinkItem, GroupCard, BundleItem)):
                item = candidate
                break
        if isinstance(item, (GroupCard, BundleItem)):
            if not item.isSelected():
                self._select_aggregate(item)
        elif item is not None and not item.isSelected():
            self.design_scene.clearSelection()
            item.setSelected(True)
        self.context_menu_requested.emit(event.globalPos(), item)
        event.accept()

    def _select_aggregate(self, item: GroupCard | BundleItem) -> None:
        if isinstance(item, GroupCard):
            self.design_scene.select_group(item.key)
        else:
            self.design_scene.select_bundle(item.key)

    def _push(self, op) -> None:
        try:
            self.document.push(op)
        except DesignError as exc:
            self.error.emit(str(exc))
