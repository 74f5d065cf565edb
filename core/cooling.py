"""The cooling types a rack can have, and the catalog's older spelling of one of them.

A catalog system names its cooling (``"cooling"`` in resources/catalog/systems.json); a
design's component (``Node.cooling``) or block (``Block.cooling``, for every component inside
that sets none) may override it; the power analysis gives each type a
rack-kW limit and a PUE (core/analysis/power.py; sources in docs/reference/cooling.md).
No imports: the field rules, the catalog and the power analysis all read this table.
"""

from __future__ import annotations

# Air (room CRAH/CRAC), rear-door heat exchanger (air through a water coil on the rack door),
# cold-plate direct-to-chip liquid, immersion (single- or two-phase tank).
COOLING_TYPES = ("air", "rear-door", "cold-plate", "immersion")
# Catalogs and user catalogs written before the four types said "liquid" for cold-plate
# (every liquid-cooled system then in the catalog was direct-to-chip).
LEGACY_COOLING = {"liquid": "cold-plate"}
CATALOG_COOLING = COOLING_TYPES + tuple(LEGACY_COOLING)


def cooling_type(value: str) -> str:
    """One of ``COOLING_TYPES`` for a catalog or design value (``"liquid"`` is cold-plate)."""
    return LEGACY_COOLING.get(value, value)
