"""Deployment search benchmarks ("deployment": "auto"): the whole evaluation of a design with an
inference workload that asks for "auto" (search, serving and the bottleneck what-ifs), against
the same workload with its preset's fixed deployment, and the search and the bottleneck alone,
from one DGX H100 to 100,000 GPUs.

Run: python bench/bench_inference_search.py [--repeat 5]
The search enumerates layouts of the model (divisors of heads, layers, experts), not GPUs: its
time grows with the model's shapes, not the design; each layout is one serve_deployment call.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.inference import analyze_inference_workload  # noqa: E402
from core.analysis.inference_bottleneck import explain_inference_bottleneck  # noqa: E402
from core.analysis.inference_search import search_deployment  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode  # noqa: E402
from core.inference_workload import AUTO, load_inference_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    fat_tree = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), catalog)
    cases = [
        ("1 x DGX-H100", generate_supernode(SupernodeOptions("DGX-H100", 1), catalog), "llama31-70b-serve"),
        ("1 x GB200-NVL72", generate_supernode(SupernodeOptions("GB200-NVL72", 1), catalog), "deepseek-r1-serve"),
        ("16 x GB200-NVL72", generate_supernode(SupernodeOptions("GB200-NVL72", 16), catalog), "deepseek-r1-serve"),
        ("100,000 x H100 fat-tree", fat_tree, "llama31-70b-serve"),
        ("100,000 x H100 fat-tree", fat_tree, "deepseek-r1-serve"),
    ]
    print("| design | GPUs | preset | evaluate (auto) | evaluate (fixed) | search | bottleneck "
          "| layouts / evaluations | chosen | peak MB (auto) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|---:|")
    for label, design, preset in cases:
        fixed = load_inference_preset(preset)
        auto = replace(fixed, deployment=AUTO)
        ev = evaluate(design, catalog, auto)
        fabric, kw = ev.topology.fabric, ev.power.facility_kw
        auto_s = median_s(lambda: evaluate(design, catalog, auto), args.repeat)
        fixed_s = median_s(lambda: evaluate(design, catalog, fixed), args.repeat)
        search_s = median_s(lambda: search_deployment(fabric, auto, kw), args.repeat)
        analysis = analyze_inference_workload(fabric, auto, kw)
        bottleneck_s = median_s(lambda: explain_inference_bottleneck(analysis), args.repeat)
        peak = peak_mb(lambda: evaluate(design, catalog, auto))
        search = ev.inference_search
        chosen = search.deployment.describe() if search.deployment is not None else "none runs"
        print(f"| {label} | {ev.counts.gpus:,} | {preset} | {auto_s * 1000:.0f} ms | {fixed_s * 1000:.0f} ms "
              f"| {search_s * 1000:.1f} ms | {bottleneck_s * 1000:.1f} ms | {search.considered:,} / "
              f"{search.evaluated:,} | {chosen} | {peak:.0f} |")


if __name__ == "__main__":
    main()
