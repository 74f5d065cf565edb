"""Baseline benchmark (GUI thread work of issue 11's "Pin as baseline"), on the bundled
100,000-GPU example:

  * what a baseline adds to every evaluation on the GUI thread: the current evaluation as JSON,
    the comparison with the baseline, the Comparison panel's table and the marks beside the
    metric panels' values (``BaselineController.show``), against the same call without one;
  * "Compare with File…" on the 100,000-GPU project (read and evaluated on a worker thread
    while the window waits), and on the same design saved as an evaluation JSON.

Run: python bench/bench_baseline.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from gui_sandbox import SANDBOX  # noqa: E402 - before Qt: settings in a temp folder

from core.catalog import default_catalog  # noqa: E402
from core.evaluate import evaluation_to_json  # noqa: E402
from core.project import load_project  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

EXAMPLE = ROOT / "resources" / "examples" / "h100-100k.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    app = ensure_app(headless=True)
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    window = MainWindow(default_catalog(), interactive=False)
    window.show()
    window.load_design(load_project(EXAMPLE), EXAMPLE)
    result = window.evaluate_now()
    app.processEvents()
    controller = window.baseline
    without = median_s(lambda: controller.show(result), args.repeat)
    controller.pin()
    with_baseline = median_s(lambda: controller.show(result), args.repeat)
    to_json = median_s(lambda: evaluation_to_json(result.evaluation), args.repeat)
    print(f"per evaluation on the GUI thread, 100,000 GPUs ({len(controller.comparison.metrics)} metrics):")
    print(f"  without a baseline        {without * 1000:8.2f} ms")
    print(f"  with a baseline           {with_baseline * 1000:8.2f} ms   "
          f"(of which evaluation_to_json {to_json * 1000:.2f} ms)")
    saved = Path(SANDBOX) / "h100-100k-evaluation.json"
    saved.write_text(json.dumps(evaluation_to_json(result.evaluation)))
    from_project = median_s(lambda: controller.compare_with_file(EXAMPLE), args.repeat)
    from_saved = median_s(lambda: controller.compare_with_file(saved), args.repeat)
    memory = peak_mb(lambda: controller.compare_with_file(EXAMPLE))
    print("Compare with File… (worker thread, the window waits):")
    print(f"  100,000-GPU project       {from_project * 1000:8.1f} ms   (peak Python memory {memory:,.0f} MB)")
    print(f"  saved evaluation JSON     {from_saved * 1000:8.1f} ms")
    window.document.undo_stack.setClean()
    window.evaluator.shutdown()
    window.workload_panel.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
