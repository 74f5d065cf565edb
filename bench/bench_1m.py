"""1,000,000-GPU GB300 and B300 designs: ``generate`` + ``evaluate`` through the command line.

Run: python bench/bench_1m.py [--repeat 3]
Budget (issue 13): each design generates and evaluates in under 10 s.

Each run is a fresh ``python -m designer.cli`` process, as a user runs it: the time includes
start-up and imports; the memory is the process's peak RSS (os.wait4). The designs use the
2025-26 catalog entries when the catalog has them and say which they used:

* GB300: GB300-NVL72 racks (72 x ConnectX-8 at 800G) on Quantum-X800 Q3400 (144 x 800G), two
  planes (36 NICs of each rack per plane): one plane at 800G would need 1,000,008 endpoints
  where 3 tiers of 144-port switches reach 746,496. Stand-in: GB200-NVL72 on TH5, 4 planes.
* B300: DGX-B300 (8 x ConnectX-8) on Tomahawk 6 (512 x 200G), four planes, each NIC as
  4 x 200G. Stand-in: DGX-B200 (8 x ConnectX-7 400G) on TH5, 8 planes (one NIC per plane).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.catalog import load_catalog  # noqa: E402

WORKLOAD = "llama3-405b"


def designs(catalog) -> list[tuple[str, list[str]]]:
    """(label, generate arguments) of the two 1M-GPU designs, current entries when present."""
    out = []
    if {"GB300-NVL72", "Q3400"} <= {s.id for s in catalog}:
        out.append(("GB300-NVL72 x 13,889 on Q3400, 2 planes x 800G",
                    ["supernode", "--system", "GB300-NVL72", "--count", "13889",
                     "--switch", "Q3400", "--planes", "2"]))
    else:
        out.append(("GB200-NVL72 x 13,889 on TH5, 4 planes x 400G (GB300-NVL72 not in catalog)",
                    ["supernode", "--system", "GB200-NVL72", "--count", "13889",
                     "--switch", "TH5", "--planes", "4"]))
    if {"DGX-B300", "TH6"} <= {s.id for s in catalog}:
        out.append(("DGX-B300 x 125,000 on TH6, 4 planes x 200G",
                    ["fat-tree", "--gpus", "1000000", "--server", "DGX-B300", "--switch", "TH6",
                     "--planes", "4"]))
    else:
        out.append(("DGX-B200 x 125,000 on TH5, 8 planes x 400G (DGX-B300/TH6 not in catalog)",
                    ["fat-tree", "--gpus", "1000000", "--server", "DGX-B200", "--switch", "TH5",
                     "--planes", "8"]))
    return out


def run(args: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one ``cluster-designer ARGS`` process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "designer.cli", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cluster-designer {' '.join(args)} failed: {proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    catalog = load_catalog(include_user=False)
    print(f"{'design':<72} {'generate':>9} {'evaluate':>9} {'total':>7} {'peak RSS':>9}  "
          f"switches / hops / interruptions per day")
    with tempfile.TemporaryDirectory() as tmp:
        for label, generate in designs(catalog):
            project = str(Path(tmp) / "design.json")
            evaluation = str(Path(tmp) / "evaluation.json")
            gen = [run(["generate", *generate, "--workload", WORKLOAD, "-o", project])
                   for _ in range(options.repeat)]
            ev = [run(["evaluate", project, "-o", evaluation]) for _ in range(options.repeat)]
            gen_s = statistics.median(t for t, _ in gen)
            ev_s = statistics.median(t for t, _ in ev)
            rss = max(m for _, m in gen + ev)
            result = json.loads(Path(evaluation).read_text())
            facts = (f"{result['counts']['gpus']:,} GPUs, {result['counts']['switches']:,} "
                     f"switches, {result['latency']['max_switch_hops']} hops, "
                     f"{result['reliability']['interruptions_per_day']:.1f}/day, "
                     f"MFU {result['performance']['mfu'] or 0:.1%}")
            print(f"{label:<72} {gen_s:>7.2f} s {ev_s:>7.2f} s {gen_s + ev_s:>5.2f} s "
                  f"{rss:>6.0f} MB  {facts}")


if __name__ == "__main__":
    main()
