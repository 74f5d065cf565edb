"""Several workloads on one design: the whole evaluation of the 100,000-GPU example with a
training partition and two services, against the same design with its one workload.

Run: python bench/bench_partitions.py [--repeat 5]
Budget (issue 15): well under 2 s on the 2-core machine. Each block partition costs one flatten
and topology of the design cut down to it, and the pool of GPU-count partitions one of the
design without the block partitions (core/partitions.py); nothing is per GPU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from core.project import load_project  # noqa: E402
from core.services import Partition, Service  # noqa: E402
from timing import median_s, peak_mb  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "examples" / "h100-100k.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    one = load_project(EXAMPLE, catalog)
    # 24 pods of 4,096 H100 train (98,304 GPUs, Llama 3 405B as in the example); pod-2's three
    # full SUs (1,536 GPUs) serve Llama 3.1 70B; 128 GPUs of what is left (its 160-GPU SU) serve
    # a second copy: a block partition, a block inside a repeated one, and a GPU count.
    several = one.snapshot()
    several.workload_partition = Partition("training", blocks=("pod",))
    llama = load_inference_preset("llama31-70b-serve")
    several.services = (Service("chat", Partition(blocks=("pod-2/su",)), llama),
                        Service("batch", Partition(gpus=128), llama))
    ev = evaluate(several, catalog)
    assert [v.gpus for v in ev.partitions.all] == [98_304, 1_536, 128], [v.gpus for v in ev.partitions.all]
    assert ev.performance.runs and all(s.inference.runs for s in ev.services)
    evaluate(one, catalog)  # warm caches
    print("| design | GPUs | partitions | evaluate median | peak MB |")
    print("|---|---|---|---|---|")
    for label, design in (("h100-100k, one workload", one),
                          ("h100-100k, training partition + 2 services", several)):
        seconds = median_s(lambda: evaluate(design, catalog), args.repeat)
        peak = peak_mb(lambda: evaluate(design, catalog))
        parts = ev.partitions.all if design is several else ()
        shown = ", ".join(f"{v.name} {v.gpus:,}" for v in parts) or "-"
        print(f"| {label} | {ev.counts.gpus:,} | {shown} | {seconds * 1000:.0f} ms | {peak:.0f} |")


if __name__ == "__main__":
    main()
