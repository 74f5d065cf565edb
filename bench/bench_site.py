"""The floor plan at scale: placing a design and measuring its cables, in process.

Run: python bench/bench_site.py [--repeat 3] [--skip-1m]
Budget (issue 26): the 100,000-GPU example (resources/examples/h100-100k.json) placed and
evaluated in under 2 s in process; 1,000,000 GPUs in under 20 s. "Placed" is the site analysis
alone (racks, rows, halls, every cable's length and medium) on a flattened design and its unit
graph; "evaluated" is the whole ``evaluate`` (every analysis, the site among them).

The 1,000,000-GPU designs are built as bench/bench_1m.py builds them (``generate`` through the
command line, the catalog's current entries when present), then loaded and timed in process.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_1m import designs  # noqa: E402
from timing import median_wall_cpu_s  # noqa: E402

from core.assumptions import Assumptions  # noqa: E402
from core.catalog import default_catalog, load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.project import load_project  # noqa: E402
from core.site.analysis import analyze_site  # noqa: E402
from core.topology import analyze_topology  # noqa: E402


def measure(label: str, project: Path, repeat: int) -> None:
    catalog = default_catalog()
    design = load_project(project)
    assumptions = design.assumptions or Assumptions()
    flat = flatten(design, catalog)
    graph = analyze_topology(flat, assumptions.network).graph
    site = None

    def place():
        nonlocal site
        site = analyze_site(design, flat, graph, design.site, assumptions.power)

    place_s, place_cpu = median_wall_cpu_s(place, repeat)
    eval_s, eval_cpu = median_wall_cpu_s(lambda: evaluate(design, catalog), max(1, repeat - 1))
    print(f"{label:<60} place {place_s:6.2f} s (cpu {place_cpu:5.2f})  evaluate {eval_s:6.2f} s "
          f"(cpu {eval_cpu:5.2f})  {site.racks:,} racks, {site.rows:,} rows, {site.halls} halls, "
          f"{graph.src.size:,} cables, p95 {site.cable_length_m['p95']} m")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-1m", action="store_true")
    options = parser.parse_args()
    measure("h100-100k (100,000 H100)", ROOT / "resources" / "examples" / "h100-100k.json",
            options.repeat)
    if options.skip_1m:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for label, generate in designs(load_catalog(include_user=False)):
            project = Path(tmp) / "design.json"
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "designer.cli", "generate", *generate,
                            "-o", str(project)], cwd=ROOT, check=True)
            print(f"  (generated in {time.perf_counter() - start:.1f} s)")
            measure(label[:60], project, max(1, options.repeat - 1))


if __name__ == "__main__":
    main()
