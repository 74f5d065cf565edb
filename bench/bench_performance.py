"""Performance-model benchmarks: one evaluation and the auto parallelism search at 16,384 GPUs.

Run: python bench/bench_performance.py [--repeat 21]

* one in-process ``core.evaluate.evaluate`` of a 16,384-GPU DGX H100 fabric (QM9700, 3 tiers)
  with the Llama 3 405B preset (every analysis, including the bottleneck what-ifs), median of
  ``--repeat`` runs; target < 50 ms;
* the auto parallelism search on the same design (``"parallelism": "auto"``), serial and on all
  cores (ProcessPoolExecutor), plus a whole ``evaluate`` with the auto workload; target < 5 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.parallelism_search import search_parallelism  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.flatten import flatten  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.process_pool import default_workers  # noqa: E402
from core.topology import analyze_topology  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s  # noqa: E402



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    design = generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog)
    workload = load_preset("llama3-405b")
    evaluate(design, catalog, workload)  # warm-up (imports, caches)
    ms = 1e3 * median_s(lambda: evaluate(design, catalog, workload), args.repeat)
    ev = evaluate(design, catalog, workload)
    perf = ev.performance
    print(f"evaluate, 16,384 x H100 + Llama 3 405B (tp 8, pp 16, dp 128): {ms:.1f} ms median "
          f"of {args.repeat} (target < 50 ms); MFU {100 * perf.mfu:.1f}%, "
          f"step {perf.step_time_s:.2f} s")
    if ev.bottleneck is not None:
        print(f"  bottleneck: {ev.bottleneck.summary}")

    auto = dataclasses.replace(workload, parallelism="auto")
    fabric = analyze_topology(flatten(design, catalog)).fabric
    for workers in sorted({1, default_workers()}):
        search_parallelism(fabric, auto, workers=workers)  # warm-up (pool start-up)
        start = time.perf_counter()
        found = search_parallelism(fabric, auto, workers=workers)
        elapsed = time.perf_counter() - start
        print(f"auto search, {workers} worker{'s' if workers > 1 else ''}: {elapsed * 1e3:.0f} ms "
              f"(target < 5 s); {found.considered} layouts, {found.evaluated} evaluated, "
              f"{found.rejected_for_memory} rejected for memory")
    # a search large enough to fan out: MoE with a 32k context (CP and EP candidates)
    moe = load_preset("mixtral-8x22b")
    moe = dataclasses.replace(moe, parallelism="auto",
                              model=dataclasses.replace(moe.model, seq_len=32768))
    for workers in sorted({1, default_workers()}):
        search_parallelism(fabric, moe, workers=workers)
        start = time.perf_counter()
        big = search_parallelism(fabric, moe, workers=workers)
        elapsed = time.perf_counter() - start
        print(f"auto search, Mixtral 8x22B at 32k context, {workers} worker"
              f"{'s' if workers > 1 else ''}: {elapsed * 1e3:.0f} ms; {big.considered} layouts, "
              f"{big.evaluated} evaluated")
    start = time.perf_counter()
    ev = evaluate(design, catalog, auto)
    elapsed = time.perf_counter() - start
    p = ev.performance.parallelism
    print(f"evaluate with \"parallelism\": \"auto\": {elapsed * 1e3:.0f} ms; chose tp {p.tp}, "
          f"pp {p.pp}, dp {p.dp}, cp {p.cp}, mbs {p.micro_batch}, v {p.virtual_stages}, "
          f"{p.recompute} recompute, ZeRO-{p.zero_stage}, GBS {p.global_batch}: "
          f"MFU {100 * ev.performance.mfu:.1f}%")
    for cand in found.candidates[1:]:
        q = cand.parallelism
        print(f"  runner-up tp {q.tp} pp {q.pp} dp {q.dp} cp {q.cp} v {q.virtual_stages} "
              f"{q.recompute}/ZeRO-{q.zero_stage}: {cand.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
