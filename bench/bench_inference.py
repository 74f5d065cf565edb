"""Inference benchmarks: the whole evaluation of a design with an inference workload against the
same design with a training workload (the edit->panels budget), and the inference analysis
alone, from one DGX H100 to 100,000 GPUs.

Run: python bench/bench_inference.py [--repeat 5]
The analysis works on the deployment's shape and the FabricView's few levels, not on GPUs: its
time does not grow with the design.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.inference import analyze_inference  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from core.preset_fit import fit_to_design  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    cases = [
        ("1 x DGX-H100", generate_supernode(SupernodeOptions("DGX-H100", 1), catalog), "llama31-70b-serve"),
        ("16 x GB200-NVL72", generate_supernode(SupernodeOptions("GB200-NVL72", 16), catalog), "deepseek-r1-serve"),
        ("100,000 x H100 fat-tree", generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), catalog),
         "llama31-70b-serve"),
    ]
    print("| design | GPUs | inference preset | evaluate (inference) | evaluate (training, llama3-70b fitted) "
          "| inference analysis | peak MB (inference) |")
    print("|---|---|---|---|---|---|---|")
    for label, design, preset in cases:
        serving = load_inference_preset(preset)
        ev = evaluate(design, catalog, serving)
        training, _ = fit_to_design(load_preset("llama3-70b"), ev.counts.gpus, "llama3-70b")
        inference_s = median_s(lambda: evaluate(design, catalog, serving), args.repeat)
        training_s = median_s(lambda: evaluate(design, catalog, training), args.repeat)
        fabric, kw = ev.topology.fabric, ev.power.facility_kw
        analysis_s = median_s(lambda: analyze_inference(fabric, serving, kw), args.repeat)
        peak = peak_mb(lambda: evaluate(design, catalog, serving))
        print(f"| {label} | {ev.counts.gpus:,} | {preset} | {inference_s * 1000:.0f} ms | "
              f"{training_s * 1000:.0f} ms | {analysis_s * 1000:.2f} ms | {peak:.0f} |")


if __name__ == "__main__":
    main()
