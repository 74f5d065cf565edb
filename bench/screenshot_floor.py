"""Screenshot of the Floor view: the 4-SU DGX H100 SuperPOD placed, coloured by kW, one rack
clicked (its servers selected on the canvas), and the floor dock given room.

Run: python bench/screenshot_floor.py [OUT.png] [PROJECT]"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import gui_sandbox  # noqa: E402,F401 - Qt offscreen, settings in a temporary folder
from window_shot import save_window_png  # noqa: E402

from core.catalog import load_catalog  # noqa: E402
from core.project import load_project  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402
from designer.window.main_window import MainWindow  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402


def main() -> None:
    output = sys.argv[1] if len(sys.argv) > 1 else "floor.png"
    project = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "resources" / "examples" /
                                                         "dgx-h100-superpod-4su.json")
    app = ensure_app(headless=True)
    window = MainWindow(load_catalog(), interactive=False)
    window.show()
    window.load_design(load_project(project), None)
    result = window.evaluate_now()
    window.floor_view.update_result(result)
    window.floor_dock.raise_()
    window.resizeDocks([window.floor_dock], [430], Qt.Orientation.Vertical)
    app.processEvents()
    window.floor_view.fit()
    window.floor_view._clicked(1)  # as a click on the second rack would
    app.processEvents()
    save_window_png(app, window, output, "Power")


if __name__ == "__main__":
    main()
