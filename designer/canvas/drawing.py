"""What the canvas's items paint alike: their fonts, a text cut to a width, a count badge, a
partition tag's pill, and where a ray leaves a rectangle (links and preview wires end there)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

TITLE_FONT = QFont()
TITLE_FONT.setPointSizeF(9.5)
TITLE_FONT.setBold(True)
SUB_FONT = QFont()
SUB_FONT.setPointSizeF(8.0)
BADGE_FONT = QFont()
BADGE_FONT.setPointSizeF(8.5)
BADGE_FONT.setBold(True)
TILE_BADGE_FONT = QFont()
TILE_BADGE_FONT.setPointSizeF(7.0)
TILE_BADGE_FONT.setBold(True)
TAG_FONT = QFont()
TAG_FONT.setPointSizeF(7.5)
TAG_FONT.setBold(True)
TAG_H = 16.0  # a partition tag's height (it straddles the card's bottom edge)
WIRE_LABEL_FONT = QFont()
WIRE_LABEL_FONT.setPointSizeF(7.0)


def elide(text: str, font: QFont, width: float) -> str:
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, width)


def draw_badge(painter: QPainter, right: float, top: float, text: str, fill: QColor,
                font: QFont = BADGE_FONT, height: float = 18.0) -> None:
    metrics = QFontMetricsF(font)
    w = metrics.horizontalAdvance(text) + height * 2 / 3
    rect = QRectF(right - w, top - height / 2, w, height)
    painter.setPen(QPen(QColor("#ffffff"), height / 12))
    painter.setBrush(fill)
    painter.drawRoundedRect(rect, height / 2, height / 2)
    painter.setPen(QColor("#ffffff"))
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def draw_pill(painter: QPainter, right: float, middle: float, text: str, colour: QColor, filled: bool) -> float:
    """A partition tag ending at ``right``, centred on ``middle``; its width."""
    width = QFontMetricsF(TAG_FONT).horizontalAdvance(text) + TAG_H
    pill = QRectF(right - width, middle - TAG_H / 2, width, TAG_H)
    painter.setPen(QPen(colour, 1.2))
    painter.setBrush(colour if filled else QColor("#ffffff"))
    painter.drawRoundedRect(pill, TAG_H / 2, TAG_H / 2)
    painter.setPen(QColor("#ffffff") if filled else colour)
    painter.setFont(TAG_FONT)
    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
    return width


def rect_exit(rect: QRectF, origin: QPointF, toward: QPointF) -> QPointF:
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
