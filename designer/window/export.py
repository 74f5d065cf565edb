"""Diagram export (SVG and PDF as vectors, PNG at a chosen width) and summary export.

``export_diagram`` is what ``cluster-designer export`` calls; it works headless (it creates an
offscreen QApplication when none exists). Files are written atomically: a failed export leaves
no partial file.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, QPixmap
from PySide6.QtSvg import QSvgGenerator

from core.errors import DesignError
from core.model import Design
from core.project import atomic_write_bytes, atomic_write_text

DIAGRAM_FORMATS = (".svg", ".png", ".pdf")
SUMMARY_FORMATS = {".md": "md", ".html": "html", ".htm": "html", ".csv": "csv", ".json": "json"}
# The file extensions each summary format is saved under, the usual one first.
SUMMARY_EXTENSIONS = {"md": (".md",), "html": (".html", ".htm"), "csv": (".csv",), "json": (".json",),
                      "bom": (".csv",)}
MARGIN = 30.0
MAX_PNG_PIXELS = 20_000
# A PNG is rendered into one ARGB image: 64 megapixels are 256 MB. A tall diagram at a wide width
# would otherwise ask for gigabytes (height follows the diagram's aspect ratio).
MAX_PNG_MEGAPIXELS = 64


def with_extension(name: str, ext: str, accepted: tuple[str, ...]) -> Path:
    """The file a save dialog's ``name`` means: as typed when it ends with one of the
    ``accepted`` extensions, else with ``ext`` added ("pod" and "pod.v2" become "pod.md",
    "pod.v2.md")."""
    path = Path(name)
    return path if path.suffix.lower() in accepted else path.with_name(path.name + ext)


def _check_diagram_path(path: Path) -> str:
    ext = path.suffix.lower()
    if ext not in DIAGRAM_FORMATS:
        raise DesignError(f"{path.name}: unknown diagram format {ext or '(none)'!r}; use .svg, .png or .pdf")
    return ext


def render_scene(scene, path: Path, width_px: int = 1600, selected_only: bool = False, title: str = "") -> None:
    """Render ``scene`` (a DesignScene) to ``path``; the format follows the extension."""
    path = Path(path)
    ext = _check_diagram_path(path)
    if width_px < 1 or width_px > MAX_PNG_PIXELS:
        raise DesignError(f"width {width_px} px is out of range (1-{MAX_PNG_PIXELS})")
    selected = list(scene.selectedItems())
    source = scene.content_rect(selected_only=selected_only)
    if selected_only and not selected:
        raise DesignError("nothing is selected to export")
    if source.isNull():
        source = QRectF(-200, -100, 400, 200)
    source = source.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
    hidden = []
    if selected_only:
        chosen = set(selected)
        for item in scene.items():
            if item not in chosen and item.isVisible() and item.parentItem() is None:
                item.hide()
                hidden.append(item)
    scene.clearSelection()  # the orange selection frame is an editing aid, not part of a diagram
    scene.show_grid = False
    try:
        data = _render(scene, source, ext, width_px, title or "Cluster Designer diagram")
    finally:
        scene.show_grid = True
        for item in hidden:
            item.show()
        for item in selected:
            item.setSelected(True)
    atomic_write_bytes(path, data)


def png_bytes(image: QImage | QPixmap) -> bytes:
    """``image`` encoded as PNG, ready for an atomic save (a failed write leaves no partial file)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(buffer.data())


def _render(scene, source: QRectF, ext: str, width_px: int, title: str) -> bytes:
    if ext == ".png":
        height = max(1, round(width_px * source.height() / source.width()))
        if width_px * height > MAX_PNG_MEGAPIXELS * 1e6:
            widest = max(1, int(width_px * (MAX_PNG_MEGAPIXELS * 1e6 / (width_px * height)) ** 0.5))
            raise DesignError(f"a {width_px:,} x {height:,} px PNG is larger than {MAX_PNG_MEGAPIXELS} "
                              f"megapixels: use a width of at most {widest:,} px, or SVG or PDF")
        image = QImage(width_px, height, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.white)
        painter = QPainter(image)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        scene.render(painter, QRectF(0, 0, width_px, height), source)
        painter.end()
        return png_bytes(image)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if ext == ".svg":
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        w, h = round(source.width()), round(source.height())
        generator.setSize(QSize(w, h))
        generator.setViewBox(QRectF(0, 0, w, h))
        generator.setTitle(title)
        generator.setDescription("Exported by Cluster Designer")
        painter = QPainter(generator)
        scene.render(painter, QRectF(0, 0, w, h), source)
        painter.end()
    else:
        writer = QPdfWriter(buffer)
        writer.setTitle(title)
        writer.setCreator("Cluster Designer")
        writer.setResolution(72)  # 1 scene unit = 1 pt: text and lines keep their proportions
        size = QPageSize(QSizeF(source.width(), source.height()), QPageSize.Unit.Point, "diagram",
                         QPageSize.SizeMatchPolicy.ExactMatch)
        writer.setPageLayout(QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        painter = QPainter(writer)
        target = QRectF(painter.viewport())
        scene.render(painter, target, source)
        painter.end()
    buffer.close()
    return bytes(buffer.data())


def export_diagram(design: Design, path: Path, width_px: int = 1600) -> None:
    """Export the top level of ``design`` as SVG, PNG (``width_px`` wide) or PDF (headless-safe)."""
    path = Path(path)
    _check_diagram_path(path)
    from core.catalog import default_catalog  # noqa: PLC0415
    from designer.canvas.scene import DesignScene  # noqa: PLC0415
    from designer.common.qtapp import ensure_app  # noqa: PLC0415

    ensure_app(headless=True)
    scene = DesignScene(design, default_catalog())
    render_scene(scene, path, width_px, title=design.name)


def export_summary(evaluation, path: Path, fmt: str | None = None) -> None:
    """Write the evaluation summary as md/html/csv/json, or the bill of materials (``fmt="bom"``)."""
    from core.evaluate import evaluation_to_json  # noqa: PLC0415

    path = Path(path)
    fmt = fmt or SUMMARY_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise DesignError(f"{path.name}: unknown summary format; use .md, .html, .csv or .json")
    if fmt == "json":
        text = json.dumps(evaluation_to_json(evaluation), indent=2, allow_nan=False) + "\n"
    else:
        from core.report import render_report  # noqa: PLC0415 - the same code the CLI uses

        text = render_report(evaluation, fmt)
    atomic_write_text(path, text)
