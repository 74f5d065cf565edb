"""Scene items: component cards, block cards and link bundles.

Items read the model through the scene and hold no design state of their own besides the
position the user is dragging (committed as one MoveItems on release).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem

from designer import icons, style
from designer.format import count as fmt_count, speed as fmt_speed

CARD_W, CARD_H = 200.0, 64.0
BLOCK_W, BLOCK_H = 220.0, 84.0
ROW_H = 18.0
MAX_ROWS = 10

_TITLE = QFont()
_TITLE.setPointSizeF(9.5)
_TITLE.setBold(True)
_SUB = QFont()
_SUB.setPointSizeF(8.0)
_BADGE = QFont()
_BADGE.setPointSizeF(8.5)
_BADGE.setBold(True)


def _elide(text: str, font: QFont, width: float) -> str:
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, width)


def _draw_badge(painter: QPainter, right: float, top: float, text: str, fill: QColor) -> None:
    metrics = QFontMetricsF(_BADGE)
    w = metrics.horizontalAdvance(text) + 12
    rect = QRectF(right - w, top - 9, w, 18)
    painter.setPen(QPen(QColor("#ffffff"), 1.5))
    painter.setBrush(fill)
    painter.drawRoundedRect(rect, 9, 9)
    painter.setPen(QColor("#ffffff"))
    painter.setFont(_BADGE)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


class _Card(QGraphicsItem):
    """Common behaviour of component and block cards: selection, snapping, link updates."""

    def __init__(self, key: str, path: str):
        super().__init__()
        self.key = key          # id in the current block
        self.path = path        # design path
        self.links: list["LinkItem"] = []
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        self.setAcceptHoverEvents(True)
        self._hover = False
        self.highlight = False  # drop target of a link drag

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionChange:
            scene = self.scene()
            if scene is not None and getattr(scene, "snapping", False):
                grid = style.GRID
                return QPointF(round(value.x() / grid) * grid, round(value.y() / grid) * grid)
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            for link in self.links:
                link.update_path()
        return super().itemChange(change, value)

    def hoverEnterEvent(self, event):
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event):
        self._hover = False
        self.update()

    def _frame_pen(self, option: QStyleOptionGraphicsItem) -> QPen:
        if option.state & QStyle.StateFlag.State_Selected:
            return QPen(style.SELECTION, 3)
        if self.highlight:
            return QPen(QColor("#43a047"), 3)
        return QPen(style.CARD_BORDER.darker(115) if self._hover else style.CARD_BORDER, 1.2)


class ComponentItem(_Card):
    def __init__(self, key: str, path: str):
        super().__init__(key, path)
        self.title = key
        self.subtitle = ""
        self.kind = "server"
        self.count = 1
        self.tier = ""

    def set_data(self, title: str, subtitle: str, kind: str, count: int, tier: str) -> None:
        self.title, self.subtitle, self.kind, self.count, self.tier = title, subtitle, kind, count, tier
        self.setToolTip(f"{title}\n{subtitle}\n{kind}{' · ' + tier if tier else ''} · ×{count:,}")
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(-CARD_W / 2 - 4, -CARD_H / 2 - 12, CARD_W + 10, CARD_H + 16)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.card_rect(), 8, 8)
        return path

    def card_rect(self) -> QRectF:
        return QRectF(-CARD_W / 2, -CARD_H / 2, CARD_W, CARD_H)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self.card_rect()
        accent = style.color(self.kind)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 28))
        painter.drawRoundedRect(rect.translated(1.5, 2.5), 8, 8)
        painter.setBrush(style.CARD_FILL)
        painter.setPen(self._frame_pen(option))
        painter.drawRoundedRect(rect, 8, 8)
        icons.renderer(self.kind).render(painter, QRectF(rect.left() + 10, rect.top() + 12, 40, 40))
        text_left = rect.left() + 58
        width = rect.right() - text_left - 8
        painter.setPen(style.TEXT)
        painter.setFont(_TITLE)
        painter.drawText(QRectF(text_left, rect.top() + 10, width, 20),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         _elide(self.title, _TITLE, width))
        painter.setPen(style.SUBTEXT)
        painter.setFont(_SUB)
        painter.drawText(QRectF(text_left, rect.top() + 30, width, 16),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         _elide(self.subtitle, _SUB, width))
        if self.tier:
            painter.drawText(QRectF(text_left, rect.top() + 45, width, 14),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"tier: {self.tier}")
        _draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(self.count), accent)


class BlockItem(_Card):
    """A repeated block, drawn as a stack of cards; expanded, it lists its contents."""

    def __init__(self, key: str, path: str):
        super().__init__(key, path)
        self.title = key
        self.role = ""
        self.count = 1
        self.collapsed = True
        self.rows: list[tuple[str, str, int]] = []  # (kind, label, count) of children
        self.summary = ""

    def set_data(self, title: str, role: str, count: int, collapsed: bool,
                 rows: list[tuple[str, str, int]], summary: str) -> None:
        self.prepareGeometryChange()
        self.title, self.role, self.count, self.collapsed = title, role, count, collapsed
        self.rows, self.summary = rows, summary
        self.setToolTip(f"{title} ({role or 'block'}) ×{count:,}\n{summary}\nDouble-click to step inside")
        for link in self.links:
            link.update_path()
        self.update()

    def card_rect(self) -> QRectF:
        height = BLOCK_H
        if not self.collapsed:
            height += min(len(self.rows), MAX_ROWS + 1) * ROW_H + 8
        return QRectF(-BLOCK_W / 2, -BLOCK_H / 2, BLOCK_W, height)

    def boundingRect(self) -> QRectF:
        return self.card_rect().adjusted(-4, -14, 14, 14)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.card_rect(), 10, 10)
        return path

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self.card_rect()
        accent = style.color("block")
        if self.count > 1:  # the stack says "repeated" before the badge is read
            painter.setPen(QPen(style.CARD_BORDER, 1))
            for offset in (8.0, 4.0):
                painter.setBrush(QColor("#eceff1") if offset > 4 else QColor("#f5f7f8"))
                painter.drawRoundedRect(rect.translated(offset, offset), 10, 10)
        painter.setBrush(QColor("#fbfcfd"))
        pen = self._frame_pen(option)
        if pen.color() == style.CARD_BORDER:
            pen = QPen(accent.lighter(150), 1.6)
        painter.setPen(pen)
        painter.drawRoundedRect(rect, 10, 10)
        outline = QPainterPath()
        outline.addRoundedRect(rect.adjusted(1, 1, -1, -1), 9, 9)
        painter.save()
        painter.setClipPath(outline)  # the header band follows the card's rounded corners
        painter.fillRect(QRectF(rect.left(), rect.top(), rect.width(), 26), QBrush(QColor("#e3e9ed")))
        painter.restore()
        icons.renderer("block").render(painter, QRectF(rect.left() + 8, rect.top() + 4, 18, 18))
        painter.setPen(style.TEXT)
        painter.setFont(_TITLE)
        painter.drawText(QRectF(rect.left() + 32, rect.top() + 3, rect.width() - 80, 20),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         _elide(self.title, _TITLE, rect.width() - 80))
        painter.setPen(style.SUBTEXT)
        painter.setFont(_SUB)
        role = (self.role or "block").upper()
        painter.drawText(QRectF(rect.left() + 10, rect.top() + 30, rect.width() - 20, 14),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         f"{role} · repeated ×{self.count:,}" if self.count > 1 else role)
        painter.setPen(style.TEXT)
        painter.drawText(QRectF(rect.left() + 10, rect.top() + 46, rect.width() - 20, 34),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                         self.summary)
        if not self.collapsed:
            self._paint_rows(painter, rect)
        _draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(self.count), accent)

    def _paint_rows(self, painter: QPainter, rect: QRectF) -> None:
        y = rect.top() + BLOCK_H
        painter.setPen(QPen(QColor("#e0e6ea"), 1))
        painter.drawLine(QPointF(rect.left() + 8, y - 4), QPointF(rect.right() - 8, y - 4))
        painter.setFont(_SUB)
        rows = self.rows[:MAX_ROWS]
        for kind, label, n in rows:
            icons.renderer(kind).render(painter, QRectF(rect.left() + 12, y + 1, 14, 14))
            painter.setPen(style.TEXT)
            painter.drawText(QRectF(rect.left() + 32, y, rect.width() - 100, ROW_H),
                             Qt.AlignmentFlag.AlignVCenter, _elide(label, _SUB, rect.width() - 100))
            painter.setPen(style.SUBTEXT)
            painter.drawText(QRectF(rect.right() - 70, y, 60, ROW_H),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, fmt_count(n))
            y += ROW_H
        if len(self.rows) > MAX_ROWS:
            painter.drawText(QRectF(rect.left() + 32, y, rect.width() - 40, ROW_H),
                             Qt.AlignmentFlag.AlignVCenter, f"… {len(self.rows) - MAX_ROWS} more")


def _border_point(card: _Card, toward: QPointF) -> QPointF:
    """Where the segment from the card's centre to ``toward`` leaves the card's rectangle."""
    rect = card.card_rect().translated(card.pos())
    centre = card.pos()
    dx, dy = toward.x() - centre.x(), toward.y() - centre.y()
    if dx == 0 and dy == 0:
        return centre
    # Card rects are centred horizontally on pos but blocks grow downwards when expanded.
    half_w = rect.width() / 2
    top, bottom = rect.top() - centre.y(), rect.bottom() - centre.y()
    scale = math.inf
    if dx:
        scale = min(scale, half_w / abs(dx))
    if dy > 0:
        scale = min(scale, bottom / dy)
    elif dy < 0:
        scale = min(scale, top / dy)
    return QPointF(centre.x() + dx * scale, centre.y() + dy * scale)


class LinkItem(QGraphicsItem):
    """A link bundle between two cards; ``bend`` separates parallel bundles of one pair."""

    def __init__(self, key: str, source: _Card, target: _Card):
        super().__init__()
        self.key = key  # link id in the current block
        self.source, self.target = source, target
        source.links.append(self)
        target.links.append(self)
        self.kind = "scale-out"
        self.label = ""
        self.bend = 0.0
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-1)
        self._path = QPainterPath()
        self._label_rect = QRectF()

    def detach(self) -> None:
        for card in (self.source, self.target):
            if self in card.links:
                card.links.remove(self)

    def set_data(self, kind: str, speed_gbit_s: float, count: int, length_m: float,
                 medium: str, endpoints: str) -> None:
        self.kind = kind
        self.label = f"{fmt_count(count)} {fmt_speed(speed_gbit_s)}"
        self.setToolTip(f"{endpoints}\n{kind}: {count:,} × {speed_gbit_s:g} Gb/s, "
                        f"{length_m:g} m {medium}")
        self.update_path()

    def update_path(self) -> None:
        self.prepareGeometryChange()
        p1, p2 = self.source.pos(), self.target.pos()
        mid = (p1 + p2) / 2
        line = QLineF(p1, p2)
        normal = QPointF(-line.dy(), line.dx())
        length = math.hypot(normal.x(), normal.y()) or 1.0
        control = mid + normal / length * self.bend
        a = _border_point(self.source, control)
        b = _border_point(self.target, control)
        path = QPainterPath(a)
        if self.bend:
            path.quadTo(control, b)
        else:
            path.lineTo(b)
        self._path = path
        metrics = QFontMetricsF(_SUB)
        w = metrics.horizontalAdvance(self.label) + 12
        centre = path.pointAtPercent(0.5)
        self._label_rect = QRectF(centre.x() - w / 2, centre.y() - 9, w, 18)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._path.boundingRect().adjusted(-8, -8, 8, 8).united(self._label_rect.adjusted(-2, -2, 2, 2))

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        shape = stroker.createStroke(self._path)
        shape.addRect(self._label_rect)
        return shape

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour, width, dash = style.LINK_STYLE.get(self.kind, style.LINK_STYLE["scale-out"])
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.setPen(QPen(style.SELECTION, width + 5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawPath(self._path)
        pen = QPen(QColor(colour), width, dash, Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._path)
        painter.setPen(QPen(QColor(colour), 1.2))
        painter.setBrush(QColor("#ffffff"))
        painter.drawRoundedRect(self._label_rect, 9, 9)
        painter.setFont(_SUB)
        painter.setPen(QColor(colour).darker(120))
        painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.label)


class ExternalLinkItem(QGraphicsItem):
    """A stub showing that a link owned by an outer block reaches a card of this block.

    Inside a block the outer fabric is not drawn, yet users need to see that e.g. the spines
    of a pod go up to the core: a short dashed stub beside the card names the far end.
    """

    STUB = 40.0

    def __init__(self, card: _Card, slot: int, kind: str, far_end: str, count: int, speed_gbit_s: float,
                 owner: str):
        super().__init__()
        self.card = card
        self.slot = slot
        self.kind = kind
        self.label = f"{far_end}  {fmt_count(count)} {fmt_speed(speed_gbit_s)}  ◂"
        self.setToolTip(f"Link owned by {owner or 'the design root'}: {count:,} × {speed_gbit_s:g} Gb/s "
                        f"to {far_end}.\nStep out to see or edit it.")
        self.setZValue(-1)
        card.links.append(self)  # type: ignore[arg-type]  (moves with the card)
        self.update_path()

    def detach(self) -> None:
        if self in self.card.links:
            self.card.links.remove(self)  # type: ignore[arg-type]

    def update_path(self) -> None:
        self.prepareGeometryChange()
        rect = self.card.card_rect().translated(self.card.pos())
        # Stubs leave the card's left side (links inside the block mostly run vertically);
        # several stubs of one card stack downwards.
        y = rect.top() + 18 + self.slot * 22
        self._start = QPointF(rect.left(), y)
        self._end = QPointF(rect.left() - self.STUB, y)
        metrics = QFontMetricsF(_SUB)
        w = metrics.horizontalAdvance(self.label) + 14
        self._label_rect = QRectF(self._end.x() - w, y - 9, w, 18)
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._start, self._end).normalized().adjusted(-4, -4, 4, 4).united(self._label_rect)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour, width, _dash = style.LINK_STYLE.get(self.kind, style.LINK_STYLE["scale-out"])
        painter.setPen(QPen(QColor(colour), width * 0.8, Qt.PenStyle.DashLine, Qt.PenCapStyle.RoundCap))
        painter.drawLine(self._start, self._end)
        painter.setPen(QPen(QColor(colour), 1.0, Qt.PenStyle.DashLine))
        painter.setBrush(QColor("#ffffff"))
        painter.drawRoundedRect(self._label_rect, 9, 9)
        painter.setFont(_SUB)
        painter.setPen(QColor(colour).darker(120))
        painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.label)
