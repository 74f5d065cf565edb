"""The same cluster drawn one device at a time, as an import from an inventory system gives it.

``draw_separately`` takes any design and returns an equivalent one whose root block lists every
unit (server, switch, storage node) as its own component with count 1, and one link per pair of
cabled units whose count is the number of cables between them: a server's 8 NIC rails become 8
links to 8 leaves, a leaf's uplinks one link per spine it reaches. The wiring is the device
graph of core/flatten.py, so the result is the same cluster and must evaluate to the same
numbers (tests/test_separate.py); bench/bench_separate.py times the engine on it.
"""

from __future__ import annotations

import numpy as np

from core.catalog import Catalog
from core.flatten import flatten, unit_graph
from core.model import Block, Design, Link, Node

# Canvas spacing of the imported devices: one row per node id (servers, leaves...), like a
# floor plan listing.
_X_STEP = 40.0
_Y_STEP = 200.0


def draw_separately(design: Design, catalog: Catalog) -> Design:
    flat = flatten(design, catalog)
    graph = unit_graph(flat)
    root = Block("root", design.root.name)
    names: list[str] = []
    numbered: dict[str, int] = {}  # units named so far per node id, for ids like "leaf-17"
    rows: dict[str, int] = {}
    for group, block_cooling in zip(flat.groups, flat.block_cooling):
        base = group.node.id
        first = numbered.get(base, 0)
        numbered[base] = first + group.multiplicity
        row = rows.setdefault(base, len(rows))
        for k in range(first, first + group.multiplicity):
            unit_id = f"{base}-{k}"
            names.append(unit_id)
            root.children[unit_id] = Node(
                unit_id, group.node.catalog_id, 1, tier=group.node.tier,
                overrides=dict(group.node.overrides), cooling=group.node.cooling or block_cooling,
                x=k * _X_STEP, y=row * _Y_STEP)
    # One link per (bundle, unit pair): cables of one bundle between the same two units merge.
    keys = np.stack([graph.edge_bundle.astype(np.int64), graph.src, graph.dst])
    pairs, cables = np.unique(keys, axis=1, return_counts=True)
    for n, (k, a, b, count) in enumerate(zip(*pairs.tolist(), cables.tolist())):
        bundle = flat.bundles[k]
        root.links.append(Link(f"c{n + 1}", names[a], names[b], bundle.kind, bundle.speed_gbit_s,
                               count, bundle.length_m, bundle.medium))
    return Design(design.name, root, design.workload, design.assumptions)
