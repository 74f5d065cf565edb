"""The docs' baseline screenshot, not a timing: an H200 pod compared with the same fabric of
H100 servers (both 1,024 GPUs on QM9700, Llama 3 70B), the Comparison panel raised and its
table scrolled to the rows that differ (power, performance, cost).

    python bench/screenshot_baseline.py [-o docs/screenshots/baseline-comparison.png] [--panel comparison]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gui_sandbox import SANDBOX  # noqa: E402 - before Qt: settings in a temp folder

from core.catalog import default_catalog  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.preset_fit import fit_to_design  # noqa: E402
from core.project import save_project  # noqa: E402
from core.workload import load_preset  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402
from window_shot import save_window_png  # noqa: E402


def pod(server: str, name: str):
    design = generate_fat_tree(FatTreeOptions(1024, server, "QM9700", name=name), default_catalog())
    design.workload, _ = fit_to_design(load_preset("llama3-70b"), 1024, "llama3-70b")
    return design


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "baseline-comparison.png"))
    parser.add_argument("--panel", default="comparison", help="the metric panel to raise")
    args = parser.parse_args()
    app = ensure_app(headless=True)
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    baseline = Path(SANDBOX) / "h100-pod.json"
    save_project(pod("DGX-H100", "H100 pod"), baseline)
    window = MainWindow(default_catalog(), interactive=False)
    window.show()
    window.load_design(pod("DGX-H200", "H200 pod"), None)
    window.evaluate_now()
    if not window.baseline.compare_with_file(baseline):
        return 2
    # Counts and the fabric are the same on both pods: show the sections that differ.
    save_window_png(app, window, args.output, args.panel, lambda: window.comparison_panel
                    .scroll_to_section_of("latency.max_switch_hops"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
