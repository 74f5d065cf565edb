"""The generator grid of issue 22: does every design the generators accept evaluate without an
error-severity warning?

DGX H100 / B200 / B300 x QM9700 / Q3400 / SN5600 / TH6 x 1, 2 or 4 planes at 2,048 GPUs, plus
GB200 NVL72, GB300 NVL72 and CloudMatrix384 super-nodes (4 of them) on QM9700 and SN5600.
Each combination is generated (a refusal is listed with its one-line reason) and evaluated
without a workload; the errors are listed by code.

Run: python bench/generator_grid.py [--verbose]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.errors import GeneratorError  # noqa: E402
from core.evaluate import evaluate  # noqa: E402
from core.generators import (  # noqa: E402
    FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode)

SERVERS = ("DGX-H100", "DGX-B200", "DGX-B300")
SWITCHES = ("QM9700", "Q3400", "SN5600", "TH6")
PLANES = (1, 2, 4)
SYSTEMS = ("GB200-NVL72", "GB300-NVL72", "CloudMatrix384")
SYSTEM_SWITCHES = ("QM9700", "SN5600")


def combinations():
    for server in SERVERS:
        for switch in SWITCHES:
            for planes in PLANES:
                yield (f"fat-tree {server} {switch} planes={planes}",
                       lambda catalog, s=server, w=switch, p=planes: generate_fat_tree(
                           FatTreeOptions(gpus=2048, server=s, switch=w, planes=p), catalog))
    for system in SYSTEMS:
        for switch in SYSTEM_SWITCHES:
            yield (f"supernode {system} {switch}",
                   lambda catalog, s=system, w=switch: generate_supernode(
                       SupernodeOptions(system=s, count=4, switch=w), catalog))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print every error message")
    args = parser.parse_args()
    catalog = load_catalog(include_user=False)
    generated = refused = invalid = 0
    for label, generate in combinations():
        try:
            design = generate(catalog)
        except GeneratorError as problem:
            refused += 1
            print(f"REFUSED  {label}: {problem}")
            continue
        generated += 1
        errors = [w for w in evaluate(design, catalog).warnings if w.severity == "error"]
        invalid += bool(errors)
        print(f"{'ERRORS ' if errors else 'ok     '}  {label}"
              + (": " + ", ".join(w.code for w in errors) if errors else ""))
        if args.verbose:
            for w in errors:
                print(f"           {w.code}: {w.message}")
    print(f"{generated} generated, {refused} refused, {invalid} of {generated} with errors")


if __name__ == "__main__":
    main()
