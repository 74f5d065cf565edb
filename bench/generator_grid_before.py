"""The generator grid BEFORE issue 22: run against a checkout of the code before it (its
core/inventory.py still has ``_link_end``), it lists the grid's error-severity warnings plus
every fibre bundle whose two end modules (as that inventory picked them) or cable differ in
fibre type, a check that code did not make. Not runnable on the current tree.

    mkdir /tmp/before && git archive 2180456 | tar -x -C /tmp/before
    cp bench/generator_grid.py bench/generator_grid_before.py /tmp/before/bench/
    cd /tmp/before && python bench/generator_grid_before.py

Result (2026-11-28): 22 of 34 generated designs with port or optics-medium errors (6 of them
NODE_PORTS_EXCEEDED, which that code reported itself). bench/generator_grid.py on the current
tree: 0 of 34.
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import numpy as np
from core.catalog import load_catalog
from core.errors import GeneratorError
from core.evaluate import evaluate
from core.flatten import flatten
from core.port_modes import links_per_port
from core import inventory as inv
sys.path.insert(0, str(Path(__file__).resolve().parent))
from generator_grid import combinations

TYPE = {"OSFP-400G-SR4": "mm", "OSFP-400G-DR4": "sm", "OSFP-800G-2xSR4": "mm", "OSFP-1.6T-2xDR4": "sm",
        "QSFP-200G": "mm", "OSFP-1.6T-DR8": "sm", "Fiber-MMF": "mm", "Fiber-SMF": "sm",
        "Fiber-MMF-Splitter-1x2": "mm", "Fiber-SMF-Splitter-1x4": "sm"}

def medium_problems(design, catalog):
    flat = flatten(design, catalog)
    split = np.array([[links_per_port(spec, float(v)) if spec.kind == "switch" else 1
                       for v in flat.speed_values] for spec in flat.specs], dtype=np.int64)
    modules = []
    sides = [inv._link_end(flat, ends, split, modules) for ends in (flat.bundle_a, flat.bundle_b)]
    out = set()
    for k in np.flatnonzero(flat.bundles_of_medium("fiber")).tolist():
        types = set()
        for module, fanout in sides:
            if module[k] >= 0:
                types.add(TYPE[modules[module[k]].id])
        f = max(int(sides[0][1][k]), int(sides[1][1][k]))
        cable = inv.choose_cable(catalog, "fiber", float(flat.length_m[k]), f)
        if cable is not None:
            types.add(TYPE[cable.id])
        if len(types) > 1:
            out.add("MEDIUM_MISMATCH")
    return out

catalog = load_catalog(include_user=False)
generated = invalid = 0
for label, generate in combinations():
    try:
        design = generate(catalog)
    except GeneratorError:
        continue
    generated += 1
    codes = {w.code for w in evaluate(design, catalog).warnings if w.severity == "error"}
    codes |= medium_problems(design, catalog)
    invalid += bool(codes)
    print(("ERRORS " if codes else "ok     "), label, sorted(codes))
print(f"{invalid} of {generated} with port or optics-medium errors (main)")
