"""The picture an expanded block card draws of its children: one small tile per child at its
scaled position (up to PREVIEW_MAX_CHILDREN), and a wire per link bundle between them."""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple, Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen

from designer.canvas.drawing import SUB_FONT, TILE_BADGE_FONT, WIRE_LABEL_FONT, draw_badge, elide, rect_exit
from designer.common import icons, style
from designer.common.format import count as fmt_count

# An expanded block card draws a scaled-down picture of its contents (the "preview").
PREVIEW_MAX_CHILDREN = 40            # the rest is counted in a "… N more" note
TILE_W, TILE_H = 136.0, 40.0         # a child's card in the preview, at full detail
TILE_GAP_X, TILE_GAP_Y = 30.0, 40.0  # wanted room between tiles; the vertical room fits a count label
PREVIEW_MAX_SCALE = 1.0              # never spread children wider apart than the canvas does
PREVIEW_MARGIN = 14.0                # inside the diagram frame: room for the badges that overhang tiles
PREVIEW_MAX_W, PREVIEW_MAX_H = 640.0, 440.0
PREVIEW_MIN_H = 96.0
PARALLEL_WIRE_GAP = 6.0


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


NO_PREVIEW = Preview((), (), 0, QSizeF())


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


def layout_preview(children: Sequence[PreviewChild], links: Sequence[PreviewLink]) -> Preview:
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
    line = QLineF(rect_exit(rect_a, start, end), rect_exit(rect_b, end, start))
    text = fmt_count(link.count)
    width = QFontMetricsF(WIRE_LABEL_FONT).horizontalAdvance(text) + 10
    centre = line.center()
    label_rect: QRectF | None = QRectF(centre.x() - width / 2, centre.y() - 7, width, 14)
    if any(label_rect.intersects(rect) for rect in taken):
        label_rect = None
    else:
        taken.append(label_rect)
    return PreviewWire(link.a, link.b, link.kind, link.count, line, label_rect)


def paint_wire(painter: QPainter, wire: PreviewWire) -> None:
    colour, width, dash = style.LINK_STYLE.get(wire.kind, style.LINK_STYLE["scale-out"])
    painter.setPen(QPen(QColor(colour), max(1.2, width * 0.6), dash, Qt.PenCapStyle.RoundCap))
    painter.drawLine(wire.line)
    if wire.label_rect is None:
        return
    painter.setPen(QPen(QColor(colour), 1.0))
    painter.setBrush(QColor("#ffffff"))
    painter.drawRoundedRect(wire.label_rect, 7, 7)
    painter.setFont(WIRE_LABEL_FONT)
    painter.setPen(QColor(colour).darker(120))
    painter.drawText(wire.label_rect, Qt.AlignmentFlag.AlignCenter, fmt_count(wire.count))


def paint_tile(painter: QPainter, tile: PreviewTile) -> None:
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
        painter.setFont(SUB_FONT)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         elide(tile.label, SUB_FONT, text_rect.width()))
        draw_badge(painter, rect.right() + 3, rect.top(), count, accent, TILE_BADGE_FONT, 14.0)
    elif text_rect.width() >= QFontMetricsF(TILE_BADGE_FONT).horizontalAdvance(count):
        painter.setPen(accent.darker(110))
        painter.setFont(TILE_BADGE_FONT)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, count)
