"""Designs the NetBox and Nautobot interop tests share."""

from core.model import Block, Design, Link, Node


def tiny_two_tier() -> Design:
    """Two scalable units of two DGX H100 and two leaves (copper, 3 m) under two spines (fiber,
    30 m): 10 devices and 48 cables, small enough for a test server to take in seconds."""
    su = Block(id="su", name="Scalable unit", count=2, role="su",
               children={"nodes": Node("nodes", "DGX-H100", count=2),
                         "leaf": Node("leaf", "QM9700", count=2, tier="leaf")},
               links=[Link("l1", "nodes", "leaf", speed_gbit_s=400.0, count=16, length_m=3.0, medium="copper")])
    root = Block(id="root", name="Tiny two-tier",
                 children={"su": su, "spine": Node("spine", "QM9700", count=2, tier="spine")},
                 links=[Link("l1", "su/leaf", "spine", speed_gbit_s=400.0, count=16, length_m=30.0)])
    return Design("Tiny two-tier", root)
