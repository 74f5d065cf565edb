"""A cluster imported device by device: every server and switch its own component.

Run: python bench/bench_separate.py [--repeat 5] [--sizes 16000 50000 100000]

The design is what an import from an inventory system gives: a rail-optimised DGX H100
cluster on SN5600 switches at 400G (computing islands of 768 servers = 6,144 GPUs, 96 leaves
and 64 spines each, joined 4:1 by a core tier), with every server, leaf, spine and core switch
a component of count 1 in one block and one link per pair of cabled devices (a server's 8 NIC
rails are 8 links to 8 leaves, a leaf's 64 uplinks 64 links to its island's 64 spines, each
spine's 24 uplinks 24 links to core switches). tests/separate_design.py draws it from the
fat-tree generator's design, so it is the same cluster as the generated one.

For each size (the smallest number of whole islands with at least that many components) it
prints the median time of: building the design in code, save_project, load_project, flatten,
and evaluate with the Llama 3 405B preset; the file size; and the peak memory (tracemalloc)
of load and evaluate. Budget (issue: nothing a user loads can exhaust the app): evaluate of
100,000 separate components < 2 s on the 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import Catalog, load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.model import Design  # noqa: E402
from core.project import load_project, save_project  # noqa: E402
from core.workload import load_preset  # noqa: E402
from tests.separate_design import draw_separately  # noqa: E402
from timing import median_wall_cpu_s, peak_mb  # noqa: E402

ISLAND_GPUS = 6_144  # 768 DGX H100: the largest island a radix-128 spine serves at 4:1


def islands_design(islands: int, catalog: Catalog) -> Design:
    return generate_fat_tree(FatTreeOptions(
        islands * ISLAND_GPUS, "DGX-H100", "SN5600", island_gpus=ISLAND_GPUS,
        island_oversubscription=4, name=f"{islands} islands of {ISLAND_GPUS:,} H100, imported"),
        catalog)


def components(design: Design, catalog: Catalog) -> int:
    return int(flatten(design, catalog).multiplicity.sum())


def design_with_at_least(target: int, catalog: Catalog) -> Design:
    islands = 1
    while components(islands_design(islands, catalog), catalog) < target:
        islands += 1
    return islands_design(islands, catalog)




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_000, 50_000, 100_000])
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    workload = load_preset("llama3-405b")
    print("median wall-clock seconds (CPU seconds); peak memory by tracemalloc")
    print(f"{'components':>10} {'links':>9} {'GPUs':>8} | {'build':>11} {'save':>11} "
          f"{'load':>11} {'flatten':>11} {'evaluate':>11} | {'file':>6} {'load peak':>9} "
          f"{'eval peak':>9}")
    for target in args.sizes:
        blocks = design_with_at_least(target, catalog)
        design = draw_separately(blocks, catalog)
        design.workload = workload
        build = median_wall_cpu_s(lambda: draw_separately(blocks, catalog), args.repeat)
        flat_s = median_wall_cpu_s(lambda: flatten(design, catalog), args.repeat)
        ev = evaluate(design, catalog)
        eval_s = median_wall_cpu_s(lambda: evaluate(design, catalog), args.repeat)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "imported.json"
            save_s = median_wall_cpu_s(lambda: save_project(design, path), args.repeat)
            load_s = median_wall_cpu_s(lambda: load_project(path, catalog), args.repeat)
            size_mb = path.stat().st_size / 1e6
            load_mb = peak_mb(lambda: load_project(path, catalog))
        eval_mb = peak_mb(lambda: evaluate(design, catalog))
        times = " ".join(f"{wall:>5.2f} ({cpu:.2f})" for wall, cpu in
                         (build, save_s, load_s, flat_s, eval_s))
        print(f"{len(design.root.children):>10,} {len(design.root.links):>9,} {ev.counts.gpus:>8,} | "
              f"{times} | {size_mb:>4.0f}MB {load_mb:>7.0f}MB {eval_mb:>7.0f}MB", flush=True)


if __name__ == "__main__":
    main()
