"""Importing a large InfiniBand fabric: an ibnetdiscover dump of 100,000 devices (12,500 DGX B300
with 100,000 ConnectX-8 HCAs, 3,480 Quantum-X800 Q3400 switches on three tiers, 300,448 cables:
103,480 InfiniBand nodes, 64 MB of text) read, folded into a project, evaluated, and opened in
the window (in-process, Qt offscreen): the imported project opened as File > Open does, and the
dump imported as File > Import Fabric Dump does (read, fold and draw); and the 100,000-GPU example
exported as GraphML (blocks), diagrams.net and ASTRA-sim's inputs.

Run: python bench/bench_import.py [--repeat 3]
Budgets (issue 27): a 100,000-device import opens in the window in under 3 s and evaluates in
under 2 s. The dump is written from a generated design first
(core/interop/ibnetdiscover_write.py), so the bench needs no file of its own.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gui_sandbox  # noqa: E402,F401 - before Qt: offscreen, settings in a temp folder

from core.catalog import default_catalog, load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.interop.astra_sim import astra_sim_files  # noqa: E402
from core.interop.drawio import drawio_xml  # noqa: E402
from core.interop.fabric_import import design_from_fabric  # noqa: E402
from core.interop.fabric_map import fabric_map  # noqa: E402
from core.interop.graphml import design_graph  # noqa: E402
from core.interop.ibnetdiscover_read import read_ibnetdiscover  # noqa: E402
from core.interop.ibnetdiscover_write import ibnetdiscover_text  # noqa: E402
from core.project import load_project, save_project  # noqa: E402
from timing import median_wall_cpu_s, peak_mb  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "examples" / "h100-100k.json"
SERVER, SWITCH = "DGX-B300", "Q3400"
BUDGETS = {"evaluate the import": 2.0, "open the import in the window": 3.0,
           "File > Import Fabric Dump": 3.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    planned = generate_fat_tree(FatTreeOptions(gpus=100_000, server=SERVER, switch=SWITCH), catalog)
    mapping = fabric_map(None, catalog, server_id=SERVER)
    with tempfile.TemporaryDirectory() as folder:
        dump_path = Path(folder) / "fabric.topo"
        dump_path.write_text(ibnetdiscover_text(planned, catalog))
        size_mb = dump_path.stat().st_size / 1e6
        dump = read_ibnetdiscover(dump_path)
        design, summary = design_from_fabric(dump, catalog, mapping)
        project = Path(folder) / "imported.json"
        save_project(design, project)
        print(f"dump: {size_mb:.0f} MB, {len(dump.nodes):,} InfiniBand nodes; {summary.text()}")
        print(f"imported design: {sum(1 for _ in design.root.iter_nodes())} components, "
              f"{sum(1 for _ in design.root.iter_blocks())} blocks")
        for label, fn in (("read the dump", lambda: read_ibnetdiscover(dump_path)),
                          ("fold into a design", lambda: design_from_fabric(dump, catalog, mapping)),
                          ("evaluate the import", lambda: evaluate(design, catalog))):
            _row(label, fn, args.repeat)
        _window_rows(project, dump_path, args.repeat)
    big = load_project(EXAMPLE, catalog)
    for label, fn in (("100k GraphML (blocks)", lambda: design_graph(big, catalog, "block")),
                      ("100k diagrams.net", lambda: drawio_xml(big)),
                      ("100k ASTRA-sim inputs", lambda: astra_sim_files(big, catalog))):
        _row(label, fn, args.repeat)


def _window_rows(project: Path, dump_path: Path, repeat: int) -> None:
    """To a fully drawn window (every visible widget painted), as bench/bench_gui.py measures the
    100,000-GPU example: the imported project opened from a new window, and the dump imported
    in an open window that has finished its own start (its first evaluation and a second of idle
    events), from the dialog's OK."""
    from bench_gui import _wait  # noqa: PLC0415
    from designer.window.main_window import MainWindow  # noqa: PLC0415
    from designer.common.qtapp import ensure_app  # noqa: PLC0415

    app = ensure_app()
    catalog = default_catalog()

    def timed(load, settle: bool) -> float:
        start = time.perf_counter()
        window = MainWindow(catalog, interactive=False)
        window.show()
        if settle:
            app.processEvents()
            if window.evaluator.last is None or window.evaluator.busy:
                _wait(window.evaluator.finished)
            idle = time.perf_counter() + 1.0  # a second's idle events, as while a file is chosen
            while time.perf_counter() < idle:
                app.processEvents()
                time.sleep(0.01)
            start = time.perf_counter()
        load(window)
        app.processEvents()
        window.view.fit()
        window.grab()
        elapsed = time.perf_counter() - start
        window.document.undo_stack.setClean()
        window.close()
        window.deleteLater()
        app.processEvents()
        return elapsed

    def open_project(window) -> None:
        window.load_design(load_project(project, catalog), project)

    def import_dump(window) -> None:
        if not window.interop.import_dump(dump_path, SERVER, None, None):
            raise SystemExit("the GUI import failed")

    for label, load, settle in (("open the import in the window", open_project, False),
                                ("File > Import Fabric Dump", import_dump, True)):
        times = sorted(timed(load, settle) for _ in range(repeat))
        print(f"{label:32s} median {times[len(times) // 2]:6.2f} s (wall, to a drawn window)"
              f"{_budget(label, times[len(times) // 2])}")


def _budget(label: str, seconds: float) -> str:
    budget = BUDGETS.get(label)
    return "" if budget is None else f"   budget {budget:.0f} s: {'ok' if seconds < budget else 'OVER'}"


def _row(label: str, fn, repeat: int) -> None:
    wall, cpu = median_wall_cpu_s(fn, repeat)
    print(f"{label:32s} median {wall:6.2f} s (cpu {cpu:5.2f} s)   peak {peak_mb(fn):7.0f} MB"
          f"{_budget(label, wall)}")


if __name__ == "__main__":
    main()
