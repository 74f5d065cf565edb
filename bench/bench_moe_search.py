"""MoE parallelism search benchmark (issue 21 item 7): the deepseek-v3 preset with "parallelism":
"auto" on
2,048 to 16,384 H100 GPUs (DGX H100 on a QM9700 NDR fat tree). Target: under 5 s each on the
2-core development machine.

Run: python bench/bench_moe_search.py [--repeat 3] [--preset kimi-k2]
(--preset: another training preset, e.g. kimi-k2, whose Muon optimizer adds its Newton-Schulz
iterations to every candidate's step.)
Prints, per size, the median wall-clock and CPU time (CPU shows the cost when other processes
share the cores) of the whole evaluation (what `cluster-designer evaluate`
does: topology, search, step time, bottleneck, the rest) and of the search alone, the search's
layouts (enumerated / evaluated with their memory options / rejected for memory), the chosen
layout and the peak traced Python memory of one evaluation.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.parallelism_search import search_parallelism  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_wall_cpu_s, peak_mb  # noqa: E402

SIZES = (2048, 4096, 8192, 16384)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--preset", default="deepseek-v3")
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    # the deepseek-v3 preset by default (DeepSeek-V3 as trained: MLA, MTP 1, node-limited
    # routing, FP8 blocks; resources/workloads/SOURCES.md) with its layout left to the search
    workload = dataclasses.replace(load_preset(args.preset), parallelism="auto")
    print("| H100 GPUs | evaluate (auto), wall / CPU | search alone, wall / CPU | layouts / "
          "evaluated / rejected for memory | chosen (tp, pp, dp, ep, expert tp, mbs, v, recompute, "
          "ZeRO) | GB/GPU | peak MB |")
    print("|---:|---:|---:|---:|---|---:|---:|")
    for gpus in SIZES:
        design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), catalog)
        ev = evaluate(design, catalog, workload)
        fabric = ev.topology.fabric
        eval_s, eval_cpu = median_wall_cpu_s(lambda: evaluate(design, catalog, workload),
                                             args.repeat)
        search_s, search_cpu = median_wall_cpu_s(lambda: search_parallelism(fabric, workload),
                                                 args.repeat)
        found = search_parallelism(fabric, workload)
        peak = peak_mb(lambda: evaluate(design, catalog, workload))
        b = found.best
        memory = found.candidates[0].memory_gb if found.candidates else float("nan")
        print(f"| {gpus:,} | {eval_s:.2f} / {eval_cpu:.2f} s | {search_s:.2f} / {search_cpu:.2f} s "
              f"| {found.considered:,} / {found.evaluated:,} / {found.rejected_for_memory:,} "
              f"| {b.tp}, {b.pp}, {b.dp}, {b.ep}, {b.expert_tp_effective}, {b.micro_batch}, "
              f"{b.virtual_stages}, {b.recompute}, {b.zero_stage} "
              f"| {memory:.0f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
