"""The docs' inference screenshots, not a timing: an inference workload in the Workload tab
(its form scrolled to a group box) beside the Performance panel's serving figures and
throughput-latency chart, in a window fitted to a screen.

    python bench/screenshot_inference.py [-o docs/screenshots/inference-workload-tab.png]
        [--system GB200-NVL72] [--preset deepseek-r1-serve] [--precision int8] [--screen 1600x1000]
        [--scroll "Serving and SLOs"] [--tab-share 0.62] [--search] [--panel-scroll chart]

The design is one ``--system`` (a super-node or a server) serving ``--preset`` as written (in
``--precision`` when given). The Workload tab takes ``--tab-share`` of the right column's
height (the metric panels the rest). ``--search`` clicks the form's "Auto (search)" and shows
its table (the tab scrolled to "Deployment search"); ``--panel-scroll`` scrolls the Performance
panel to its chart, its what-ifs or the deployment search of an "auto" workload.

    python bench/screenshot_inference.py -o docs/screenshots/inference-search.png --system DGX-H100 \
        --preset llama31-70b-serve --search --panel-scroll chart --tab-share 0.58
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import dataclasses  # noqa: E402

import gui_sandbox  # noqa: E402,F401 - before Qt: settings in a temp folder

from PySide6.QtCore import QEventLoop, QPoint, QRect, Qt  # noqa: E402
from PySide6.QtWidgets import QGroupBox  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.generators import SupernodeOptions, generate_supernode  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402
from window_shot import save_window_png  # noqa: E402


def _screen(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT") from None
    return width, height


# What --panel-scroll brings to the top of the Performance panel (None: its top).
PANEL_PARTS = {
    "top": lambda panel: None,
    "chart": lambda panel: panel.serving_chart,
    "what-ifs": lambda panel: panel.serving_details.what_ifs_title,
    "search": lambda panel: panel.serving_details.search_title,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "inference-workload-tab.png"))
    parser.add_argument("--system", default="GB200-NVL72", help="catalog id of the super-node or server")
    parser.add_argument("--preset", default="deepseek-r1-serve", help="inference workload preset")
    parser.add_argument("--screen", type=_screen, default=(1600, 1000), help="WIDTHxHEIGHT (default 1600x1000)")
    parser.add_argument("--taskbar", type=int, default=40, help="task bar height in px (default 40)")
    parser.add_argument("--scroll", default="Serving and SLOs",
                        help="title of the inference form's group box to scroll to (\"\": the top)")
    parser.add_argument("--tab-share", type=float, default=0.62, help="the Workload tab's share of the column")
    parser.add_argument("--precision", help="serve the preset in this precision (e.g. int8)")
    parser.add_argument("--search", action="store_true",
                        help='run the form\'s "Auto (search)" and scroll the tab to its table')
    parser.add_argument("--panel-scroll", choices=sorted(PANEL_PARTS), default="top",
                        help="what the Performance panel is scrolled to (default: its top)")
    args = parser.parse_args()
    app = ensure_app(headless=True)
    from designer.window.main_window import MainWindow  # noqa: PLC0415 - after the QApplication

    catalog = default_catalog()
    design = generate_supernode(SupernodeOptions(args.system, 1), catalog)
    design.workload = load_inference_preset(args.preset)
    if args.precision:
        design.workload = dataclasses.replace(design.workload, precision=args.precision)
    window = MainWindow(catalog, interactive=False)
    width, height = args.screen
    window.fit_to_screen(QRect(0, 0, width, height - args.taskbar))
    window.load_design(design, None)
    window.show()
    app.processEvents()
    window.evaluate_now()
    window.workload_dock.raise_()
    window.raise_metric_panel("performance")
    metrics = window.metric_docks[window.metric_panels.index(window.performance_panel)]
    app.processEvents()
    column = window.workload_dock.height() + metrics.height()
    window.resizeDocks([window.workload_dock, metrics],
                       [round(column * args.tab_share), round(column * (1 - args.tab_share))],
                       Qt.Orientation.Vertical)
    panel = window.workload_panel
    if args.search:
        done = QEventLoop()
        panel.inference_search_finished.connect(lambda _outcome: done.quit())
        panel.inference_runner.failed.connect(lambda message: (print(message), done.quit()))
        panel.start_inference_search()
        done.exec()
    scroll_to = "Deployment search" if args.search else args.scroll

    def scroll() -> None:
        app.processEvents()
        boxes = {box.title(): box for box in panel.inference_form.findChildren(QGroupBox)}
        if scroll_to:
            if scroll_to not in boxes:
                raise SystemExit(f"no group box {scroll_to!r}; the boxes are {', '.join(boxes)}")
            panel.verticalScrollBar().setValue(boxes[scroll_to].mapTo(panel.widget(), QPoint(0, 0)).y())
        performance = window.performance_panel
        part = PANEL_PARTS[args.panel_scroll](performance)
        if part is not None:
            performance.verticalScrollBar().setValue(part.mapTo(performance.widget(), QPoint(0, 0)).y() - 6)
    save_window_png(app, window, args.output, "performance", scroll)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
