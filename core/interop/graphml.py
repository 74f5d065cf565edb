"""A design as a GraphML graph (networkx), for graph tools, scripts and network simulators.

``level="device"``: one node per device (server, switch, storage node...) with its catalog id,
catalog kind, tier and the group it belongs to, and one edge per cable bundle between two
devices (the cables of one link that join the same two units) with its count, speed, medium,
kind and length. ``level="block"``: one node per group as the design stores it (a repeated
block's group once, with its total count) and one edge per link bundle: what a huge design
can be written as, since its device graph would have millions of edges.
"""

from __future__ import annotations

import io
from pathlib import Path

import networkx as nx
import numpy as np

from core.atomic_write import atomic_write_bytes
from core.catalog import Catalog
from core.errors import DesignError
from core.flatten import FlatDesign, flatten, unit_graph
from core.model import Design

LEVELS = ("device", "block")
# A device graph past these sizes is gigabytes of networkx objects and of XML: write the blocks.
MAX_DEVICE_UNITS = 250_000
MAX_DEVICE_CABLES = 3_000_000


def design_graph(design: Design, catalog: Catalog, level: str = "device") -> nx.MultiGraph:
    if level not in LEVELS:
        raise DesignError(f"unknown GraphML level {level!r}; use device or block")
    flat = flatten(design, catalog)
    graph = nx.MultiGraph(name=design.name, level=level)
    return _blocks(flat, graph) if level == "block" else _devices(flat, graph)


def write_graphml(design: Design, catalog: Catalog, path: str | Path, level: str = "device") -> None:
    graph = design_graph(design, catalog, level)
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer, named_key_ids=True)
    atomic_write_bytes(path, buffer.getvalue())


def _tier(flat: FlatDesign, group: int) -> str:
    node = flat.nodes[group]
    return node.tier or ("compute" if flat.is_compute[group] else flat.kind[group])


def _blocks(flat: FlatDesign, graph: nx.MultiGraph) -> nx.MultiGraph:
    for g, path in enumerate(flat.paths):
        graph.add_node(path, catalog_id=flat.nodes[g].catalog_id, kind=str(flat.kind[g]),
                       tier=_tier(flat, g), count=int(flat.multiplicity[g]), label=flat.nodes[g].label)
    for bundle in flat.bundles:
        graph.add_edge(flat.paths[bundle.a], flat.paths[bundle.b], key=f"{bundle.owner_path}#{bundle.link_id}",
                       link=f"{bundle.owner_path}#{bundle.link_id}" if bundle.owner_path else f"#{bundle.link_id}",
                       kind=bundle.kind, speed_gbit_s=float(bundle.speed_gbit_s), count=int(bundle.cables),
                       medium=bundle.medium, length_m=float(bundle.length_m))
    return graph


def _devices(flat: FlatDesign, graph: nx.MultiGraph) -> nx.MultiGraph:
    units = int(flat.multiplicity.sum())
    cables = int(flat.cables.sum())
    if units > MAX_DEVICE_UNITS or cables > MAX_DEVICE_CABLES:
        raise DesignError(f"{units:,} devices and {cables:,} cables are too many for a device-level "
                          f"GraphML (at most {MAX_DEVICE_UNITS:,} and {MAX_DEVICE_CABLES:,}); "
                          "use --level block")
    ug = unit_graph(flat)
    names = unit_names(flat, ug.offsets)
    for g in range(len(flat.paths)):
        attrs = dict(catalog_id=flat.nodes[g].catalog_id, kind=str(flat.kind[g]), tier=_tier(flat, g),
                     group=flat.paths[g])
        graph.add_nodes_from(names[ug.offsets[g]:ug.offsets[g + 1]], **attrs)
    # one edge per (unit pair, bundle) with its cable count
    lo, hi = np.minimum(ug.src, ug.dst), np.maximum(ug.src, ug.dst)
    triples, counts = np.unique(np.stack([lo, hi, ug.edge_bundle.astype(np.int64)]), axis=1,
                                return_counts=True)
    kinds, media = flat.kind_names, flat.medium_names
    for (a, b, k), n in zip(triples.T.tolist(), counts.tolist()):
        graph.add_edge(names[a], names[b], kind=kinds[flat.kind_code[k]],
                       speed_gbit_s=float(flat.speed_gbit_s[k]), count=int(n),
                       medium=media[flat.medium_code[k]], length_m=float(flat.length_m[k]))
    return graph


def unit_names(flat: FlatDesign, offsets: np.ndarray) -> list[str]:
    """"<group path>#<unit number>" for every unit: "su/nodes#17" is the 18th server of the group
    over all instances of the scalable unit."""
    names: list[str] = []
    for g, path in enumerate(flat.paths):
        names += [f"{path}#{i}" for i in range(int(offsets[g + 1] - offsets[g]))]
    return names
