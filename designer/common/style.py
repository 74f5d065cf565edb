"""Colours and sizes shared by the canvas, the charts and the exports (one look everywhere)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QLabel

# Link kinds (core.model.LINK_KINDS): colour, pen width, dash pattern.
LINK_STYLE: dict[str, tuple[str, float, Qt.PenStyle]] = {
    "scale-up": ("#7b1fa2", 4.0, Qt.PenStyle.SolidLine),
    "scale-out": ("#1565c0", 2.6, Qt.PenStyle.SolidLine),
    "storage": ("#ef6c00", 2.4, Qt.PenStyle.DashLine),
    "frontend": ("#607d8b", 2.0, Qt.PenStyle.DotLine),
}

# Catalog kinds: accent colour of cards and chart bars (matches resources/icons/<kind>.svg).
KIND_COLOR: dict[str, str] = {
    "accelerator": "#2e7d32",
    "server": "#1565c0",
    "supernode": "#4527a0",
    "switch": "#00838f",
    "nic": "#6d4c41",
    "dpu": "#ad1457",
    "storage": "#ef6c00",
    "transceiver": "#546e7a",
    "cable": "#795548",
    "block": "#455a64",
    "compute": "#1565c0",
}

# Palette for charts whose categories are not kinds (breakdown parts, levels).
SERIES = ["#1565c0", "#2e7d32", "#ef6c00", "#7b1fa2", "#00838f", "#c62828", "#6d4c41",
          "#f9a825", "#546e7a", "#ad1457", "#9e9d24"]

CANVAS_BACKGROUND = QColor("#f7f9fb")
GRID_DOT = QColor("#d5dbe1")
CARD_FILL = QColor("#ffffff")
CARD_BORDER = QColor("#b0bec5")
SELECTION = QColor("#ff8f00")
TEXT = QColor("#263238")
SUBTEXT = QColor("#607d8b")
GRID = 20.0  # snap grid, scene units
# Failure what-ifs: failed units in red, drained ones (out on purpose) in grey.
FAILED = QColor("#d32f2f")
DRAINED = QColor("#78909c")


def color(kind: str) -> QColor:
    return QColor(KIND_COLOR.get(kind, "#455a64"))


def tinted(label: QLabel, hex_color: str, bold: bool = False) -> QLabel:
    """``label`` in ``hex_color`` (and semi-bold) through its palette and font: a style sheet per
    label costs ~0.2 ms to parse and polish, and a panel's first fill makes a few hundred rows
    (about a tenth of the window's start; bench/bench_startup.py)."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(hex_color))
    label.setPalette(palette)
    if bold:
        font = label.font()
        font.setWeight(QFont.Weight.DemiBold)
        label.setFont(font)
    return label
