"""The canvas widget: zoom, pan, drop from the palette, drag to move and drag to connect.

Gestures become document operations here (one undo step each); the scene redraws itself from
the resulting model change.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsView, QMenu

from core.catalog import Catalog
from core.errors import DesignError
from core.model import MoveItems
from designer import edits, mime, style
from designer.canvas.items import CARD_H, CARD_W, BlockItem, LinkItem, _Card
from designer.canvas.scene import DesignScene
from designer.connect import components_inside, default_link, preferred_endpoint
from designer.document import DesignDocument

ZOOM_MIN, ZOOM_MAX = 0.03, 4.0
ZOOM_STEP = 1.18
FIT_MAX_ZOOM = 1.25   # a lone card should not fill the screen
PLACE_GAP = 20.0      # free space kept around a newly placed card
PLACE_RINGS = 30      # how far (in cells) a new card may move to find a free cell


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
        self._link_source: _Card | None = None
        self._link_line: QGraphicsLineItem | None = None
        self._link_target: _Card | None = None
        self._pan_origin: QPointF | None = None
        # After fit() the view keeps fitting when it is resized (window shown, docks resized)
        # until the user zooms or pans: a design opened before the window has its final size
        # must not end up as a small diagram in a big empty canvas.
        self.auto_fit = False
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._user_scrolled)

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
        self.fitInView(rect.adjusted(-40, -40, 40, 40), Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom_level() > FIT_MAX_ZOOM:
            self.resetTransform()
            self.scale(FIT_MAX_ZOOM, FIT_MAX_ZOOM)
            self.centerOn(rect.center())
        self.auto_fit = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()

    def center_on_item(self, key: str) -> None:
        card = self.design_scene.card(key)
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
    def _card_at(self, pos) -> _Card | None:
        for item in self.items(pos):
            if isinstance(item, _Card):
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
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.design_scene.snapping = True
            self._press_positions = {
                item.key: item.pos() for item in self.design_scene.selectedItems() if isinstance(item, _Card)
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
    def _start_link(self, card: _Card) -> None:
        self._link_source = card
        line = QGraphicsLineItem(QLineF(card.pos(), card.pos()))
        line.setPen(QPen(style.SELECTION, 2.5, Qt.PenStyle.DashLine, Qt.PenCapStyle.RoundCap))
        line.setZValue(10)
        self.design_scene.addItem(line)
        self._link_line = line

    def _set_target(self, card: _Card | None) -> None:
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
        if self._accepts(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if self._accepts(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
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

    def place(self, catalog_id: str, at: QPointF | None = None) -> str | None:
        """Add one unit of ``catalog_id`` at ``at`` (scene coordinates; default: view centre)."""
        if at is None:
            at = self.mapToScene(self.viewport().rect().center())
        grid = style.GRID
        x, y = self.free_spot(round(at.x() / grid) * grid, round(at.y() / grid) * grid)
        try:
            op = edits.add_component(self.document.design, self.catalog, self.design_scene.block_path,
                                     catalog_id, x, y)
            self.document.push(op, f"Add {catalog_id}")
        except DesignError as exc:
            self.error.emit(str(exc))
            return None
        self.design_scene.select([op.item.id])
        return op.item.id

    def free_spot(self, x: float, y: float) -> tuple[float, float]:
        """The grid cell nearest to (x, y) where a new component card overlaps no other card
        (placing several components at the view centre must not stack them)."""
        taken = [card.card_rect().translated(card.pos()).adjusted(-PLACE_GAP, -PLACE_GAP, PLACE_GAP, PLACE_GAP)
                 for card in self.design_scene.cards()]
        if not taken:
            return x, y
        grid = style.GRID
        step_x = math.ceil((CARD_W + PLACE_GAP) / grid) * grid
        step_y = math.ceil((CARD_H + PLACE_GAP) / grid) * grid
        for ring in range(PLACE_RINGS + 1):
            cells = [(i, j) for i in range(-ring, ring + 1) for j in range(-ring, ring + 1)
                     if max(abs(i), abs(j)) == ring]
            # Nearest first; on ties prefer right, then below (reading order).
            cells.sort(key=lambda c: (math.hypot(c[0] * step_x, c[1] * step_y), -c[0], -c[1]))
            for i, j in cells:
                cx, cy = x + i * step_x, y + j * step_y
                rect = QRectF(cx - CARD_W / 2, cy - CARD_H / 2, CARD_W, CARD_H)
                if not any(rect.intersects(other) for other in taken):
                    return cx, cy
        return x, y

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
            if isinstance(candidate, (_Card, LinkItem)):
                item = candidate
                break
        if item is not None and not item.isSelected():
            self.design_scene.clearSelection()
            item.setSelected(True)
        self.context_menu_requested.emit(event.globalPos(), item)
        event.accept()

    def _push(self, op) -> None:
        try:
            self.document.push(op)
        except DesignError as exc:
            self.error.emit(str(exc))
