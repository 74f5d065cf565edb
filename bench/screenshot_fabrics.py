"""The fabrics guide's screenshot, not a timing: 4,096 H100 (DGX H100) on a TH5 fat-tree with
hashed load balancing running Mixtral 8x22B; the Bandwidth panel raised, showing the load
balancing mode, the fraction of line rate per tier and pattern, and line rate against what
all-to-all gets per tier.

    python bench/screenshot_fabrics.py [-o docs/screenshots/fabrics-bandwidth.png] [--switch TH5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gui_sandbox import SANDBOX  # noqa: E402,F401 - before Qt: settings in a temp folder

from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.preset_fit import fit_to_design  # noqa: E402
from core.workload import load_preset  # noqa: E402
from window_shot import save_window_png  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "fabrics-bandwidth.png"))
    parser.add_argument("--switch", default="TH5")
    args = parser.parse_args()

    def make(catalog):
        design = generate_fat_tree(FatTreeOptions(4096, "DGX-H100", args.switch), catalog)
        design.workload = fit_to_design(load_preset("mixtral-8x22b"), 4096)[0]
        return design

    from core.catalog import load_catalog  # noqa: PLC0415 - after gui_sandbox's environment
    from designer.window.main_window import MainWindow  # noqa: PLC0415
    from designer.common.qtapp import ensure_app  # noqa: PLC0415

    app = ensure_app(headless=True)
    catalog = load_catalog()
    window = MainWindow(catalog, interactive=False)
    window.show()
    window.load_design(make(catalog), None)
    window.evaluate_now()
    panel = next(p for p in window.metric_panels if p.title == "Bandwidth")

    def scroll_to_tiers() -> None:
        # the per-tier rows and the line-vs-effective chart are the point of the picture
        app.processEvents()
        panel.verticalScrollBar().setValue(panel.verticalScrollBar().maximum())

    save_window_png(app, window, args.output, "bandwidth", scroll_to_tiers)


if __name__ == "__main__":
    main()
