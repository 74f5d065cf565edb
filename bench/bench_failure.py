"""Failure what-if benchmark: evaluating a design with one failed switch, or a failed pod,
against the intact design, from 16k to 1M GPUs.

Run: python bench/bench_failure.py [--repeat 3]

A failure splits a repeated block into runs of identical instances (core/degrade.py) rather
than expanding it, so the degraded design evaluates about as fast as the intact one; the
evaluation with failures runs the analyses twice (the intact design, for the comparison in the
failure section, and the degraded one), so expect about twice the intact time. Printed per
size: the intact evaluation, the degraded design alone (transform + evaluation), the whole
evaluation with the failure section, its peak memory, and the groups drawn before and after.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.degrade import degraded_design  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.what_if import with_out_of_service  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

# (GPUs, server, switch) as in bench_core.py; the failure is one top-tier switch of the first
# pod (a repeated block) when there is one, and one whole SU or pod.
CASES = [
    (16_384, "DGX-H100", "QM9700"),
    (100_000, "DGX-H100", "SN5600"),
    (1_000_000, "DGX-A100", "SN5600"),
]


def _targets(design) -> tuple[str, str]:
    """(one switch inside the first repeated block, or of the top level; the first repeated
    block whole)."""
    block_id = next(key for key, child in design.root.children.items() if hasattr(child, "children"))
    block = design.root.children[block_id]
    inner_switch = next((f"{block_id}/{key}" for key, child in block.children.items()
                         if not hasattr(child, "children") and child.tier), None)
    top_switch = next(key for key, child in design.root.children.items()
                      if not hasattr(child, "children") and child.tier)
    return f"{inner_switch or top_switch}:1", f"{block_id}:1"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog = load_catalog()
    workload = load_preset("llama3-70b")
    print(f"{'GPUs':>10} {'failure':>16} {'intact s':>9} {'degraded s':>11} {'with section s':>15} "
          f"{'peak MB':>8} {'groups':>13}")
    for gpus, server, switch in CASES:
        design = generate_fat_tree(FatTreeOptions(gpus, server, switch), catalog)
        design.workload = workload
        intact_s = median_s(lambda: evaluate(design, catalog), args.repeat)
        groups = len(flatten(design, catalog).paths)
        for target in _targets(design):
            what_if = with_out_of_service(design, [target])
            degraded = degraded_design(what_if)
            degraded_s = median_s(lambda: evaluate(degraded_design(what_if), catalog), args.repeat)
            whole_s = median_s(lambda: evaluate(what_if, catalog), args.repeat)
            peak = peak_mb(lambda: evaluate(what_if, catalog))
            print(f"{gpus:>10,} {target:>16} {intact_s:>9.3f} {degraded_s:>11.3f} {whole_s:>15.3f} "
                  f"{peak:>8.0f} {groups:>5} -> {len(flatten(degraded, catalog).paths):>4}", flush=True)


if __name__ == "__main__":
    main()
