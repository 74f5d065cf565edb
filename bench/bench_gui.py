"""GUI benchmarks (not part of the test run): python bench/bench_gui.py [--repeat N]

Prints median times for
  * opening a 100,000-GPU design to a fully drawn window (and to filled metric panels),
  * edit-to-updated-panels latency on a 16,384-GPU design (debounce included), and on the
    100,000-GPU design serving an inference workload (a fixed deployment, and "auto": the
    deployment search at every evaluation),
  * rendering the canvas of the 100,000-GPU design to a 1600x1000 image,
against the budgets of the GUI issue (open < 3 s, edit-to-update < 300 ms, render < 100 ms).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import gui_sandbox  # noqa: E402,F401 - before Qt: settings in a temp folder

from PySide6.QtCore import QEventLoop, QRectF, QTimer  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from core.operations import SetProperty  # noqa: E402
from core.project import load_project, save_project  # noqa: E402
from core.workload import list_presets, load_preset  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402

BUDGETS = {"open": 3.0, "edit": 0.300, "render": 0.100}


def _wait(signal, timeout_ms: int = 120_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)


def _project_100k(folder: Path) -> Path:
    example = ROOT / "resources" / "examples" / "h100-100k.json"
    if example.exists():
        return example
    path = folder / "h100-100k.json"
    save_project(generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), default_catalog()), path)
    return path


def bench_open(app, path: Path, repeat: int) -> tuple[list[float], list[float]]:
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    drawn, filled = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        window = MainWindow(default_catalog(), interactive=False)
        window.show()
        window.load_design(load_project(path), path)
        app.processEvents()
        window.view.fit()
        window.grab()  # forces a full paint of every visible widget
        drawn.append(time.perf_counter() - start)
        if window.evaluator.last is None or window.evaluator.busy:
            _wait(window.evaluator.finished)
        app.processEvents()
        filled.append(time.perf_counter() - start)
        window.document.undo_stack.setClean()
        window.close()
        window.deleteLater()
        app.processEvents()
    return drawn, filled


def bench_edit(app, design, repeat: int) -> list[float]:
    """Median-ready times from a spine count edit to updated panels on ``design``."""
    from designer.window.main_window import MainWindow  # noqa: PLC0415

    window = MainWindow(default_catalog(), interactive=False)
    window.show()
    window.load_design(design, None)
    _wait(window.evaluator.finished)
    spine_path = next(p for p, n in design.root.iter_nodes() if n.tier in ("core", "spine"))
    base = design.node(spine_path).count
    times = []
    for n in range(repeat):
        start = time.perf_counter()
        window.document.push(SetProperty(spine_path, "count", base + 1 + n % 2))
        _wait(window.evaluator.finished)
        app.processEvents()  # panels repaint
        times.append(time.perf_counter() - start)
    window.document.undo_stack.setClean()
    window.close()
    return times


def training_16k():
    design = generate_fat_tree(FatTreeOptions(16_384, "DGX-H100", "QM9700"), default_catalog())
    presets = list_presets()
    if presets:
        design.workload = load_preset(next(iter(presets)))
    return design


def serving_100k(path: Path, preset: str, auto: bool):
    """The 100,000-GPU design serving ``preset`` (its own deployment, or "auto")."""
    design = load_project(path)
    workload = load_inference_preset(preset)
    design.workload = dataclasses.replace(workload, deployment="auto") if auto else workload
    return design


def bench_render(path: Path, repeat: int) -> list[float]:
    from designer.canvas.scene import DesignScene  # noqa: PLC0415

    scene = DesignScene(load_project(path), default_catalog())
    source = scene.content_rect()
    image = QImage(1600, 1000, QImage.Format.Format_ARGB32_Premultiplied)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scene.render(painter, QRectF(0, 0, 1600, 1000), source)
        painter.end()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    app = ensure_app(headless=True)
    with tempfile.TemporaryDirectory() as folder:
        path = _project_100k(Path(folder))
        drawn, filled = bench_open(app, path, max(3, args.repeat // 2))
        edit = bench_edit(app, training_16k(), args.repeat * 2)
        serving = {(preset, auto): bench_edit(app, serving_100k(path, preset, auto), args.repeat)
                   for preset in ("llama31-70b-serve", "deepseek-r1-serve") for auto in (False, True)}
        render = bench_render(path, args.repeat * 3)
    rows = [
        ("open 100k GPUs → drawn window", statistics.median(drawn), BUDGETS["open"]),
        ("open 100k GPUs → panels filled", statistics.median(filled), BUDGETS["open"]),
        ("edit → updated panels, 16,384 GPUs", statistics.median(edit), BUDGETS["edit"]),
        *((f"edit → panels, 100k GPUs, {preset}{' auto' if auto else ''}", statistics.median(times),
           BUDGETS["edit"]) for (preset, auto), times in serving.items()),
        ("render 100k canvas to 1600x1000", statistics.median(render), BUDGETS["render"]),
    ]
    for name, value, budget in rows:
        verdict = "ok" if value <= budget else "OVER BUDGET"
        print(f"{name:<52} median {value * 1000:8.1f} ms   budget {budget * 1000:6.0f} ms   {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
