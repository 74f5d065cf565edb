"""What a catalog entry says about its physical links: media, fibre types, cages, fan-out.

The vocabulary core/optics.py matches link ends with, and the check of those catalog fields.
"""

from __future__ import annotations

from typing import Any

MEDIA = ("fiber", "copper")
# multimode (SR optics) or single-mode (DR/FR/LR); core/optics.py's preference order
FIBER_KINDS = ("multimode", "single-mode")


def media_problem(kind: str, values: dict[str, Any], compute_kinds: tuple[str, ...]) -> tuple[str, str] | None:
    """(field, message) of the first bad physical-link field of a catalog entry, or None."""
    if kind == "switch" and values["ports_per_cage"] < 1:
        return "ports_per_cage", "must be at least 1"
    if kind == "cable" and values["fanout"] < 1:
        return "fanout", "must be at least 1 (1 is a straight cable)"
    if kind in ("transceiver", "cable") and values["medium"] not in MEDIA:
        return "medium", f"must be one of {', '.join(MEDIA)}"
    if kind in ("transceiver", "cable") and values.get("fiber") not in (None, *FIBER_KINDS):
        return "fiber", f"must be one of {', '.join(FIBER_KINDS)}"
    if kind in compute_kinds and values.get("nic_ports_per_cage", 1) < 1:
        return "nic_ports_per_cage", "must be at least 1"
    return None
