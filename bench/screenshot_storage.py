"""The docs' storage screenshot, not a timing: article 003's global file system - 3,200
generic parallel-file-system nodes (4 GB/s read, 3 GB/s write, 2 x 200G each; a user-catalog
entry until the catalog has ParaStor) on their own 3-tier QM9700 fabric under 16,384 H100
running Llama 3 405B, with a host-memory checkpoint tier replicated to one peer; the Storage
panel raised.

    python bench/screenshot_storage.py [-o docs/screenshots/storage-io.png] [--panel storage]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gui_sandbox import SANDBOX  # noqa: E402 - before Qt: settings in a temp folder

PFS_NODE = {
    "id": "PFS-Node-Generic", "kind": "storage", "vendor": "generic",
    "name": "Parallel file system node (generic, 2 x 200G)", "read_gbyte_s": 4.0,
    "write_gbyte_s": 3.0, "ports": 2, "port_gbit_s": 200, "max_power_w": 800, "rack_units": 2,
    "price": {"usd": 30000, "year": 2025, "evidence": "estimate", "source": "screenshot script"},
    "confidence": "E",
    "source": "screenshot script: one node of a >3,000-node, >10 TB/s file system (article 003)",
}
USER_CATALOG = Path(SANDBOX) / "user-catalog.json"
USER_CATALOG.write_text(json.dumps({"components": [PFS_NODE]}))
os.environ["CLUSTER_DESIGNER_USER_CATALOG"] = str(USER_CATALOG)

from core.analysis.storage import StorageAssumptions  # noqa: E402
from core.assumptions import Assumptions  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.workload import load_preset  # noqa: E402
from window_shot import screenshot_design  # noqa: E402


def design(catalog):
    out = generate_fat_tree(FatTreeOptions(
        16384, "DGX-H100", "QM9700", storage="PFS-Node-Generic", storage_nodes=3200,
        storage_switch="QM9700"), catalog)
    out.workload = load_preset("llama3-405b")
    out.assumptions = Assumptions(storage=StorageAssumptions(
        checkpoint_tiers={"host-memory": [200.0, 1024.0, 1]}))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "storage-io.png"))
    parser.add_argument("--panel", default="storage", help="the metric panel to raise")
    args = parser.parse_args()
    screenshot_design(design, args.output, args.panel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
