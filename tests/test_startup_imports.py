"""What the window imports before it can show anything (issue 25: a window in two seconds).

Modules that take long to import and that the first window does not need load when first
used; this keeps a later change from pulling them back in at start. Timings themselves are in
bench/bench_startup.py."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# scipy.stats: most of a second; scipy.sparse: ~0.1 s, only for a spectral cut of a fabric
# without tiers (core/components.py finds connected components); the generators and the sweep
# reader: only for the wizard and File > Open Sweep Results.
NOT_AT_START = ("scipy.stats", "scipy.sparse", "core.sweep.recipe", "core.sweep.results",
                "designer.window.wizard")


def test_the_window_and_the_first_evaluation_import_none_of_the_heavy_modules_they_do_not_need():
    code = ("import sys\n"
            "import designer.cli, core.compare, core.project, core.series\n"
            "import designer.window.app, designer.window.main_window, designer.project.evaluator\n"
            "from core.catalog import default_catalog\n"
            "from core.project import load_project\n"
            "from core.resources import default_example\n"
            "catalog = default_catalog()\n"
            "designer.project.evaluator.run_evaluation(load_project(default_example(), catalog), catalog)\n"
            f"print([m for m in {NOT_AT_START!r} if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
                                            "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
