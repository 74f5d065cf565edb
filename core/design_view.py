"""The first stage of the pipeline: a design as the analyses see it.

``view_design`` flattens the design, derives its topology (switch tiers, GPU domains, the
FabricView) and counts its inventory; the whole design is placed on the floor first
(core/site), so the inventory buys cables and optics for the placed lengths unless the
project's site says "cable_lengths": "drawn". core/evaluate.py runs it on the whole design and on each
partition's cut-down one (core/partitions.py), which is not placed apart: it stands on the
design's floor.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.assumptions import Assumptions
from core.catalog import Catalog
from core.diagnostics import Diagnostic
from core.flatten import FlatDesign, flatten
from core.inventory import Inventory, build_inventory
from core.model import Design
from core.site.analysis import Placed, place_design
from core.site.bought import bought_at_placed_lengths
from core.topology import Topology, analyze_topology


@dataclass(frozen=True)
class DesignView:
    flat: FlatDesign
    topology: Topology
    inventory: Inventory
    inventory_warnings: tuple[Diagnostic, ...] = ()
    placed: Placed | None = None  # the floor plan (None: a partition's cut, not placed apart)


def view_design(design: Design, catalog: Catalog, assumptions: Assumptions,
                on_floor: bool = True) -> DesignView:
    """``design`` flattened, its topology and inventory (placed on the floor first when
    ``on_floor``)."""
    flat = flatten(design, catalog)
    topology = analyze_topology(flat, assumptions.network)
    placed = (place_design(design, flat, topology.graph, design.site, assumptions.power)
              if on_floor else None)
    inventory, warnings = build_inventory(_bought_for(flat, design, placed), topology.tiers)
    return DesignView(flat, topology, inventory, tuple(warnings), placed)


def design_gpus(design: Design, catalog: Catalog) -> int:
    """The GPUs of ``design``: its flattening only, no fabric (fitting a preset to a partition
    before the design is evaluated)."""
    return flatten(design, catalog).gpus


def placed_lengths(design: Design) -> bool:
    """Cost, power and reliability follow the placed lengths unless the site says "drawn"."""
    return design.site is None or design.site.placed_lengths


def _bought_for(flat: FlatDesign, design: Design, placed: Placed | None) -> FlatDesign:
    """The flattened design the inventory counts: every bundle split by the reach its placed
    runs need (core/site/bought.py), or as drawn when the site says "cable_lengths": "drawn"
    (or the design is a partition's cut, not placed apart)."""
    if placed is None or not placed_lengths(design):
        return flat
    return bought_at_placed_lengths(flat, placed.cables)
