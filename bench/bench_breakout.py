"""Breakout benchmark: 1,000,000 H100 GPUs in DGX H100 servers (8 x 400G) on Q3400 (800G ports
split 2 x 400G), generate and evaluate, median times and peak memory.

Run: python bench/bench_breakout.py [--repeat 3]
Budget (issue 13, 2-core machine): generate + evaluate a 1M-GPU design in < 10 s.

The shipped catalog decides whether Q3400 lists the 2 x 400G mode; where it does not, the bench
adds "400": 288 to its ports in-process (and says so), as tests/test_breakout.py does.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import Catalog, load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

GPUS = 1_000_000


def catalog_with_400g_q3400() -> tuple[Catalog, str]:
    catalog = load_catalog(include_user=False)
    q3400 = catalog.get("Q3400")
    if q3400.port_count_at(400):
        return catalog, "shipped Q3400 modes"
    modes = {**q3400.ports_by_gbit_s, "400": 2 * q3400.port_count_at(q3400.native_port_gbit_s)}
    patched = dataclasses.replace(q3400, ports_by_gbit_s=modes)
    return Catalog([patched if spec.id == "Q3400" else spec for spec in catalog]), \
        f"Q3400 given {modes} in-process"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog, note = catalog_with_400g_q3400()
    workload = load_preset("llama3-405b")
    options = FatTreeOptions(GPUS, "DGX-H100", "Q3400")

    def generate():
        design = generate_fat_tree(options, catalog)
        design.workload = workload
        return design

    design = generate()
    evaluate(design, catalog)  # warm caches (catalog, imports)
    t_generate = median_s(generate, args.repeat)
    t_evaluate = median_s(lambda: evaluate(design, catalog), args.repeat)
    mem = peak_mb(lambda: evaluate(generate(), catalog))
    ev = evaluate(design, catalog)
    splitters = sum(item.count for item in ev.inventory.by_role("cable") if item.links > item.count)
    print(f"{GPUS:,} x H100 (DGX-H100) on Q3400, 400G via 2x breakout ({note})")
    print(f"  switches {ev.counts.switches_by_tier}, links {ev.counts.links:,}, "
          f"splitter cables {splitters:,}, transceivers {ev.counts.transceivers:,}")
    print(f"  generate {t_generate * 1000:.1f} ms, evaluate {t_evaluate * 1000:.1f} ms "
          f"(median of {args.repeat}), peak memory {mem:.1f} MB")


if __name__ == "__main__":
    main()
