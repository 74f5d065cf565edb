"""The docs' inference screenshots, not a timing: an inference workload in the Workload tab
(its form scrolled to a group box) beside the Performance panel's serving figures and
throughput-latency chart, in a window fitted to a screen.

    python bench/screenshot_inference.py [-o docs/screenshots/inference-workload-tab.png]
        [--system GB200-NVL72] [--preset deepseek-r1-serve] [--screen 1366x768] [--scroll Deployment]

The design is one ``--system`` (a super-node or a server) serving ``--preset`` as written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import gui_sandbox  # noqa: E402,F401 - before Qt: settings in a temp folder

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QGroupBox  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.generators import SupernodeOptions, generate_supernode  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from designer.qtapp import ensure_app  # noqa: E402
from window_shot import save_window_png  # noqa: E402


def _screen(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT") from None
    return width, height


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "inference-workload-tab.png"))
    parser.add_argument("--system", default="GB200-NVL72", help="catalog id of the super-node or server")
    parser.add_argument("--preset", default="deepseek-r1-serve", help="inference workload preset")
    parser.add_argument("--screen", type=_screen, default=(1366, 768), help="WIDTHxHEIGHT (default 1366x768)")
    parser.add_argument("--taskbar", type=int, default=40, help="task bar height in px (default 40)")
    parser.add_argument("--scroll", default="", help="title of the inference form's group box to scroll to")
    args = parser.parse_args()
    app = ensure_app(headless=True)
    from designer.main_window import MainWindow  # noqa: PLC0415 - after the QApplication

    catalog = default_catalog()
    design = generate_supernode(SupernodeOptions(args.system, 1), catalog)
    design.workload = load_inference_preset(args.preset)
    window = MainWindow(catalog, interactive=False)
    width, height = args.screen
    window.fit_to_screen(QRect(0, 0, width, height - args.taskbar))
    window.load_design(design, None)
    window.show()
    app.processEvents()
    window.evaluate_now()
    window.workload_dock.raise_()
    panel = window.workload_panel

    def scroll() -> None:
        app.processEvents()
        boxes = {box.title(): box for box in panel.inference_form.findChildren(QGroupBox)}
        if args.scroll:
            if args.scroll not in boxes:
                raise SystemExit(f"no group box {args.scroll!r}; the boxes are {', '.join(boxes)}")
            panel.verticalScrollBar().setValue(boxes[args.scroll].mapTo(panel.widget(), QPoint(0, 0)).y())
    save_window_png(app, window, args.output, "performance", scroll)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
