"""The docs' several-workloads screenshots, not a timing: a design that trains on some blocks and
serves on others, with the Services tab above the Overview (its partitions), and with the
Performance panel showing a service's serving figures, in the 1,600 x 1,000 window of
``cluster-designer PROJECT --screenshot``.

    python bench/screenshot_services.py [--project resources/examples/train-and-serve.json]
        [--services-out docs/screenshots/train-and-serve-services.png]
        [--performance-out docs/screenshots/train-and-serve-performance.png]

The service shown is the design's first; the canvas selects its partition's first block (so
"Use the selection" has something to take), and each picture gives the tab it is about most of
the right column.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import gui_sandbox  # noqa: E402,F401 - before Qt: settings in a temp folder

from PySide6.QtCore import Qt  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.project import load_project  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402
from designer.window.export import png_bytes  # noqa: E402
from window_shot import save_window_png  # noqa: E402


def _share_column(app, window, top, metrics, share: float) -> None:
    """Give the tabbed dock ``top`` ``share`` of the right column's height, ``metrics`` the rest."""
    app.processEvents()
    column = top.height() + metrics.height()
    window.resizeDocks([top, metrics], [round(column * share), round(column * (1 - share))],
                       Qt.Orientation.Vertical)
    app.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=str(ROOT / "resources" / "examples" / "train-and-serve.json"))
    parser.add_argument("--services-out", default=str(ROOT / "docs" / "screenshots" / "train-and-serve-services.png"))
    parser.add_argument("--performance-out",
                        default=str(ROOT / "docs" / "screenshots" / "train-and-serve-performance.png"))
    args = parser.parse_args()
    app = ensure_app(headless=True)
    from designer.window.main_window import MainWindow  # noqa: PLC0415 - after the QApplication

    catalog = default_catalog()
    design = load_project(Path(args.project), catalog)
    if not design.services:
        raise SystemExit(f"{args.project} carries no services")
    service = design.services[0]
    window = MainWindow(catalog, interactive=False)  # sized as the command's screenshots
    window.load_design(design, None)
    window.show()
    app.processEvents()
    window.evaluate_now()
    if service.partition.blocks:
        window.reveal_paths([service.partition.blocks[0]])
    window.services_panel.select_service(service.name)

    window.services_dock.raise_()
    window.raise_metric_panel("overview")
    overview = window.metric_docks[window.metric_panels.index(window.overview_panel)]
    _share_column(app, window, window.services_dock, overview, 0.66)
    bar = window.overview_panel.verticalScrollBar()
    bar.setValue(bar.maximum())  # its partitions, at the end
    app.processEvents()
    window.view.fit()
    app.processEvents()
    Path(args.services_out).write_bytes(png_bytes(window.grab()))
    print(args.services_out)

    window.raise_metric_panel("performance")
    performance = window.metric_docks[window.metric_panels.index(window.performance_panel)]
    window.performance_panel.choose(service.name)
    _share_column(app, window, window.services_dock, performance, 0.2)
    save_window_png(app, window, args.performance_out, "performance")
    window.scene.blockSignals(True)  # the selection's teardown must not drive half-destroyed actions
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
