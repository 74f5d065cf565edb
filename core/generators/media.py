"""What a generator checks before it lays out a fabric: that the servers' NIC cages and the
switch's cages have optics of one fibre type at the links' speed (core/optics.py), so it
refuses in one line a combination whose every server link would be OPTICS_MEDIUM_MISMATCH."""

from __future__ import annotations

from core.catalog import Catalog, ComponentSpec
from core.errors import GeneratorError
from core.generators.clos import NODE_LEAF_M
from core.optics import end_options, pick_fiber


def _offer(options) -> str:
    return " or ".join(f"{kind} ({o.module.id if o.module else 'co-packaged'})"
                       for kind, o in options.items())


def require_matching_optics(server: ComponentSpec, switch: ComponentSpec, gbit_s: float,
                            catalog: Catalog, scale_out: bool = True,
                            length_m: float = NODE_LEAF_M) -> None:
    """Raise when no module pair of one fibre type joins ``server`` (its NICs on a
    ``scale_out`` link, else its storage ports; a storage system) to ``switch`` at ``gbit_s``
    over ``length_m`` (a cage with no module at all is NO_TRANSCEIVER's business, a warning
    the evaluation gives)."""
    host = end_options(catalog, server, scale_out, gbit_s, length_m)
    leaf = end_options(catalog, switch, False, gbit_s, length_m)
    if host and leaf and pick_fiber(host, leaf) is None:
        ports = "NIC cages" if scale_out else "ports"
        raise GeneratorError(
            f"{server.id}'s {gbit_s:g}G {ports} take only {_offer(host)} optics in the "
            f"catalog but {switch.id}'s ports take only {_offer(leaf)}: no link joins them "
            f"(pick another switch, or add a module of the other fibre type to the catalog)")
