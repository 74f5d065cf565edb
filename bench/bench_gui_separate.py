"""The GUI on a cluster imported device by device (not part of the test run):

    python bench/bench_gui_separate.py [--repeat 3] [--sizes 16000 50000 100000]

The designs are bench/bench_separate.py's: every server and switch a component of count 1 in
one block and a link per cabled pair (16,920 / 50,760 / 100,580 components for the default
sizes), with the Llama 3 405B workload, saved to a temporary folder. Each open runs in a fresh
process (so its peak RSS is its own) and prints the median of:

  read     the project file read on the window's worker thread (designer.common.busy), with
           parse (json.loads) and build (validation and model objects, core.project) apart
  drawn    from the start of the open to a fully painted window (read included)
  panels   from the start of the open to the metric panels filled by the first evaluation
  edit     a server's count set, or one link deleted, to updated panels (150 ms of it is the
           evaluator's debounce); "gui" is the part the GUI thread is busy (canvas summary,
           outline, Inspector) before the evaluation starts
  RSS      the process's peak resident memory (VmHWM: ru_maxrss of a child can carry the
           parent's resident size from the fork)

Budgets (issue "nothing a user loads can crash it, exhaust it or lose work"): 100,580
components drawn < 10 s including the read, < 3 GB; an edit to updated panels well under a few
seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _make(size: int, folder: Path) -> tuple[Path, int, int]:
    from bench_separate import design_with_at_least  # noqa: PLC0415
    from core.catalog import load_catalog  # noqa: PLC0415
    from core.project import save_project  # noqa: PLC0415
    from core.workload import load_preset  # noqa: PLC0415
    from tests.separate_design import draw_separately  # noqa: PLC0415

    catalog = load_catalog(include_user=False)
    design = draw_separately(design_with_at_least(size, catalog), catalog)
    design.workload = load_preset("llama3-405b")
    path = folder / f"imported-{len(design.root.children)}.json"
    save_project(design, path)
    return path, len(design.root.children), len(design.root.links)


def _split(path: Path) -> dict[str, float]:
    """Where the read goes: json.loads, then core.project's validation and model build."""
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.project import design_from_dict  # noqa: PLC0415

    catalog = default_catalog()
    start = time.perf_counter()
    raw = json.loads(path.read_text(encoding="utf-8"))
    parsed = time.perf_counter()
    design_from_dict(raw, catalog)
    return {"parse": parsed - start, "build": time.perf_counter() - parsed}


def _open_and_edit(path: Path, edits: int) -> dict[str, object]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sandbox = tempfile.mkdtemp(prefix="cluster-designer-bench-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(sandbox, "config")  # keep the user's settings out
    os.environ["XDG_DATA_HOME"] = os.path.join(sandbox, "data")
    from PySide6.QtCore import QEventLoop, QTimer  # noqa: PLC0415

    from core.catalog import default_catalog  # noqa: PLC0415
    from core.operations import RemoveLink, SetProperty  # noqa: PLC0415
    from designer.window.main_window import MainWindow  # noqa: PLC0415
    from designer.common.qtapp import ensure_app  # noqa: PLC0415

    app = ensure_app(headless=True)

    def wait(signal, timeout_ms: int = 300_000) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec()
        signal.disconnect(loop.quit)

    window = MainWindow(default_catalog(), interactive=False)
    window.show()
    app.processEvents()
    start = time.perf_counter()
    design = window.read_project(path)
    read = time.perf_counter() - start
    window.load_design(design, path)
    app.processEvents()
    window.view.fit()
    window.grab()  # forces a full paint of every visible widget
    drawn = time.perf_counter() - start
    wait(window.evaluator.finished)
    app.processEvents()
    panels = time.perf_counter() - start
    evaluation_s = window.evaluator.last.elapsed_s
    doc = window.document
    server = next(key for key in design.root.children if key.startswith("nodes"))
    timings: dict[str, list[float]] = {"count": [], "count gui": [], "delete": [], "delete gui": []}
    for n in range(edits):
        for name, operation in (("count", SetProperty(server, "count", 2 + n % 2)),
                                ("delete", RemoveLink("", design.root.links[len(design.root.links) // 2].id))):
            t0 = time.perf_counter()
            doc.push(operation)
            timings[f"{name} gui"].append(time.perf_counter() - t0)
            wait(window.evaluator.finished)
            app.processEvents()  # panels repaint
            timings[name].append(time.perf_counter() - t0)
    doc.undo_stack.setClean()
    window.close()
    return {"read": read, "drawn": drawn, "panels": panels, "evaluation": evaluation_s,
            **{k: statistics.median(v) for k, v in timings.items()},
            "rss_gb": _peak_rss_kb() / 1e6}


def _peak_rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # not Linux: the best there is


def _child(args: list[str]) -> None:
    mode, path = args[0], Path(args[1])
    result = _split(path) if mode == "split" else _open_and_edit(path, int(args[2]))
    print(json.dumps(result))


def _run(*args: object) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--child", *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode:
        raise SystemExit(f"bench child failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="opens per size (each in a fresh process)")
    parser.add_argument("--edits", type=int, default=3, help="edits of each kind per open")
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_000, 50_000, 100_000])
    args = parser.parse_args()
    print("median seconds over opens in fresh processes; edit times include the 150 ms debounce")
    print(f"{'components':>10} {'links':>9} | {'read':>5} {'parse':>5} {'build':>5} | {'drawn':>5} "
          f"{'panels':>6} {'eval':>5} | {'count':>5} {'(gui)':>5} {'delete':>6} {'(gui)':>5} | {'RSS':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path, components, links = _make(size, Path(folder))
            split = _run("split", path)
            runs = [_run("open", path, args.edits) for _ in range(args.repeat)]
            med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            rss = max(run["rss_gb"] for run in runs)
            print(f"{components:>10,} {links:>9,} | {med['read']:>5.1f} {split['parse']:>5.1f} {split['build']:>5.1f} | "
                  f"{med['drawn']:>5.1f} {med['panels']:>6.1f} {med['evaluation']:>5.1f} | {med['count']:>5.2f} "
                  f"{med['count gui']:>5.2f} {med['delete']:>6.2f} {med['delete gui']:>5.2f} | {rss:>4.2f}GB",
                  flush=True)
            path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
