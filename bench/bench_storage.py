"""Storage benchmarks: generating and evaluating designs with thousands of storage nodes on
their own 3-tier fabric, and the storage-by-I/O-class analysis alone.

Run: python bench/bench_storage.py [--repeat 5]
The analysis walks the drawn groups and bundles (numpy), not devices: its time follows the
drawing, whatever the GPU or storage-node count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.storage import analyze_storage  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.topology import analyze_topology  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

# (GPUs, server, switch, storage nodes, storage switch, storage fabric)
CASES = [
    (16_384, "DGX-H100", "QM9700", 3_200, "QM9700", "separate"),
    (100_000, "DGX-H100", "SN5600", 10_000, "QM9700", "separate"),
    (100_000, "DGX-H100", "SN5600", 1_000, "SN5600", "converged"),
    (1_000_000, "DGX-A100", "SN5600", 20_000, "SN5600", "separate"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    workload = load_preset("llama3-405b")
    print("| GPUs | storage nodes | fabric | generate | evaluate | storage analysis | peak MB |")
    print("|---|---|---|---|---|---|---|")
    for gpus, server, switch, nodes, storage_switch, fabric in CASES:
        def build():
            return generate_fat_tree(FatTreeOptions(
                gpus, server, switch, storage="AI400X2", storage_nodes=nodes,
                storage_switch=storage_switch, storage_fabric=fabric), catalog)
        design = build()
        topology = analyze_topology(flatten(design, catalog))
        generate_s = median_s(build, args.repeat)
        evaluate_s = median_s(lambda: evaluate(design, catalog, workload), args.repeat)
        storage_s = median_s(lambda: analyze_storage(topology, workload), args.repeat)
        peak = peak_mb(lambda: evaluate(design, catalog, workload))
        print(f"| {gpus:,} | {nodes:,} | {fabric} | {generate_s * 1000:.0f} ms | "
              f"{evaluate_s * 1000:.0f} ms | {storage_s * 1000:.1f} ms | {peak:.0f} |")


if __name__ == "__main__":
    main()
