"""Designs valid by construction (issue 22): port accounting that knows a NIC port split into
planes, optics and cable media that match at both ends, defaults that follow the hardware, and
every generator combination either evaluating without an error or refused in one line."""

from __future__ import annotations

from core.catalog import default_catalog
from core.evaluate import evaluate
from core.generators import FatTreeOptions, generate_fat_tree

CATALOG = default_catalog()


def _errors(design, catalog=CATALOG) -> dict[str, str]:
    return {w.code: w.message for w in evaluate(design, catalog).warnings
            if w.severity == "error"}


def test_a_split_nic_port_is_one_port_on_several_planes():
    """DGX B300: 8 ConnectX-8, one 800G port each (1 x 800G / 2 x 400G / 4 x 200G). On 4 planes
    each port runs 4 x 200G: 32 links per server on its 8 ports, not 32 ports (the README's
    131,072-GPU B300 design on four Tomahawk 6 planes, scaled down)."""
    for planes in (2, 4):
        design = generate_fat_tree(FatTreeOptions(gpus=512, server="DGX-B300", switch="TH6",
                                                  planes=planes), CATALOG)
        assert "NODE_PORTS_EXCEEDED" not in _errors(design)


def test_more_links_than_split_ports_still_exceed():
    """Splitting counts a port once, never hides a real excess: 9 ports' worth of 200G links
    (36) on a DGX B300's 8 ConnectX-8 ports is still too many."""
    from core.model import Block, Design, Link, Node
    root = Block("root", "over")
    root.children["n"] = Node("n", "DGX-B300", 1, "node", x=0, y=0)
    root.children["s"] = Node("s", "TH6", 1, "switch", x=0, y=100, tier="leaf")
    root.links.append(Link("l", "n", "s", "scale-out", 200.0, 36, 10.0))
    message = _errors(Design("over", root))["NODE_PORTS_EXCEEDED"]
    assert "36 scale-out links per unit take 9 ports" in message and "only 8" in message


def test_a_super_nodes_default_switch_runs_at_its_nic_speed():
    """`generate supernode --system GB300-NVL72` without --switch: its 800G ConnectX-8 go on
    800G Q3400 (QM9700 has no 800G ports and was refused); a 400G GB200 NVL72 keeps QM9700."""
    from core.generators import SupernodeOptions, generate_supernode
    from core.generators.supernode import default_switch
    assert default_switch(CATALOG.get("GB300-NVL72"), CATALOG) == "Q3400"
    assert default_switch(CATALOG.get("GB200-NVL72"), CATALOG) == "QM9700"
    for system in ("GB300-NVL72", "GB200-NVL72", "VR-NVL144", "CloudMatrix384"):
        design = generate_supernode(SupernodeOptions(system=system, count=4), CATALOG)
        assert not _errors(design), system
