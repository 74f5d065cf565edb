"""Importing a large InfiniBand fabric: an ibnetdiscover dump of 8,192 DGX H100 (65,536 HCAs,
5,120 QM9700 switches on three tiers, 196,608 cables: 70,656 InfiniBand nodes, 42 MB of text)
read, folded into a project, and evaluated; and the 100,000-GPU example exported as GraphML
(blocks) and diagrams.net.

Run: python bench/bench_import.py [--repeat 3]
Budgets (issue 27): a 10,000-node dump becomes a compact design; the import evaluates in under
2 s. The dump is written from the generated design first (core/interop/ibnetdiscover_write.py),
so the bench needs no file of its own.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.interop.drawio import drawio_xml  # noqa: E402
from core.interop.fabric_import import design_from_fabric  # noqa: E402
from core.interop.fabric_map import fabric_map  # noqa: E402
from core.interop.graphml import design_graph  # noqa: E402
from core.interop.ibnetdiscover import read_ibnetdiscover  # noqa: E402
from core.interop.ibnetdiscover_write import ibnetdiscover_text  # noqa: E402
from core.project import load_project  # noqa: E402
from timing import median_wall_cpu_s, peak_mb  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "examples" / "h100-100k.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    planned = generate_fat_tree(FatTreeOptions(gpus=65536, server="DGX-H100", switch="QM9700"), catalog)
    mapping = fabric_map(None, catalog, server_id="DGX-H100")
    with tempfile.TemporaryDirectory() as folder:
        dump_path = Path(folder) / "fabric.topo"
        dump_path.write_text(ibnetdiscover_text(planned, catalog))
        size_mb = dump_path.stat().st_size / 1e6
        dump = read_ibnetdiscover(dump_path)
        design, summary = design_from_fabric(dump, catalog, mapping)
        rows = [
            ("read the dump", lambda: read_ibnetdiscover(dump_path)),
            ("fold into a design", lambda: design_from_fabric(dump, catalog, mapping)),
            ("evaluate the import", lambda: evaluate(design, catalog)),
        ]
        print(f"dump: {size_mb:.0f} MB, {len(dump.nodes):,} InfiniBand nodes; {summary.text()}")
        print(f"imported design: {sum(1 for _ in design.root.iter_nodes())} components, "
              f"{sum(1 for _ in design.root.iter_blocks())} blocks")
        for label, fn in rows:
            _row(label, fn, args.repeat)
    big = load_project(EXAMPLE, catalog)
    for label, fn in (("100k GraphML (blocks)", lambda: design_graph(big, catalog, "block")),
                      ("100k diagrams.net", lambda: drawio_xml(big))):
        _row(label, fn, args.repeat)


def _row(label: str, fn, repeat: int) -> None:
    wall, cpu = median_wall_cpu_s(fn, repeat)
    print(f"{label:28s} median {wall:6.2f} s (cpu {cpu:5.2f} s)   peak {peak_mb(fn):7.0f} MB")


if __name__ == "__main__":
    main()
