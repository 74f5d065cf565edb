"""Entry point of the GUI (``cluster-designer [PROJECT] [--screenshot OUT.png]``)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QEventLoop, QThreadPool, QTimer

from core.atomic_write import atomic_write_bytes
from core.errors import DesignError
from core.resources import default_example
from designer.window.export import png_bytes

SCREENSHOT_SIZE = (1600, 1000)
EVALUATION_TIMEOUT_MS = 120_000
# What the window shows when started without a project (inside the installed package).
DEFAULT_EXAMPLE = default_example()


def run(project_path: str | None, screenshot: str | None = None, panel: str | None = None) -> int:
    """Open ``project_path`` in the main window; None opens the bundled example as an untitled
    copy (saving asks for a file, so the installed example is never written over, and it is not
    listed under recent files). With ``screenshot``: wait for the first evaluation, save the
    window as PNG and return 0, with the metric panel titled ``panel`` raised (default: the
    Performance panel, as the window opens). A project that fails to load prints one line on
    stderr and returns 2.

    The window shows before the project is read: reading a design drawn device by device takes
    seconds, and the window says so (designer.common.busy) instead of nothing appearing at all."""
    from designer.common.qtapp import ensure_app  # noqa: PLC0415 - Qt starts only when the GUI runs

    app = ensure_app(headless=screenshot is not None)
    from core.catalog import default_catalog  # noqa: PLC0415
    from designer.common.busy import Cancelled  # noqa: PLC0415
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    path = None if project_path is None else Path(project_path)
    try:
        catalog = default_catalog()
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        return 2
    copy_of = DEFAULT_EXAMPLE if path is None else None
    window = MainWindow(catalog, interactive=screenshot is None)
    if screenshot is not None:
        window.resize(*SCREENSHOT_SIZE)
    window.show()
    try:
        design = window.read_project(path or DEFAULT_EXAMPLE)
    except Cancelled:
        design = None  # the user gave up waiting: the window stays, with an empty design
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        window.close()
        return 2
    if screenshot is not None:
        return _screenshot(app, window, design, path, copy_of, Path(screenshot), panel)
    if design is not None:
        window.load_design(design, path, copy_of)
    QTimer.singleShot(0, window.offer_recovery)
    status = app.exec()
    # A cancelled open may still be reading on a worker thread: let it end before Python does.
    QThreadPool.globalInstance().waitForDone()
    return status


def _screenshot(app, window, design, path: Path | None, copy_of: Path | None, out: Path,
                panel: str | None) -> int:
    loop = QEventLoop()
    window.evaluator.finished.connect(loop.quit)
    window.evaluator.failed.connect(loop.quit)
    QTimer.singleShot(EVALUATION_TIMEOUT_MS, loop.quit)
    window.load_design(design, path, copy_of)
    loop.exec()
    try:
        if panel is not None:
            window.raise_metric_panel(panel)  # an unknown name: the error lists the panels
        app.processEvents()
        window.view.fit()
        app.processEvents()
        atomic_write_bytes(out, png_bytes(window.grab()))
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        window.document.undo_stack.setClean()
        window.close()
        return 2
    window.close()
    return 0
