"""Entry point of the GUI (``cluster-designer [PROJECT] [--screenshot OUT.png]``)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer

from core.atomic_write import atomic_write_bytes
from core.errors import DesignError
from designer.export import png_bytes

SCREENSHOT_SIZE = (1600, 1000)
EVALUATION_TIMEOUT_MS = 120_000


def run(project_path: str, screenshot: str | None = None) -> int:
    """Open ``project_path`` in the main window. With ``screenshot``: wait for the first
    evaluation, save the window as PNG and return 0. A project that fails to load prints one
    line on stderr and returns 2."""
    from designer.qtapp import ensure_app  # noqa: PLC0415 - Qt starts only when the GUI runs

    app = ensure_app(headless=screenshot is not None)
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.project import load_project  # noqa: PLC0415
    from designer.main_window import MainWindow  # noqa: PLC0415

    try:
        catalog = default_catalog()
        design = load_project(project_path, catalog)
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        return 2
    window = MainWindow(catalog, interactive=screenshot is None)
    if screenshot is not None:
        return _screenshot(app, window, design, Path(project_path), Path(screenshot))
    window.load_design(design, Path(project_path))
    window.show()
    QTimer.singleShot(0, window.offer_recovery)
    return app.exec()


def _screenshot(app, window, design, project: Path, out: Path) -> int:
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    loop = QEventLoop()
    window.evaluator.finished.connect(loop.quit)
    window.evaluator.failed.connect(loop.quit)
    QTimer.singleShot(EVALUATION_TIMEOUT_MS, loop.quit)
    window.load_design(design, project)
    loop.exec()
    app.processEvents()
    window.view.fit()
    app.processEvents()
    try:
        atomic_write_bytes(out, png_bytes(window.grab()))
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        window.document.undo_stack.setClean()
        window.close()
        return 2
    window.close()
    return 0
