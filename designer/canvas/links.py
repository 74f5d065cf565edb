"""Link items of the canvas: a link bundle between two cards with its label pill, the line and
pill it shares with an aggregated group bundle, and the stub of a link owned by an outer block."""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle

from designer.canvas.drawing import SUB_FONT, rect_exit
from designer.canvas.items import Card
from designer.common import style
from designer.common.format import count as fmt_count, out_of_service_text, speed as fmt_speed


PARALLEL_SPACING = 46.0  # between the parallel lines of one pair of cards (their bend)


def _border_point(card: Card, toward: QPointF) -> QPointF:
    """Where the segment from the card's position to ``toward`` leaves the card's rectangle.

    The position is the centre of a card, but not of an expanded block, which grows downwards
    and sideways; the exit is computed on the real rectangle either way.
    """
    return rect_exit(card.card_rect().translated(card.pos()), card.pos(), toward)


def bundle_path(source, target, bend: float) -> QPainterPath:
    """The line of a link between two cards (anything with ``pos()`` and ``card_rect()``), from
    border to border, curved sideways by ``bend`` (parallel bundles of one pair)."""
    p1, p2 = source.pos(), target.pos()
    mid = (p1 + p2) / 2
    line = QLineF(p1, p2)
    normal = QPointF(-line.dy(), line.dx())
    length = math.hypot(normal.x(), normal.y()) or 1.0
    control = mid + normal / length * bend
    a = _border_point(source, control)
    b = _border_point(target, control)
    path = QPainterPath(a)
    if bend:
        path.quadTo(control, b)
    else:
        path.lineTo(b)
    return path


def label_rect_at(centre: QPointF, label: str) -> QRectF:
    """The pill a link's label is drawn in, centred on ``centre``."""
    w = QFontMetricsF(SUB_FONT).horizontalAdvance(label) + 12
    return QRectF(centre.x() - w / 2, centre.y() - 9, w, 18)


def paint_link(painter: QPainter, path: QPainterPath, label_rect: QRectF, label: str, kind: str,
               selected: bool) -> None:
    """A link's line (highlighted when selected) and its label pill, in the colours of its kind."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour, width, dash = style.LINK_STYLE.get(kind, style.LINK_STYLE["scale-out"])
    if selected:
        painter.setPen(QPen(style.SELECTION, width + 5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.drawPath(path)
    pen = QPen(QColor(colour), width, dash, Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(path)
    painter.setPen(QPen(QColor(colour), 1.2))
    painter.setBrush(QColor("#ffffff"))
    painter.drawRoundedRect(label_rect, 9, 9)
    painter.setFont(SUB_FONT)
    painter.setPen(QColor(colour).darker(120))
    painter.drawText(label_rect, Qt.AlignmentFlag.AlignCenter, label)


class BundleLine(QGraphicsItem):
    """A selectable line between two cards with a label pill halfway: what a link bundle and an
    aggregated group bundle share. Subclasses set ``_path`` and ``_label_rect`` in their
    ``update_path`` and paint them."""

    def __init__(self, key: str):
        super().__init__()
        self.key = key
        self.label = ""
        self.bend = 0.0  # separates parallel lines between one pair of cards
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-1)
        self._path = QPainterPath()
        self._label_rect = QRectF()

    def path(self) -> QPainterPath:
        """The drawn line, from the source card's border to the target card's border."""
        return QPainterPath(self._path)

    def label_rect(self) -> QRectF:
        """The pill with the bundle's count and speed, halfway along the line."""
        return QRectF(self._label_rect)

    def boundingRect(self) -> QRectF:
        return self._path.boundingRect().adjusted(-8, -8, 8, 8).united(self._label_rect.adjusted(-2, -2, 2, 2))

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        shape = stroker.createStroke(self._path)
        shape.addRect(self._label_rect)
        return shape


class LinkItem(BundleLine):
    """A link bundle between two cards; ``bend`` separates parallel bundles of one pair."""

    def __init__(self, key: str, source: Card, target: Card):
        super().__init__(key)  # key: link id in the current block
        self.source, self.target = source, target
        source.links.append(self)
        target.links.append(self)
        self.kind = "scale-out"
        self.out_of_service = (0, 0)  # (failed, drained) cables over the owning block's instances

    def detach(self) -> None:
        for card in (self.source, self.target):
            if self in card.links:
                card.links.remove(self)

    def set_data(self, kind: str, speed_gbit_s: float, count: int, length_m: float,
                 medium: str, endpoints: str, failed: int = 0, drained: int = 0) -> None:
        self.kind = kind
        self.out_of_service = (failed, drained)
        out = out_of_service_text(failed, drained)
        self.label = f"{fmt_count(count)} {fmt_speed(speed_gbit_s)}" + (f"  {out}" if out else "")
        self.setToolTip(f"{endpoints}\n{kind}: {count:,} × {speed_gbit_s:g} Gb/s, "
                        f"{length_m:g} m {medium}" + (f"\n⚠ {out} cables" if out else ""))
        self.update_path()

    def update_path(self) -> None:
        self.prepareGeometryChange()
        self._path = bundle_path(self.source, self.target, self.bend)
        self._label_rect = label_rect_at(self._path.pointAtPercent(0.5), self.label)
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        failed, drained = self.out_of_service
        if failed or drained:  # a red (grey) dashed line under the label: cables out of service
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(style.FAILED if failed else style.DRAINED, 7, Qt.PenStyle.DashLine))
            painter.drawPath(self._path)
        paint_link(painter, self._path, self._label_rect, self.label, self.kind,
                   bool(option.state & QStyle.StateFlag.State_Selected))


class ExternalLinkItem(QGraphicsItem):
    """A stub showing that a link owned by an outer block reaches a card of this block.

    Inside a block the outer fabric is not drawn, yet users need to see that e.g. the spines
    of a pod go up to the core: a short dashed stub beside the card names the far end.
    """

    STUB = 40.0

    def __init__(self, card: Card, slot: int, kind: str, far_end: str, count: int, speed_gbit_s: float,
                 owner: str):
        super().__init__()
        self.card = card
        self.slot = slot
        self.kind = kind
        self.label = f"{far_end}  {fmt_count(count)} {fmt_speed(speed_gbit_s)}  ◂"
        self.setToolTip(f"Link owned by {owner or 'the design root'}: {count:,} × {speed_gbit_s:g} Gb/s "
                        f"to {far_end}.\nStep out to see or edit it.")
        self.setZValue(-1)
        card.links.append(self)  # (moves with the card)
        self.update_path()

    def detach(self) -> None:
        if self in self.card.links:
            self.card.links.remove(self)

    def update_path(self) -> None:
        self.prepareGeometryChange()
        rect = self.card.card_rect().translated(self.card.pos())
        # Stubs leave the card's left side (links inside the block mostly run vertically);
        # several stubs of one card stack downwards.
        y = rect.top() + 18 + self.slot * 22
        self._start = QPointF(rect.left(), y)
        self._end = QPointF(rect.left() - self.STUB, y)
        metrics = QFontMetricsF(SUB_FONT)
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
        painter.setFont(SUB_FONT)
        painter.setPen(QColor(colour).darker(120))
        painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.label)
