"""The docs' sweep screenshot, not a timing: the IB-vs-RoCE example sweep (resources/sweeps/
ib-vs-roce-16k.json) opened with File > Open Sweep Results, capex against time to train, the
Pareto front highlighted and the skipped combinations listed below.

    python bench/screenshot_sweep.py [-o docs/screenshots/sweep-scatter.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gui_sandbox import SANDBOX  # noqa: E402 - before Qt: settings in a temp folder

from core.catalog import default_catalog  # noqa: E402
from core.sweep.results import write_results  # noqa: E402
from core.sweep.run import run_sweep  # noqa: E402
from core.sweep.spec import load_sweep_spec  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402

SPEC = ROOT / "resources" / "sweeps" / "ib-vs-roce-16k.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "sweep-scatter.png"))
    args = parser.parse_args()
    spec = load_sweep_spec(SPEC)
    recipes, outcomes = run_sweep(spec, jobs=1)
    results = Path(SANDBOX) / "ib-vs-roce-16k.csv"
    write_results(results, spec, recipes, outcomes)
    app = ensure_app(headless=True)
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    window = MainWindow(default_catalog(), interactive=False)
    view = window.sweep_results.open_results(results)
    if view is None:
        return 2
    view.resize(1200, 820)
    view.show()
    for _ in range(5):
        app.processEvents()
    if not view.grab().save(args.output):
        return 2
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
