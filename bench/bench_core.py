"""Core engine benchmarks: in-process evaluation time and peak memory by size, project file I/O.

Run: python bench/bench_core.py [--repeat 5]
Budgets (issue #2, 2-core machine): 100,000 GPUs evaluate < 1 s; 1,000,000 < 10 s; a
100,000-GPU project file < 1 MB and loads in < 0.5 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.generators.supernode import nvl72_rack_from_parts  # noqa: E402
from core.model import Block, Design  # noqa: E402
from core.project import load_project, save_project  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

# (GPUs, server, switch): a 1M-GPU fabric needs radix 256 (51.2T at 200G) to fit 3 tiers.
CASES = [
    (1_024, "DGX-H100", "QM9700"),
    (16_384, "DGX-H100", "QM9700"),
    (100_000, "DGX-H100", "SN5600"),
    (1_000_000, "DGX-A100", "SN5600"),
]




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    workload = load_preset("llama3-405b")
    print(f"{'GPUs':>10}  {'evaluate median':>16}  {'peak memory':>12}")
    for gpus, server, switch in CASES:
        design = generate_fat_tree(FatTreeOptions(gpus, server, switch), catalog)
        design.workload = workload
        evaluate(design, catalog)  # warm caches (catalog, imports)
        repeat = args.repeat if gpus < 1_000_000 else max(1, args.repeat // 2)
        t = median_s(lambda: evaluate(design, catalog), repeat)
        mem = peak_mb(lambda: evaluate(design, catalog))
        print(f"{gpus:>10,}  {t * 1000:>13.1f} ms  {mem:>9.1f} MB")
    # hand-drawn NVL72 racks: the scale-up domain comes from connected components over cables
    drawn = Design("drawn NVL72 racks", Block("root", children={"rack": nvl72_rack_from_parts(1_389)}))
    evaluate(drawn, catalog)
    t = median_s(lambda: evaluate(drawn, catalog), args.repeat)
    mem = peak_mb(lambda: evaluate(drawn, catalog))
    print(f"{1_389 * 72:>10,}  {t * 1000:>13.1f} ms  {mem:>9.1f} MB  (hand-drawn NVL72 scale-up, "
          f"{1_389 * 1_296:,} cables)")
    design = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), catalog)
    design.workload = workload
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "100k.json"
        save_time = median_s(lambda: save_project(design, path), args.repeat)
        load_time = median_s(lambda: load_project(path, catalog), args.repeat)
        print(f"100,000-GPU project: {path.stat().st_size / 1024:.1f} KiB on disk, "
              f"save {save_time * 1000:.1f} ms, load {load_time * 1000:.1f} ms (median)")


if __name__ == "__main__":
    main()
