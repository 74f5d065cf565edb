"""Scene items: component cards and block cards (link items: designer/canvas/links.py; an
expanded block's picture: preview.py).

Items read the model through the scene and hold no design state of their own besides the
position the user is dragging (committed as one MoveItems on release).
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem

from designer.canvas.drawing import BADGE_FONT, SUB_FONT, TAG_FONT, TAG_H, TITLE_FONT, draw_badge, draw_pill, elide
from designer.canvas.partition_tags import PartitionTag
from designer.canvas.preview import NO_PREVIEW, Preview, PreviewChild, PreviewLink, layout_preview, paint_tile, paint_wire
from designer.common import icons, style
from designer.common.format import count as fmt_count, out_of_service_text

CARD_W, CARD_H = 200.0, 64.0
BLOCK_W, BLOCK_H = 220.0, 84.0

EXPANDED_MIN_W = 300.0
BLOCK_HEAD_H = 50.0                  # header band and role line above the diagram
CARD_PAD = 10.0                      # between the card's border and the diagram frame
NOTE_H = 18.0


class Card(QGraphicsItem):
    """Common behaviour of component and block cards: selection, snapping, link updates."""

    def __init__(self, key: str, path: str):
        super().__init__()
        self.key = key          # id in the current block
        self.path = path        # design path
        self.links: list[QGraphicsItem] = []  # its LinkItems and ExternalLinkItems (canvas/links.py)
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        self.setAcceptHoverEvents(True)
        self._hover = False
        self.highlight = False  # drop target of a link drag
        # (failed, drained) units over the whole design, and the units there are
        self.out_of_service: tuple[int, int, int] = (0, 0, 0)
        self.partition_tags: tuple[PartitionTag, ...] = ()  # the partitions it runs (canvas/partition_tags.py)

    def set_out_of_service(self, failed: int, drained: int, units: int) -> None:
        self.out_of_service = (failed, drained, units)
        self.setToolTip(self.toolTip().split("\n⚠")[0] + (
            f"\n⚠ {out_of_service_text(failed, drained)} of {units:,} in the design" if failed or drained else ""))
        self.update()

    def set_partition_tags(self, tags: tuple[PartitionTag, ...]) -> None:
        """Tag the card with the partitions it belongs to; after ``set_data``, which sets the
        tooltip this adds a line to."""
        if tags != self.partition_tags:
            self.prepareGeometryChange()  # a component card's tags overhang its bounds
            self.partition_tags = tags
            self.update()
        if tags:
            self.setToolTip(self.toolTip() + "\n" + "\n".join(tag.tooltip for tag in tags))

    def _paint_partition_tags(self, painter: QPainter, rect: QRectF) -> None:
        """The partitions' names in small pills on the card's bottom edge, from the right: filled
        for a partition the card is in, outlined for one it holds part of; "+N" for those that
        do not fit."""
        tags = self.partition_tags
        if not tags:
            return
        metrics = QFontMetricsF(TAG_FONT)
        right, left = rect.right() - 10, rect.left() + 10
        for n, tag in enumerate(tags):
            more = len(tags) - n - 1
            reserve = metrics.horizontalAdvance(f"+{more}") + TAG_H + 4 if more else 0.0
            text = tag.text
            if right - metrics.horizontalAdvance(text) - TAG_H - reserve < left:
                if n:  # the rest in one pill
                    draw_pill(painter, right, rect.bottom(), f"+{more + 1}", style.SUBTEXT, True)
                    return
                text = elide(text, TAG_FONT, right - left - reserve - TAG_H)
            right -= draw_pill(painter, right, rect.bottom(), text, QColor(tag.color), tag.whole) + 4

    def _paint_out_of_service(self, painter: QPainter, rect: QRectF, radius: float) -> None:
        """Failed units: a red hatch and frame with the count; drained ones the same in grey."""
        failed, drained, units = self.out_of_service
        if not failed and not drained:
            return
        colour = style.FAILED if failed else style.DRAINED
        whole = failed + drained >= units
        painter.save()
        hatch = QColor(colour)
        hatch.setAlpha(150 if whole else 90)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(hatch, Qt.BrushStyle.BDiagPattern if whole else Qt.BrushStyle.FDiagPattern))
        painter.drawRoundedRect(rect, radius, radius)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(colour, 2.6, Qt.PenStyle.SolidLine if failed else Qt.PenStyle.DashLine))
        painter.drawRoundedRect(rect, radius, radius)
        if whole and failed:  # a cross says "none of it works" before the badge is read
            painter.setPen(QPen(colour, 2.0))
            painter.drawLine(rect.topLeft() + QPointF(6, 6), rect.bottomRight() - QPointF(6, 6))
            painter.drawLine(rect.bottomLeft() + QPointF(6, -6), rect.topRight() + QPointF(-6, 6))
        painter.restore()
        text = out_of_service_text(failed, drained)
        width = QFontMetricsF(BADGE_FONT).horizontalAdvance(text) + 12
        draw_badge(painter, rect.left() + width - 6, rect.bottom(), text, colour)

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


class ComponentItem(Card):
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
        tags = TAG_H / 2 if self.partition_tags else 0.0
        return QRectF(-CARD_W / 2 - 4, -CARD_H / 2 - 12, CARD_W + 10, CARD_H + 16 + tags)

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
        painter.setFont(TITLE_FONT)
        painter.drawText(QRectF(text_left, rect.top() + 10, width, 20),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         elide(self.title, TITLE_FONT, width))
        painter.setPen(style.SUBTEXT)
        painter.setFont(SUB_FONT)
        painter.drawText(QRectF(text_left, rect.top() + 30, width, 16),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         elide(self.subtitle, SUB_FONT, width))
        if self.tier:
            painter.drawText(QRectF(text_left, rect.top() + 45, width, 14),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"tier: {self.tier}")
        draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(self.count), accent)
        self._paint_out_of_service(painter, rect, 8)
        self._paint_partition_tags(painter, rect)


class BlockItem(Card):
    """A repeated block, drawn as a stack of cards; expanded, it draws a small picture of its
    children and of the links between them (read-only: double-click steps inside to edit)."""

    def __init__(self, key: str, path: str):
        super().__init__(key, path)
        self.title = key
        self.role = ""
        self.count = 1
        self.collapsed = True
        self.summary = ""
        self._preview = NO_PREVIEW

    def set_data(self, title: str, role: str, count: int, collapsed: bool, summary: str,
                 children: Sequence[PreviewChild], links: Sequence[PreviewLink]) -> None:
        self.prepareGeometryChange()
        self.title, self.role, self.count, self.collapsed = title, role, count, collapsed
        self.summary = summary
        # Laid out here rather than in paint(): paint runs far more often than the model changes.
        self._preview = NO_PREVIEW if collapsed else layout_preview(children, links)
        self.setToolTip(f"{title} ({role or 'block'}) ×{count:,}\n{summary}\nDouble-click to step inside")
        for link in self.links:
            link.update_path()
        self.update()

    def preview_items(self) -> Preview:
        """What the expanded card draws (nothing when collapsed); geometry is relative to the
        centre of ``diagram_rect()``."""
        return self._preview

    def card_rect(self) -> QRectF:
        if self.collapsed:
            return QRectF(-BLOCK_W / 2, -BLOCK_H / 2, BLOCK_W, BLOCK_H)
        # The header stays where the collapsed card's header is; the card grows down and sideways.
        size = self._preview.size
        width = max(EXPANDED_MIN_W, size.width() + 2 * CARD_PAD)
        height = BLOCK_HEAD_H + size.height() + CARD_PAD + (NOTE_H if self._preview.hidden else 0)
        return QRectF(-width / 2, -BLOCK_H / 2, width, height)

    def diagram_rect(self) -> QRectF:
        """The frame of the preview inside an expanded card."""
        rect = self.card_rect()
        return QRectF(rect.left() + CARD_PAD, rect.top() + BLOCK_HEAD_H, rect.width() - 2 * CARD_PAD,
                      self._preview.size.height())

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
        painter.setFont(TITLE_FONT)
        painter.drawText(QRectF(rect.left() + 32, rect.top() + 3, rect.width() - 80, 20),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         elide(self.title, TITLE_FONT, rect.width() - 80))
        painter.setPen(style.SUBTEXT)
        painter.setFont(SUB_FONT)
        role = (self.role or "block").upper()
        painter.drawText(QRectF(rect.left() + 10, rect.top() + 30, rect.width() - 20, 14),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         f"{role} · repeated ×{self.count:,}" if self.count > 1 else role)
        if self.collapsed:
            painter.setPen(style.TEXT)
            painter.drawText(QRectF(rect.left() + 10, rect.top() + 46, rect.width() - 20, 34),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                             self.summary)
        else:
            self._paint_preview(painter)
        draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(self.count), accent)
        self._paint_out_of_service(painter, rect, 10)
        self._paint_partition_tags(painter, rect)

    def _paint_preview(self, painter: QPainter) -> None:
        diagram = self.diagram_rect()
        painter.setPen(QPen(QColor("#e0e6ea"), 1))
        painter.setBrush(style.CANVAS_BACKGROUND)
        painter.drawRoundedRect(diagram, 6, 6)
        preview = self._preview
        if preview.hidden:
            painter.setPen(style.SUBTEXT)
            painter.setFont(SUB_FONT)
            note = QRectF(diagram.left() + 2, diagram.bottom() + 2, diagram.width() - 4, NOTE_H - 2)
            painter.drawText(note, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"… {preview.hidden:,} more (double-click to see all)")
        if not preview.tiles:
            painter.setPen(style.SUBTEXT)
            painter.setFont(SUB_FONT)
            painter.drawText(diagram, Qt.AlignmentFlag.AlignCenter, "empty")
            return
        painter.save()
        painter.setClipRect(diagram)  # a crowded preview must not spill over the card
        painter.translate(diagram.center())
        for wire in preview.wires:
            paint_wire(painter, wire)
        for tile in preview.tiles:
            paint_tile(painter, tile)
        painter.restore()
