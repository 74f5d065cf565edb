"""What the field checks and the size check cost on a design of 100,000 separately drawn nodes.

Run: python bench/bench_validation.py [--repeat 5] [--nodes 100000]

Times (median) to build the design in code (every Node and Link checks its fields), to run
check_design_size (what flatten does first), to save it (the loader's checks run on what is
written) and to load it, plus a snapshot (the GUI takes one per evaluation; the workload and
assumptions are re-checked).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.limits import check_design_size  # noqa: E402
from core.model import Block, Design, Link, Node  # noqa: E402
from core.project import load_project, save_project  # noqa: E402
from core.workload import load_preset  # noqa: E402
from timing import median_s  # noqa: E402


def build(nodes: int) -> Design:
    """``nodes`` servers, each cabled to one of nodes/32 leaf switches: one Node and Link each."""
    root = Block("root", "flat")
    leaves = max(1, nodes // 32)
    for i in range(leaves):
        root.children[f"leaf{i}"] = Node(f"leaf{i}", "QM9700", 1, f"Leaf {i}", x=float(i), y=0.0, tier="leaf")
    for i in range(nodes):
        root.children[f"n{i}"] = Node(f"n{i}", "DGX-H100", 1, f"Server {i}", x=float(i), y=100.0)
        root.links.append(Link(f"l{i}", f"n{i}", f"leaf{i % leaves}", "scale-out", 400.0, 8, 10.0, "fiber"))
    return Design("flat", root, workload=load_preset("llama3-70b"))



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=100_000)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    design = build(args.nodes)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "flat.json"
        rows = [
            (f"build {args.nodes:,} nodes + links in code", median_s(lambda: build(args.nodes), args.repeat)),
            ("check_design_size", median_s(lambda: check_design_size(design, catalog), args.repeat)),
            ("snapshot", median_s(design.snapshot, args.repeat)),
            ("save_project", median_s(lambda: save_project(design, path), args.repeat)),
            ("load_project (with catalog)", median_s(lambda: load_project(path, catalog), args.repeat)),
        ]
        size_mb = path.stat().st_size / 1e6
    for label, seconds in rows:
        print(f"{label:<40} {seconds * 1000:>9.1f} ms")
    print(f"file size {size_mb:.1f} MB")


if __name__ == "__main__":
    main()
