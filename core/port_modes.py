"""Port modes: what one switch (or NIC) port carries at a given link speed.

A port of native speed S runs one link of S, one slower link (a downshift), or k links of S/k
(a k-way breakout) where the catalog's ``ports_by_gbit_s`` lists that mode: k is the ports at
S/k over the ports at S. SN5600 lists 64 x 800G, 128 x 400G and 256 x 200G, so its 400G links
are a 2x and its 200G links a 4x breakout of the 800G ports; QM9700 lists 64 x 400G and
128 x 200G, so a 200G link is half of a 400G port. A breakout link uses the native port's
module at the switch end (one twin-port OSFP then serves 2k links) and a splitter cable that
fans one port out to k ends.
"""

from __future__ import annotations

from core.catalog import ComponentSpec
from core.errors import DesignError


def links_per_port(spec: ComponentSpec, gbit_s: float) -> int:
    """Links of ``gbit_s`` one native port of ``spec`` carries: k >= 2 for a k-way breakout, 1
    at the native speed or a downshift, 0 where the catalog lists no ``gbit_s`` mode."""
    at_speed = spec.port_count_at(gbit_s)
    native = spec.port_count_at(spec.native_port_gbit_s) if at_speed else 0
    if not native:
        return 0
    return max(1, at_speed // native)


def breakout_words(gbit_s: float, links_per_native_port: int, native_gbit_s: float) -> str:
    """How a user reads a breakout link: "400G via 2x breakout of 800G ports"."""
    return f"{gbit_s:g}G via {links_per_native_port}x breakout of {native_gbit_s:g}G ports"


def link_breakout(design, block_path: str, link, catalog) -> str | None:
    """How the link ``link`` of the block at ``block_path`` meets a switch's ports when it is a
    breakout there ("400G via 2x breakout of 800G ports at su/leaf"), else None. Derived from
    the catalog, so drawn and generated links read alike and the project file needs no field."""
    prefix = f"{block_path}/" if block_path else ""
    words = []
    for end in (link.a, link.b):
        try:
            node = design.node(prefix + end)
        except DesignError:
            continue  # an end that names a block: no port to read
        if node.catalog_id not in catalog:
            continue
        spec = catalog.get(node.catalog_id)
        if spec.kind != "switch":
            continue
        k = links_per_port(spec, link.speed_gbit_s)
        if k >= 2:
            words.append(f"{breakout_words(link.speed_gbit_s, k, spec.native_port_gbit_s)} "
                         f"at {end}")
    return "; ".join(words) or None
