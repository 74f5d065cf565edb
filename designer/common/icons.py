"""SVG icons of catalog kinds (resources/icons/<kind>.svg), loaded once and shared."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtSvg import QSvgRenderer

ICON_DIR = Path(__file__).resolve().parents[2] / "resources" / "icons"  # designer/common/ -> the checkout
FALLBACK = "block"


def icon_path(kind: str) -> Path:
    path = ICON_DIR / f"{kind}.svg"
    return path if path.exists() else ICON_DIR / f"{FALLBACK}.svg"


@lru_cache(maxsize=None)
def renderer(kind: str) -> QSvgRenderer:
    """A shared renderer: canvas items paint through it, so SVG/PDF exports stay vector."""
    return QSvgRenderer(str(icon_path(kind)))


@lru_cache(maxsize=None)
def icon(kind: str) -> QIcon:
    return QIcon(str(icon_path(kind)))
