"""The end every screenshot script shares: a window evaluated, one metric panel raised, the
canvas fitted, the window saved as a PNG, then shut down without asking to save.

Import it after ``gui_sandbox`` (Qt offscreen, settings in a temporary folder)."""

from __future__ import annotations

from pathlib import Path

from designer.window.export import png_bytes


def save_window_png(app, window, output: str, panel: str, before_grab=lambda: None) -> None:
    """Raise ``panel`` in ``window`` (evaluated), fit the canvas, write the window to
    ``output``; ``before_grab`` may scroll a panel to what the picture should show."""
    window.raise_metric_panel(panel)
    before_grab()
    app.processEvents()
    window.view.fit()
    app.processEvents()
    Path(output).write_bytes(png_bytes(window.grab()))
    window.document.undo_stack.setClean()
    window.evaluator.shutdown()
    window.workload_panel.shutdown()
    print(output)


def screenshot_design(make_design, output: str, panel: str) -> None:
    """Open the design ``make_design(catalog)`` builds in a fresh window, evaluate it and save
    the window with ``panel`` raised to ``output``."""
    from core.catalog import load_catalog  # noqa: PLC0415 - after gui_sandbox's environment
    from designer.window.main_window import MainWindow  # noqa: PLC0415
    from designer.common.qtapp import ensure_app  # noqa: PLC0415

    app = ensure_app(headless=True)
    catalog = load_catalog()
    window = MainWindow(catalog, interactive=False)
    window.show()
    window.load_design(make_design(catalog), None)
    window.evaluate_now()
    save_window_png(app, window, output, panel)
