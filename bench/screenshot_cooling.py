"""The docs' cooling screenshot, not a timing: 256 DGX B300 (Llama 3 70B) in one scalable unit,
half of them on air (4 x 14 kW = 56 kW racks, over the 50 kW air limit: RACK_OVER_COOLING_LIMIT)
and half behind rear-door heat exchangers (75 kW); the Power panel raised.

    python bench/screenshot_cooling.py [-o docs/screenshots/cooling-limits.png] [--panel power]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gui_sandbox import SANDBOX  # noqa: E402,F401 - before Qt: settings in a temp folder

from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.preset_fit import fit_to_design  # noqa: E402
from core.workload import load_preset  # noqa: E402
from window_shot import screenshot_design  # noqa: E402


def design(catalog):
    out = generate_fat_tree(FatTreeOptions(256, "DGX-B300", "Q3400"), catalog)
    out.name = out.root.name = "DGX B300: air vs rear-door racks"
    su = out.root.children["su"]
    su.collapsed = False
    nodes = su.children["nodes"]
    half = nodes.count // 2
    su.children["nodes"] = dataclasses.replace(nodes, count=half, name="DGX B300 (air)")
    su.children["nodes-rd"] = dataclasses.replace(
        nodes, id="nodes-rd", count=half, name="DGX B300 (rear-door)", cooling="rear-door",
        x=nodes.x + 220)
    links = []
    for link in su.links:  # the servers' links, split evenly between the two groups
        if "nodes" not in (link.a, link.b):
            links.append(link)
            continue
        each = dataclasses.replace(link, count=link.count // 2)
        links += [each, dataclasses.replace(
            each, id=f"{link.id}-rd", a="nodes-rd" if link.a == "nodes" else link.a,
            b="nodes-rd" if link.b == "nodes" else link.b)]
    su.links = links
    out.workload, _ = fit_to_design(load_preset("llama3-70b"), 256, "llama3-70b")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "screenshots" / "cooling-limits.png"))
    parser.add_argument("--panel", default="power", help="the metric panel to raise")
    args = parser.parse_args()
    screenshot_design(design, args.output, args.panel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
