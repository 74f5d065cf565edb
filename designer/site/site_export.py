"""``export PROJECT -o FILE`` for the floor plan: which file a name asks for, written atomically.

The floor plan's files are text (core/site/export.py), so they need no Qt; only the floor plan
as PDF is drawn with Qt (its SVG through QSvgRenderer onto a QPdfWriter page, as vectors),
imported when a PDF is asked for, so the CSV and SVG exports still run without it."""

from __future__ import annotations

from pathlib import Path

from core.errors import DesignError
from core.project import atomic_write_bytes, atomic_write_text
from core.site.export import cable_schedule_csv, floor_svg, racks_csv, racks_svg
from core.site.place import place

SITE_EXPORTS = ("cables", "racks", "floor")
_EXTENSIONS = {"cables": (".csv",), "racks": (".csv", ".svg"), "floor": (".svg", ".pdf")}
# A PDF page is at most 14,400 pt on a side (PDF 1.7, Annex C, user unit 1): a larger floor plan
# (a 1,000,000-GPU campus) is scaled down to fit, as vectors it stays sharp when zoomed.
MAX_PAGE_PT = 14_400.0


def site_export_for(path: Path) -> str | None:
    """The floor-plan file a name asks for, or None (the diagram): *.csv is the cable schedule
    (rack*.csv the elevations); floor*.svg / floor*.pdf the floor plan; rack*.svg the elevations."""
    ext, stem = path.suffix.lower(), path.stem.lower()
    if ext == ".csv":
        return "racks" if stem.startswith("rack") else "cables"
    if ext in (".svg", ".pdf") and stem.startswith("floor"):
        return "floor"
    if ext == ".svg" and stem.startswith("rack"):
        return "racks"
    return None


def export_site(design, path: Path, what: str) -> None:
    ext = path.suffix.lower()
    if ext not in _EXTENSIONS[what]:
        raise DesignError(f"{path.name}: the {what} export is written as "
                          + " or ".join(_EXTENSIONS[what]))
    site, flat, graph = place(design)
    if what == "cables":
        text = cable_schedule_csv(site, flat, graph)
    elif what == "racks":
        text = racks_csv(site, flat) if ext == ".csv" else racks_svg(site, flat)
    else:
        text = floor_svg(site)
    if ext == ".pdf":
        atomic_write_bytes(path, svg_pdf_bytes(text, f"{design.name}: floor plan"))
    else:
        atomic_write_text(path, text)


def svg_pdf_bytes(svg: str, title: str) -> bytes:
    """``svg`` drawn on one PDF page of its own size (1 SVG pixel = 1 pt, scaled down past
    MAX_PAGE_PT), as vectors: rectangles, lines and text stay shapes and text."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF  # noqa: PLC0415
    from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter  # noqa: PLC0415
    from PySide6.QtSvg import QSvgRenderer  # noqa: PLC0415

    from designer.common.qtapp import ensure_app  # noqa: PLC0415 - fonts need a Qt application

    ensure_app(headless=True)
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    if not renderer.isValid():
        raise DesignError("the floor plan could not be drawn as PDF (invalid SVG)")
    size = renderer.defaultSize()
    scale = min(1.0, MAX_PAGE_PT / max(size.width(), size.height(), 1))
    width, height = max(1.0, size.width() * scale), max(1.0, size.height() * scale)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(title)
    writer.setCreator("Cluster Designer")
    writer.setResolution(72)  # 1 device pixel = 1 pt
    page = QPageSize(QSizeF(width, height), QPageSize.Unit.Point, "floor plan",
                     QPageSize.SizeMatchPolicy.ExactMatch)
    writer.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    painter = QPainter(writer)
    renderer.render(painter, QRectF(painter.viewport()))
    painter.end()
    buffer.close()
    return bytes(buffer.data())
