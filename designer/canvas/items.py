"""Scene items: component cards, block cards and link bundles.

Items read the model through the scene and hold no design state of their own besides the
position the user is dragging (committed as one MoveItems on release).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple, Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem

from designer.canvas.partition_tags import PartitionTag
from designer.common import icons, style
from designer.common.format import count as fmt_count, out_of_service_text, speed as fmt_speed

CARD_W, CARD_H = 200.0, 64.0
BLOCK_W, BLOCK_H = 220.0, 84.0

# An expanded block card draws a scaled-down picture of its contents (the "preview").
PREVIEW_MAX_CHILDREN = 40            # the rest is counted in a "… N more" note
TILE_W, TILE_H = 136.0, 40.0         # a child's card in the preview, at full detail
TILE_GAP_X, TILE_GAP_Y = 30.0, 40.0  # wanted room between tiles; the vertical room fits a count label
PREVIEW_MAX_SCALE = 1.0              # never spread children wider apart than the canvas does
PREVIEW_MARGIN = 14.0                # inside the diagram frame: room for the badges that overhang tiles
PREVIEW_MAX_W, PREVIEW_MAX_H = 640.0, 440.0
PREVIEW_MIN_H = 96.0
EXPANDED_MIN_W = 300.0
BLOCK_HEAD_H = 50.0                  # header band and role line above the diagram
CARD_PAD = 10.0                      # between the card's border and the diagram frame
NOTE_H = 18.0
PARALLEL_WIRE_GAP = 6.0

_TITLE = QFont()
_TITLE.setPointSizeF(9.5)
_TITLE.setBold(True)
_SUB = QFont()
_SUB.setPointSizeF(8.0)
_BADGE = QFont()
_BADGE.setPointSizeF(8.5)
_BADGE.setBold(True)
_TILE_BADGE = QFont()
_TILE_BADGE.setPointSizeF(7.0)
_TILE_BADGE.setBold(True)
_TAG = QFont()
_TAG.setPointSizeF(7.5)
_TAG.setBold(True)
TAG_H = 16.0  # a partition tag's height (it straddles the card's bottom edge)
_WIRE_LABEL = QFont()
_WIRE_LABEL.setPointSizeF(7.0)


def _elide(text: str, font: QFont, width: float) -> str:
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, width)


def _draw_badge(painter: QPainter, right: float, top: float, text: str, fill: QColor,
                font: QFont = _BADGE, height: float = 18.0) -> None:
    metrics = QFontMetricsF(font)
    w = metrics.horizontalAdvance(text) + height * 2 / 3
    rect = QRectF(right - w, top - height / 2, w, height)
    painter.setPen(QPen(QColor("#ffffff"), height / 12))
    painter.setBrush(fill)
    painter.drawRoundedRect(rect, height / 2, height / 2)
    painter.setPen(QColor("#ffffff"))
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def _draw_pill(painter: QPainter, right: float, middle: float, text: str, colour: QColor, filled: bool) -> float:
    """A partition tag ending at ``right``, centred on ``middle``; its width."""
    width = QFontMetricsF(_TAG).horizontalAdvance(text) + TAG_H
    pill = QRectF(right - width, middle - TAG_H / 2, width, TAG_H)
    painter.setPen(QPen(colour, 1.2))
    painter.setBrush(colour if filled else QColor("#ffffff"))
    painter.drawRoundedRect(pill, TAG_H / 2, TAG_H / 2)
    painter.setPen(QColor("#ffffff") if filled else colour)
    painter.setFont(_TAG)
    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
    return width


def _rect_exit(rect: QRectF, origin: QPointF, toward: QPointF) -> QPointF:
    """Where the ray from ``origin`` (inside ``rect``) through ``toward`` leaves ``rect``."""
    dx, dy = toward.x() - origin.x(), toward.y() - origin.y()
    if dx == 0 and dy == 0:
        return origin
    scale = math.inf
    if dx > 0:
        scale = (rect.right() - origin.x()) / dx
    elif dx < 0:
        scale = (rect.left() - origin.x()) / dx
    if dy > 0:
        scale = min(scale, (rect.bottom() - origin.y()) / dy)
    elif dy < 0:
        scale = min(scale, (rect.top() - origin.y()) / dy)
    return QPointF(origin.x() + dx * scale, origin.y() + dy * scale)


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
        metrics = QFontMetricsF(_TAG)
        right, left = rect.right() - 10, rect.left() + 10
        for n, tag in enumerate(tags):
            more = len(tags) - n - 1
            reserve = metrics.horizontalAdvance(f"+{more}") + TAG_H + 4 if more else 0.0
            text = tag.text
            if right - metrics.horizontalAdvance(text) - TAG_H - reserve < left:
                if n:  # the rest in one pill
                    _draw_pill(painter, right, rect.bottom(), f"+{more + 1}", style.SUBTEXT, True)
                    return
                text = _elide(text, _TAG, right - left - reserve - TAG_H)
            right -= _draw_pill(painter, right, rect.bottom(), text, QColor(tag.color), tag.whole) + 4

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
        width = QFontMetricsF(_BADGE).horizontalAdvance(text) + 12
        _draw_badge(painter, rect.left() + width - 6, rect.bottom(), text, colour)

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
        self._paint_out_of_service(painter, rect, 8)
        self._paint_partition_tags(painter, rect)


class PreviewChild(NamedTuple):
    """One child of a block as its expanded card shows it (given by the scene)."""

    kind: str    # catalog kind, "block" for a nested block
    label: str
    count: int
    x: float     # position on the block's own canvas
    y: float


class PreviewLink(NamedTuple):
    """A link bundle of the block between two of its children (indexes into the children)."""

    a: int
    b: int
    kind: str
    count: int


class PreviewTile(NamedTuple):
    """A child's small card in the preview."""

    kind: str
    label: str
    count: int
    rect: QRectF  # relative to the centre of the diagram


class PreviewWire(NamedTuple):
    """A link's line in the preview, between the tiles of children ``a`` and ``b``."""

    a: int
    b: int
    kind: str
    count: int
    line: QLineF               # from tile border to tile border, relative to the diagram's centre
    label_rect: QRectF | None  # None where the count label would cover a tile or another label


class Preview(NamedTuple):
    """The laid-out picture an expanded block card draws."""

    tiles: tuple[PreviewTile, ...]
    wires: tuple[PreviewWire, ...]
    hidden: int   # children left out beyond PREVIEW_MAX_CHILDREN
    size: QSizeF  # the diagram's natural size


_NO_PREVIEW = Preview((), (), 0, QSizeF())


def _spacing_scale(children: Sequence[PreviewChild]) -> float:
    """The smallest scale of the children's positions at which their tiles keep the wanted gaps.

    Two tiles are apart once they are apart along either axis, so a pair needs the smaller of
    its per-axis scales and the layout the largest over the pairs. Coincident children cannot be
    separated by any scale and are left out. 0 when nothing needs separating.
    """
    needed = 0.0
    for i, a in enumerate(children):
        for b in children[i + 1:]:
            dx, dy = abs(a.x - b.x), abs(a.y - b.y)
            if dx == 0 and dy == 0:
                continue
            by_x = (TILE_W + TILE_GAP_X) / dx if dx else math.inf
            by_y = (TILE_H + TILE_GAP_Y) / dy if dy else math.inf
            needed = max(needed, min(by_x, by_y))
    return min(needed, PREVIEW_MAX_SCALE)


def _layout_preview(children: Sequence[PreviewChild], links: Sequence[PreviewLink]) -> Preview:
    """Place one tile per child (up to PREVIEW_MAX_CHILDREN) at its scaled position, and the wires."""
    shown = children[:PREVIEW_MAX_CHILDREN]
    hidden = len(children) - len(shown)
    if not shown:
        return Preview((), (), hidden, QSizeF(0, PREVIEW_MIN_H))
    xs, ys = [c.x for c in shown], [c.y for c in shown]
    span_w, span_h = max(xs) - min(xs), max(ys) - min(ys)
    spacing = _spacing_scale(shown) or PREVIEW_MAX_SCALE
    # Past the largest diagram, tiles shrink together with the spacing so they still do not
    # overlap: the content is then (span + tile / spacing) * scale along each axis.
    room_w, room_h = PREVIEW_MAX_W - 2 * PREVIEW_MARGIN, PREVIEW_MAX_H - 2 * PREVIEW_MARGIN
    scale = min(spacing, room_w / (span_w + TILE_W / spacing), room_h / (span_h + TILE_H / spacing))
    tile_w, tile_h = TILE_W * scale / spacing, TILE_H * scale / spacing
    mid_x, mid_y = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    tiles = tuple(
        PreviewTile(c.kind, c.label, c.count, QRectF((c.x - mid_x) * scale - tile_w / 2,
                                                     (c.y - mid_y) * scale - tile_h / 2, tile_w, tile_h))
        for c in shown)
    size = QSizeF(span_w * scale + tile_w + 2 * PREVIEW_MARGIN,
                  max(PREVIEW_MIN_H, span_h * scale + tile_h + 2 * PREVIEW_MARGIN))
    return Preview(tiles, _layout_wires(tiles, links), hidden, size)


def _layout_wires(tiles: tuple[PreviewTile, ...], links: Sequence[PreviewLink]) -> tuple[PreviewWire, ...]:
    """One straight wire per link between shown tiles, in link order; parallel bundles of one
    pair sit side by side."""
    drawn = [link for link in links if link.a < len(tiles) and link.b < len(tiles)]
    bundle_sizes = Counter(frozenset((link.a, link.b)) for link in drawn)
    placed: Counter[frozenset[int]] = Counter()
    # Count labels must not hide tiles, the badges overhanging their top-right corners, or
    # each other.
    taken = [tile.rect.adjusted(-2, -9, 5, 2) for tile in tiles]
    wires = []
    for link in drawn:
        pair = frozenset((link.a, link.b))
        # The sign keeps the spread on one side whichever way round each bundle was drawn.
        sign = 1.0 if link.a < link.b else -1.0
        offset = (placed[pair] - (bundle_sizes[pair] - 1) / 2) * PARALLEL_WIRE_GAP * sign
        placed[pair] += 1
        wires.append(_layout_wire(tiles, link, offset, taken))
    return tuple(wires)


def _layout_wire(tiles: tuple[PreviewTile, ...], link: PreviewLink, offset: float,
                 taken: list[QRectF]) -> PreviewWire:
    rect_a, rect_b = tiles[link.a].rect, tiles[link.b].rect
    centres = QLineF(rect_a.center(), rect_b.center())
    shift = QPointF()
    if centres.length() > 0:
        normal = centres.normalVector().unitVector()
        shift = QPointF(normal.dx(), normal.dy()) * offset
    start, end = rect_a.center() + shift, rect_b.center() + shift
    line = QLineF(_rect_exit(rect_a, start, end), _rect_exit(rect_b, end, start))
    text = fmt_count(link.count)
    width = QFontMetricsF(_WIRE_LABEL).horizontalAdvance(text) + 10
    centre = line.center()
    label_rect: QRectF | None = QRectF(centre.x() - width / 2, centre.y() - 7, width, 14)
    if any(label_rect.intersects(rect) for rect in taken):
        label_rect = None
    else:
        taken.append(label_rect)
    return PreviewWire(link.a, link.b, link.kind, link.count, line, label_rect)


class BlockItem(_Card):
    """A repeated block, drawn as a stack of cards; expanded, it draws a small picture of its
    children and of the links between them (read-only: double-click steps inside to edit)."""

    def __init__(self, key: str, path: str):
        super().__init__(key, path)
        self.title = key
        self.role = ""
        self.count = 1
        self.collapsed = True
        self.summary = ""
        self._preview = _NO_PREVIEW

    def set_data(self, title: str, role: str, count: int, collapsed: bool, summary: str,
                 children: Sequence[PreviewChild], links: Sequence[PreviewLink]) -> None:
        self.prepareGeometryChange()
        self.title, self.role, self.count, self.collapsed = title, role, count, collapsed
        self.summary = summary
        # Laid out here rather than in paint(): paint runs far more often than the model changes.
        self._preview = _NO_PREVIEW if collapsed else _layout_preview(children, links)
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
        if self.collapsed:
            painter.setPen(style.TEXT)
            painter.drawText(QRectF(rect.left() + 10, rect.top() + 46, rect.width() - 20, 34),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                             self.summary)
        else:
            self._paint_preview(painter)
        _draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(self.count), accent)
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
            painter.setFont(_SUB)
            note = QRectF(diagram.left() + 2, diagram.bottom() + 2, diagram.width() - 4, NOTE_H - 2)
            painter.drawText(note, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"… {preview.hidden:,} more (double-click to see all)")
        if not preview.tiles:
            painter.setPen(style.SUBTEXT)
            painter.setFont(_SUB)
            painter.drawText(diagram, Qt.AlignmentFlag.AlignCenter, "empty")
            return
        painter.save()
        painter.setClipRect(diagram)  # a crowded preview must not spill over the card
        painter.translate(diagram.center())
        for wire in preview.wires:
            _paint_wire(painter, wire)
        for tile in preview.tiles:
            _paint_tile(painter, tile)
        painter.restore()


def _paint_wire(painter: QPainter, wire: PreviewWire) -> None:
    colour, width, dash = style.LINK_STYLE.get(wire.kind, style.LINK_STYLE["scale-out"])
    painter.setPen(QPen(QColor(colour), max(1.2, width * 0.6), dash, Qt.PenCapStyle.RoundCap))
    painter.drawLine(wire.line)
    if wire.label_rect is None:
        return
    painter.setPen(QPen(QColor(colour), 1.0))
    painter.setBrush(QColor("#ffffff"))
    painter.drawRoundedRect(wire.label_rect, 7, 7)
    painter.setFont(_WIRE_LABEL)
    painter.setPen(QColor(colour).darker(120))
    painter.drawText(wire.label_rect, Qt.AlignmentFlag.AlignCenter, fmt_count(wire.count))


def _paint_tile(painter: QPainter, tile: PreviewTile) -> None:
    """A small card: icon, label and count badge; a tile too small for its label (a crowded
    preview) shows the count inside instead."""
    rect = tile.rect
    accent = style.color(tile.kind)
    is_block = tile.kind == "block"
    radius = min(6.0, rect.height() / 4)
    if is_block and tile.count > 1:  # repeated blocks keep their stack, as on the canvas
        painter.setPen(QPen(style.CARD_BORDER, 0.8))
        painter.setBrush(QColor("#eceff1"))
        painter.drawRoundedRect(rect.translated(3, 3), radius, radius)
    painter.setPen(QPen(accent.lighter(150) if is_block else style.CARD_BORDER, 1.0))
    painter.setBrush(QColor("#f3f6f8") if is_block else style.CARD_FILL)
    painter.drawRoundedRect(rect, radius, radius)
    icon = max(0.0, min(20.0, rect.height() - 8))
    if icon >= 6:
        icons.renderer(tile.kind).render(painter, QRectF(rect.left() + 6, rect.center().y() - icon / 2,
                                                         icon, icon))
    text_rect = QRectF(rect.left() + icon + 12, rect.top(), rect.width() - icon - 18, rect.height())
    count = fmt_count(tile.count)
    if rect.height() >= 24 and text_rect.width() >= 30:
        painter.setPen(style.TEXT)
        painter.setFont(_SUB)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         _elide(tile.label, _SUB, text_rect.width()))
        _draw_badge(painter, rect.right() + 3, rect.top(), count, accent, _TILE_BADGE, 14.0)
    elif text_rect.width() >= QFontMetricsF(_TILE_BADGE).horizontalAdvance(count):
        painter.setPen(accent.darker(110))
        painter.setFont(_TILE_BADGE)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, count)


def _border_point(card: _Card, toward: QPointF) -> QPointF:
    """Where the segment from the card's position to ``toward`` leaves the card's rectangle.

    The position is the centre of a card, but not of an expanded block, which grows downwards
    and sideways; the exit is computed on the real rectangle either way.
    """
    return _rect_exit(card.card_rect().translated(card.pos()), card.pos(), toward)


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
    w = QFontMetricsF(_SUB).horizontalAdvance(label) + 12
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
    painter.setFont(_SUB)
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

    def __init__(self, key: str, source: _Card, target: _Card):
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
