"""Sweep benchmark (issue 12: a 200-design sweep of 16k-GPU fabrics under 60 s on 2 cores).

200 designs of 16,384 GPUs: 5 servers (DGX A100/H100/H200/B200, MI300X platform) x 2 Ethernet
switches (SN5600, TH5) x full bisection or islands of 1,024 / 2,048 / 4,096 GPUs x 5 island
ratios (1:1 to 4:1), each with the Llama 3 405B preset fitted to it (performance, cost and
the Pareto front on every row).

Times ``cluster-designer sweep SPEC -o results.csv --jobs N`` as a fresh process (Python start,
imports, worker start-up, every evaluation, the Pareto front and the atomic CSV write
included), for N = 1 and 2, and reports the peak resident memory of the largest process (the
command or one worker). In process, the same sweep on one core gives the time per design.

Run: python bench/bench_sweep.py [--repeat 3] [--gpus 16384]
(--gpus 98304: the same 200 designs at 96k GPUs, where the process pool pays for its start-up)
or python bench/bench_sweep.py --spec resources/sweeps/serving-deepseek-r1.json: any spec file
timed the same way (the serving example: 72 designs, two thirds of them searching DeepSeek-R1's
deployment on each design).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.sweep.run import run_sweep  # noqa: E402
from core.sweep.spec import load_sweep_spec, sweep_spec_from_dict  # noqa: E402

SPEC = {
    "format": "cluster-designer.sweep/1",
    "name": "bench: 200 x 16k-GPU fabrics",
    "template": "fat-tree",
    "options": {"gpus": [16384],
                "server": ["DGX-A100", "DGX-H100", "DGX-H200", "DGX-B200", "MI300X-Platform"],
                "switch": ["SN5600", "TH5"],
                "island_gpus": [None, 1024, 2048, 4096],
                "island_oversubscription": [1, 1.5, 2, 3, 4]},
    "workloads": ["llama3-405b"],
}


def command_s(spec: Path, out: Path, jobs: int, repeat: int) -> tuple[float, float]:
    """Median wall seconds of the command over ``repeat`` fresh runs, and the peak RSS (MB) of
    the largest process any of them started."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "designer.cli", "sweep", str(spec), "-o", str(out),
                        "--jobs", str(jobs), "--no-progress"], cwd=ROOT, check=True,
                       capture_output=True)
        times.append(time.perf_counter() - start)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return statistics.median(times), peak_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gpus", type=int, default=16384, help="GPUs per design (default: 16384)")
    parser.add_argument("--spec", type=Path, help="time this spec file instead (--gpus is ignored)")
    args = parser.parse_args()
    if args.spec:
        spec = load_sweep_spec(args.spec)
        what = f"{spec.combinations} designs of {args.spec.name}"
    else:
        SPEC["options"]["gpus"] = [args.gpus]
        spec = sweep_spec_from_dict(SPEC)
        assert spec.combinations == 200, spec.combinations
        what = f"{spec.combinations} designs of {args.gpus:,} GPUs"
    start = time.perf_counter()
    _, outcomes = run_sweep(spec, jobs=1)
    in_process = time.perf_counter() - start
    failed = sum(o["error"] is not None for o in outcomes)
    missed = sum(o["meets_slo"] is False for o in outcomes)
    print(f"{what} ({failed} with an error, {missed} missing their serving SLOs), in process on 1 core: "
          f"{in_process:.2f} s ({in_process / spec.combinations * 1000:.1f} ms per design)")
    with tempfile.TemporaryDirectory() as folder:
        path = args.spec.resolve() if args.spec else Path(folder) / "bench-sweep.json"
        if not args.spec:
            path.write_text(json.dumps(SPEC))
        out = Path(folder) / "results.csv"
        for jobs in (1, 2):
            median, peak = command_s(path, out, jobs, args.repeat)
            print(f"cluster-designer sweep --jobs {jobs}: median {median:.2f} s over {args.repeat} "
                  f"runs{'' if args.spec else ' (budget 60 s)'}, peak RSS of the largest process {peak:.0f} MB, "
                  f"results {out.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
