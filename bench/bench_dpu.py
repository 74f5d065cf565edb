"""DPU benchmarks: DPU-fronted storage paths (DGX B200, two BlueField-3 per node, on a separate
storage fabric) from 16k to 100k GPUs: the whole evaluation, the storage analysis with its DPU
stages, and the DPU analysis alone.

Run: python bench/bench_dpu.py [--repeat 5]
Both analyses work on the drawn groups and bundles (numpy arrays), not on DPUs: their time
follows the drawing, whatever the DPU count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.dpu import analyze_dpus  # noqa: E402
from core.analysis.storage import StorageAssumptions, analyze_storage  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.topology import analyze_topology  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

# (GPUs, switch, storage nodes, storage switch)
CASES = [
    (16_384, "QM9700", 3_200, "QM9700"),
    (100_000, "SN5600", 10_000, "QM9700"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    workload = load_preset("llama3-405b")
    encrypted = StorageAssumptions(dpu_encrypt_storage=True)
    print("| GPUs | DPUs | storage nodes | evaluate | storage analysis (encrypted) | DPU analysis | peak MB |")
    print("|---|---|---|---|---|---|---|")
    for gpus, switch, nodes, storage_switch in CASES:
        design = generate_fat_tree(FatTreeOptions(
            gpus, "DGX-B200", switch, storage="AI400X2", storage_nodes=nodes,
            storage_switch=storage_switch), catalog)
        flat = flatten(design, catalog)
        topology = analyze_topology(flat)
        storage = analyze_storage(topology, workload, encrypted)
        evaluate_s = median_s(lambda: evaluate(design, catalog, workload), args.repeat)
        storage_s = median_s(lambda: analyze_storage(topology, workload, encrypted), args.repeat)
        dpu_s = median_s(lambda: analyze_dpus(flat, storage.classes, storage.dpu_stages, True),
                         args.repeat)
        dpus = analyze_dpus(flat, storage.classes, storage.dpu_stages, True)
        peak = peak_mb(lambda: evaluate(design, catalog, workload))
        count = sum(m.count for m in dpus.models.values())
        print(f"| {gpus:,} | {count:,} | {nodes:,} | {evaluate_s * 1000:.0f} ms | "
              f"{storage_s * 1000:.1f} ms | {dpu_s * 1000:.2f} ms | {peak:.0f} |")


if __name__ == "__main__":
    main()
