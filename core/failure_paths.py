"""Naming what is failed or drained: ``PATH[:N]`` as the CLI and the evaluation JSON write it.

``PATH`` is a component or block path as in the outline (``pod/spine``, ``pod``), or a link
bundle as ``BLOCK#LINK`` (``pod#l3``: link ``l3`` owned by block ``pod``; ``#l3`` for a link of
the top level). ``:N`` is how many units: of a component, its units over every instance of the
enclosing blocks (``pod/spine:4`` in a pod repeated 16 times with 4 spines each counts 4 of the
64 spines); of a block, its instances over every instance of the enclosing blocks (``pod:1``
is one pod); of a link, its cables over every instance of the owning block. Without ``:N``,
every unit the item has that is not in the other state. The units are taken from the first
instances (core/degrade.py says exactly how), so ``pod/spine:4`` takes the 4 spines of the
first pod and leaves the other 15 intact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import DesignError
from core.model import Block, Design

LINK_SEP = "#"
STATES = ("failed", "drained")
_TARGET = re.compile(r"(?P<path>[A-Za-z0-9_.\-/]*?)(?:#(?P<link>[A-Za-z0-9_.\-]+))?(?::(?P<n>[0-9]+))?")


@dataclass(frozen=True)
class Target:
    """An item that can be failed or drained: a component or block path, or a link of a block."""

    path: str
    link_id: str = ""

    def __str__(self) -> str:
        return describe_target(self.path, self.link_id)


def describe_target(path: str, link_id: str = "") -> str:
    """``path`` or ``path#link`` (the syntax ``parse_target`` reads)."""
    return f"{path}{LINK_SEP}{link_id}" if link_id else path


def parse_target(text: str) -> tuple[Target, int | None]:
    """``PATH[:N]`` -> (target, N or None for "all"); a malformed one is a one-line error."""
    match = _TARGET.fullmatch(text)
    if (match is None or (not match["path"] and not match["link"])
            or (match["path"] and any(not part for part in match["path"].split("/")))):
        raise DesignError(f"{text!r}: expected PATH[:N] (a component or block path such as pod/spine:4, "
                          f"or a link as BLOCK#LINK:N, #LINK:N at the top level)")
    return Target(match["path"], match["link"] or ""), None if match["n"] is None else int(match["n"])


def units_in_design(design: Design, path: str, link_id: str = "") -> int:
    """How many units the item has over every instance of its enclosing blocks: a component's
    units, a block's instances, a link's cables (what ``:N`` counts)."""
    instances = design.root.count
    item: object = design.root
    for part in path.split("/") if path else []:
        if not isinstance(item, Block) or part not in item.children:
            raise DesignError(f"{describe_target(path, link_id)}: no component or block at {path!r}")
        item = item.children[part]
        if isinstance(item, Block) or not link_id:
            instances *= item.count
    if link_id:
        if not isinstance(item, Block):
            raise DesignError(f"{describe_target(path, link_id)}: {path!r} is a component; a link belongs to a block")
        link = next((link for link in item.links if link.id == link_id), None)
        if link is None:
            raise DesignError(f"{describe_target(path, link_id)}: no link {link_id!r} in "
                              f"{'block ' + repr(path) if path else 'the top level'}")
        return instances * link.count
    return instances


def current_state(design: Design, target: Target) -> tuple[int, int]:
    """(failed, drained) of ``target``."""
    if target.link_id:
        link = design.block(target.path).link(target.link_id)
        return link.failed, link.drained
    item = design.resolve(target.path)
    return item.failed, item.drained


def check_units_below(design: Design, path: str) -> None:
    """A one-line DesignError when a count change at ``path`` leaves an item there or below it
    with more failed and drained units than it now has (restore them first)."""
    instances, item = 1, design.root
    parts = path.split("/") if path else []
    for part in parts[:-1]:
        instances *= item.count
        item = item.children[part]
    instances *= item.count if parts else 1
    item = item.children[parts[-1]] if parts else item
    stack = [(item, path, instances)]
    while stack:
        item, where, instances = stack.pop()
        total = instances * item.count
        if item.failed + item.drained > total:
            raise DesignError(f"{where or 'design root'}: {item.failed} failed + {item.drained} drained "
                              f"but it would have {total:,}; restore them first")
        if isinstance(item, Block):
            prefix = f"{where}/" if where else ""
            for link in item.links:
                if (link.failed or link.drained) and link.failed + link.drained > total * link.count:
                    raise DesignError(f"{describe_target(where, link.id)}: {link.failed} failed + "
                                      f"{link.drained} drained but it would have {total * link.count:,} "
                                      f"cables; restore them first")
            stack.extend((child, prefix + key, total) for key, child in item.children.items())
