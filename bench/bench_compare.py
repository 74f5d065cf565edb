"""Compare benchmark: two 100,000-GPU designs side by side (issue 11: under 2 s on a 2-core
workstation). A is the bundled h100-100k example (SN5600, 3 tiers, full bisection, 100 AI400X2);
B is the same 100,000 H100 as islands of 4,096 GPUs joined 4:1, with the same storage and the
Llama 3 405B preset fitted to it.

Times ``cluster-designer compare A B`` as the command runs it (load both projects, evaluate both,
compare, render, write the file atomically), in process and as a fresh process (Python start and
imports included), and reports the peak memory of each.

Run: python bench/bench_compare.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.catalog import load_catalog  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.preset_fit import fit_to_design  # noqa: E402
from core.project import save_project  # noqa: E402
from core.workload import load_preset  # noqa: E402
from designer.cli import main as cli_main  # noqa: E402

BASELINE = ROOT / "resources" / "examples" / "h100-100k.json"


def islands_design(folder: Path) -> Path:
    options = FatTreeOptions(100_000, "DGX-H100", "SN5600", island_gpus=4096, island_oversubscription=4.0,
                             storage="AI400X2", storage_nodes=100, name="100k H100, islands of 4,096 at 4:1")
    design = generate_fat_tree(options, load_catalog(include_user=False))
    design.workload, _ = fit_to_design(load_preset("llama3-405b"), 100_000, "llama3-405b")
    path = folder / "h100-100k-islands.json"
    save_project(design, path)
    return path


def run_cli(argv: list[str]) -> None:
    with contextlib.redirect_stderr(io.StringIO()):  # preset-fit notes
        if cli_main(argv) != 0:
            raise SystemExit(f"compare failed: {argv}")


def median_s(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        other = islands_design(folder)
        pair = [str(BASELINE), str(other)]
        print(f"compare {BASELINE.name} (100,000 GPUs) with {other.name} (100,000 GPUs), "
              f"median of {args.repeat}:")
        for fmt in ("json", "md", "html", "csv"):
            out = folder / f"comparison.{fmt}"
            seconds = median_s(lambda: run_cli(["compare", *pair, "--format", fmt, "-o", str(out)]),
                               args.repeat)
            print(f"  in process, --format {fmt:<5}{seconds * 1000:8.1f} ms  ({out.stat().st_size / 1024:.0f} KiB)")
        refit = ["compare", *pair, "--workload", "llama3-405b", "--format", "json", "-o", str(folder / "w.json")]
        seconds = median_s(lambda: run_cli(refit), args.repeat)
        print(f"  in process, --workload llama3-405b (fitted to each) {seconds * 1000:8.1f} ms")

        tracemalloc.start()
        run_cli(["compare", *pair, "--format", "json", "-o", str(folder / "m.json")])
        peak_bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  peak Python allocations of one compare (tracemalloc): {peak_bytes / 2**20:.1f} MiB")

        command = [sys.executable, "-m", "designer.cli", "compare", *pair, "--format", "json",
                   "-o", str(folder / "p.json")]
        seconds = median_s(lambda: subprocess.run(command, cwd=ROOT, check=True, capture_output=True),
                           max(3, args.repeat // 2))
        max_rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"  fresh process (python -m designer.cli compare ...){seconds * 1000:8.1f} ms, "
              f"peak RSS {max_rss_mib:.0f} MiB")


if __name__ == "__main__":
    main()
