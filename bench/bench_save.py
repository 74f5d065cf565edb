"""Atomic save benchmarks: what the durability details cost (temp + fsync + rename + folder fsync,
and the scan for temps left by killed saves), on the 100,000-GPU project.

Run: python bench/bench_save.py [--repeat 21] [--folder DIR]
Give --folder on the disk users save to: a tmpfs /tmp makes every fsync free.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.project import save_project  # noqa: E402
from timing import median_s  # noqa: E402

CROWDED_FILES = 10_000  # a folder of exports and runs next to the project: the stale-temp scan reads it
LEFTOVER_TEMPS = 1_000  # temps of killed saves to clear at once (dead pid)



def row(label: str, ms: float, note: str = "") -> None:
    print(f"  {label:<46}{ms:7.2f} ms  {note}".rstrip())


def dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--folder", help="where to save (default: the system temp folder)")
    args = parser.parse_args()
    design = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), load_catalog(include_user=False))
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        root = Path(tmp)
        alone = root / "alone"
        alone.mkdir()
        path = alone / "100k.json"
        save_project(design, path)
        print(f"100,000-GPU project ({path.stat().st_size / 1024:.1f} KiB), median of {args.repeat}:")
        row("save, folder holds only the project", 1e3 * median_s(lambda: save_project(design, path), args.repeat))

        crowded = root / "crowded"
        crowded.mkdir()
        for n in range(CROWDED_FILES):
            (crowded / f"run-{n:05d}.csv").touch()
        path = crowded / "100k.json"
        save_project(design, path)
        row(f"save, folder holds {CROWDED_FILES:,} other files", 1e3 * median_s(lambda: save_project(design, path), args.repeat))

        gone = dead_pid()
        cleared = []
        for _ in range(args.repeat):
            for n in range(LEFTOVER_TEMPS):
                (crowded / f".100k.json.{gone}-{n:08x}.tmp").touch()
            start = time.perf_counter()
            save_project(design, path)
            cleared.append(time.perf_counter() - start)
        left = sum(1 for p in crowded.iterdir() if p.name.endswith(".tmp"))
        row(f"save that removes {LEFTOVER_TEMPS:,} killed saves' temps", statistics.median(cleared) * 1000,
            f"({left} temps left)")


if __name__ == "__main__":
    main()
