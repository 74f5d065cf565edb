"""Start-up benchmark (not part of the test run): python bench/bench_startup.py [--repeat N]

Prints the median process wall time, from launching ``python -m designer.cli`` (no project:
the bundled example) to
  * the window's first paint, and
  * the metric panels filled by the first evaluation,
next to the baseline: a process that only imports Qt widgets, numpy and pyqtgraph. The budget
is 2.5x the baseline. Runs alternate (baseline, app, baseline, app...) so that other load on a
shared machine weighs on both alike. Offscreen unless --display (then on $DISPLAY).

The app runs unchanged; a probe wraps ``designer.common.qtapp.ensure_app`` only to watch for the main
window's first paint and its evaluator's first ``finished`` signal (connected after the
panels', so the panels are filled when it fires), then prints both times and exits.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_RATIO = 2.5
BASELINE_CODE = "import PySide6.QtWidgets, numpy, pyqtgraph"
PROBE_CODE = r"""
import os, sys, time
# the app's own import order: the command line (engine, scipy) before Qt, as `cluster-designer`
# runs it (PySide6 reads the source of every module imported after it, to look for features)
from designer.cli import main
import designer.common.qtapp as qtapp
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QMainWindow, QWidget

marks = {}

class Probe(QObject):
    def eventFilter(self, obj, event):
        kind = event.type()
        if kind == QEvent.Type.Show and isinstance(obj, QMainWindow) and "window" not in marks:
            marks["window"] = obj
            obj.evaluator.finished.connect(evaluated)
            obj.evaluator.failed.connect(evaluated)
        elif kind == QEvent.Type.Paint and "paint" not in marks and isinstance(obj, QWidget) \
                and obj.window() is marks.get("window"):
            marks["paint"] = time.monotonic()
        return False

def evaluated(*_):
    done = time.monotonic()
    print(f"paint {marks.get('paint', float('nan'))!r}", flush=True)
    print(f"evaluated {done!r}", flush=True)
    print(f"cpu {time.process_time()!r}", flush=True)
    os._exit(0)

probe = Probe()
real_ensure_app = qtapp.ensure_app

def ensure_app(*args, **kwargs):
    app = real_ensure_app(*args, **kwargs)
    app.installEventFilter(probe)
    return app

qtapp.ensure_app = ensure_app
sys.exit(main([]))
"""


def _run(code: str, env: dict) -> tuple[float, float, float, str]:
    """(start on the monotonic clock, wall s, CPU s of the whole process, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bench_startup: the run failed:\n{done.stderr[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return start, elapsed, cpu, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--display", action="store_true", help="use $DISPLAY instead of offscreen")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep the environment's bytecode settings (no warm-up, no cache folder)")
    args = parser.parse_args()
    sandbox = tempfile.mkdtemp(prefix="cluster-designer-startup-")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(sandbox, "config"),
               XDG_DATA_HOME=os.path.join(sandbox, "data"), PYTHONPATH=str(ROOT))
    if not args.display:
        env["QT_QPA_PLATFORM"] = "offscreen"
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(sandbox, "pycache")
        _run(BASELINE_CODE, env)
        _run(PROBE_CODE, env)
    baseline, paint, evaluated, baseline_cpu, evaluated_cpu = [], [], [], [], []
    try:
        for _ in range(args.repeat):
            _, wall, cpu, _ = _run(BASELINE_CODE, env)
            baseline.append(wall)
            baseline_cpu.append(cpu)
            start, _, _, out = _run(PROBE_CODE, env)
            marks = dict(line.split() for line in out.splitlines() if line.split()[0] in ("paint", "evaluated", "cpu"))
            paint.append(float(marks["paint"]) - start)
            evaluated.append(float(marks["evaluated"]) - start)
            evaluated_cpu.append(float(marks["cpu"]))
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    base = statistics.median(baseline)
    print(f"baseline (import Qt widgets, numpy, pyqtgraph): {base:.2f} s   (median of {args.repeat})")
    for name, values in (("first paint", paint), ("evaluated panels", evaluated)):
        value = statistics.median(values)
        print(f"{name:<17} {value:.2f} s = {value / base:.1f}x baseline   "
              f"(runs: {', '.join(f'{v:.2f}' for v in values)})")
    # CPU seconds weigh less with other load on a shared machine than wall time does.
    base_cpu, app_cpu = statistics.median(baseline_cpu), statistics.median(evaluated_cpu)
    print(f"CPU time: baseline {base_cpu:.2f} s, to evaluated panels {app_cpu:.2f} s = "
          f"{app_cpu / base_cpu:.1f}x")
    first_before = all(p < e for p, e in zip(paint, evaluated))
    print(f"first paint before evaluation in every run: {'yes' if first_before else 'NO'}")
    ratio = statistics.median(evaluated) / base
    print(f"budget {BUDGET_RATIO}x baseline: {'met' if ratio <= BUDGET_RATIO else 'MISSED'} ({ratio:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
