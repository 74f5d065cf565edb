"""A design placed on its site without the other analyses: what the exports need."""

from __future__ import annotations

from core.assumptions import Assumptions
from core.catalog import Catalog, default_catalog
from core.flatten import flatten
from core.model import Design
from core.site.analysis import SiteResult, analyze_site
from core.topology import analyze_topology


def place(design: Design, catalog: Catalog | None = None):
    """(site, flattened design, unit graph) of ``design`` on its site."""
    catalog = catalog or default_catalog()
    assumptions = design.assumptions or Assumptions()
    flat = flatten(design, catalog)
    topology = analyze_topology(flat, assumptions.network)
    site: SiteResult = analyze_site(design, flat, topology.graph, design.site, assumptions.power)
    return site, flat, topology.graph
