"""MoE parallelism search benchmark (issue 21 item 7): DeepSeek-V3 with "parallelism": "auto" on
2,048 to 16,384 H100 GPUs (DGX H100 on a QM9700 NDR fat tree). Target: under 5 s each on the
2-core development machine.

Run: python bench/bench_moe_search.py [--repeat 3]
Prints, per size, the median wall-clock and CPU time (CPU shows the cost when other processes
share the cores) of the whole evaluation (what `cluster-designer evaluate`
does: topology, search, step time, bottleneck, the rest) and of the search alone, the search's
layouts (enumerated / evaluated with their memory options / rejected for memory), the chosen
layout and the peak traced Python memory of one evaluation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.parallelism_search import search_parallelism  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.workload import workload_from_dict  # noqa: E402
from timing import median_wall_cpu_s, peak_mb  # noqa: E402

# DeepSeek-V3 as it was trained (config.json, resources/workloads/SOURCES.md; arXiv
# 2412.19437 §2-3): MLA, 3 dense layers, 256 routed experts + 1 shared, top-8 on at most 4
# nodes, one MTP module, FP8 with 1x128 / 128x128 block scales.
DEEPSEEK_V3 = {
    "name": "DeepSeek-V3 (auto layout)",
    "model": {"layers": 61, "hidden": 7168, "ffn_hidden": 18432, "heads": 128, "kv_heads": 128,
              "vocab": 129280, "seq_len": 4096, "activation": "swiglu", "causal": True,
              "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                      "qk_nope_head_dim": 128, "v_head_dim": 128},
              "mtp_depth": 1,
              "moe": {"experts": 256, "top_k": 8, "shared_experts": 1,
                      "expert_ffn_hidden": 2048, "dense_layers": 3, "route_nodes": 4}},
    "parallelism": "auto",
    "precision": "fp8-block",
}
SIZES = (2048, 4096, 8192, 16384)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    workload = workload_from_dict(DEEPSEEK_V3)
    print("| H100 GPUs | evaluate (auto), wall / CPU | search alone, wall / CPU | layouts / "
          "evaluated / rejected for memory | chosen (tp, pp, dp, ep, etp, mbs, v, recompute, "
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
              f"| {b.tp}, {b.pp}, {b.dp}, {b.ep}, {b.expert_tp}, {b.micro_batch}, "
              f"{b.virtual_stages}, {b.recompute}, {b.zero_stage} "
              f"| {memory:.0f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
