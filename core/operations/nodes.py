"""Edits of a block's components and links: add, remove (one, or many in one pass), connect,
disconnect, move. A block drawn device by device owns millions of links, so links are found
and filtered with ``map``/``compress`` over the block's list."""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Iterator

from core.design_fields import LINK_RULES, check_fields, check_id, show
from core.errors import DesignError
from core.model import Block, Design, Link, Node
from core.operations.base import Macro, Operation, link_index
from core.operations.blocks import RestoreLayout


def _reaches(link: Link, rel: str) -> bool:
    """True when an end of ``link`` is the item at ``rel`` or lies inside it."""
    return any(end == rel or end.startswith(rel + "/") for end in (link.a, link.b))


def _touching(links: list[Link], rel: str) -> list[int]:
    """Indexes, ascending, of the links with an end at or inside the item at ``rel``. A block
    drawn device by device owns millions of links: the prefix test runs in C over the list
    (map, compress) and only its few hits are checked exactly."""
    starts_a = map(str.startswith, map(_END_A, links), repeat(rel))
    starts_b = map(str.startswith, map(_END_B, links), repeat(rel))
    hits = compress(range(len(links)), map(operator.or_, starts_a, starts_b))
    return [i for i in hits if _reaches(links[i], rel)]


_END_A, _END_B, _LINK_ID = operator.attrgetter("a"), operator.attrgetter("b"), operator.attrgetter("id")
_FIRST = operator.itemgetter(0)


def _validate_link(design: Design, block_path: str, link: Link) -> None:
    # the link may have been changed since it was built
    check_fields(link, LINK_RULES, lambda: f"link {show(link.id)}", sep=" field ")
    block = design.block(block_path)
    if link.a == link.b:
        raise DesignError(f"link {link.id}: both ends are {link.a!r}")
    for end in (link.a, link.b):
        target = design.resolve(f"{block_path}/{end}" if block_path else end)
        if not isinstance(target, Node):
            raise DesignError(f"link {link.id}: end {end!r} is a block; connect a component inside it")
    if link.id in map(_LINK_ID, block.links):
        raise DesignError(f"link id {link.id!r} already exists in this block")


@dataclass
class AddNode(Operation):
    block_path: str
    item: "Node | Block"
    index: int | None = None  # position among the block's children (undo restores the order)
    text = "Add component"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        check_id(self.item.id)
        if self.item.id in block.children:
            raise DesignError(f"{self.item.id!r} already exists in {block.label!r}")
        if isinstance(self.item, Node) and self.item.count < 1:
            raise DesignError(f"{self.item.id}: count must be at least 1")
        if self.index is None or self.index >= len(block.children):
            block.children[self.item.id] = self.item  # appended: no copy of a 100,000-child dict
        else:
            items = list(block.children.items())
            items.insert(self.index, (self.item.id, self.item))
            block.children = dict(items)
        return RemoveNode(self.block_path, self.item.id)


@dataclass
class RemoveNode(Operation):
    """Remove a child, with every link that reaches into it from its block or an ancestor.

    The inverse adds the child back at its index, then each link back at its index in its
    block's list, so undo restores the order of children and links exactly.
    """

    block_path: str
    item_id: str
    text = "Delete"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        if self.item_id not in block.children:
            raise DesignError(f"no {self.item_id!r} in {block.label!r}")
        index = list(block.children).index(self.item_id)
        restores: list[Operation] = []
        parts = self.block_path.split("/") if self.block_path else []
        for depth in range(len(parts) + 1):
            owner_path = "/".join(parts[:depth])
            owner = design.block(owner_path)
            rel = "/".join(parts[depth:] + [self.item_id])
            touching = _touching(owner.links, rel)
            if touching:
                # Ascending indices: re-inserting in this order rebuilds the original list.
                restores += [AddLink(owner_path, owner.links[i], i, restore=True) for i in touching]
                keep = [True] * len(owner.links)
                for i in touching:
                    keep[i] = False
                owner.links = list(compress(owner.links, keep))
        item = block.children.pop(self.item_id)
        inverse = AddNode(self.block_path, item, index)
        return Macro("Delete", [inverse, *restores]) if restores else inverse


@dataclass
class RemoveItems(Operation):
    """Remove several children of a block, and links of it, with every link that reaches into a
    removed child from the block or an ancestor: one pass over each list of links whatever the
    number of children (a Macro of RemoveNode passes over them once per child, which is
    quadratic in a block of 100,000 components and 1.5 million links). The inverse puts the
    block's children and the links of it and its ancestors back exactly as they were."""

    block_path: str
    item_ids: tuple[str, ...]
    link_ids: tuple[str, ...] = ()
    text = "Delete"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        removed = set(self.item_ids)
        missing = [item_id for item_id in self.item_ids if item_id not in block.children]
        if missing:
            raise DesignError(f"no {missing[0]!r} in {block.label!r}")
        unlinked = set(self.link_ids)
        absent = unlinked - set(map(_LINK_ID, block.links)) if unlinked else set()
        if absent:
            raise DesignError(f"no link {sorted(absent)[0]!r} in block {block.id!r}")
        inverse = RestoreLayout.record(design, self.block_path, self.text)
        parts = self.block_path.split("/") if self.block_path else []
        for depth in range(len(parts) + 1):
            owner = design.block("/".join(parts[:depth]))
            prefix = "".join(part + "/" for part in parts[depth:])  # from the owner to the block
            links = owner.links
            gone = map(operator.or_, _ends_in(map(_END_A, links), prefix, removed),
                       _ends_in(map(_END_B, links), prefix, removed))
            if depth == len(parts) and unlinked:
                gone = map(operator.or_, gone, map(unlinked.__contains__, map(_LINK_ID, links)))
            owner.links = list(compress(links, map(operator.not_, gone)))
        block.children = {key: child for key, child in block.children.items() if key not in removed}
        return inverse


def _ends_in(ends: Iterator[str], prefix: str, heads: set[str]) -> Iterator[bool]:
    """For each link end (a path from the links' owner): whether it lies below ``prefix`` in a
    child whose id is in ``heads``. All in C (map over str methods): the owner may hold
    millions of links."""
    ends = list(ends)
    below = map(str.startswith, ends, repeat(prefix))
    head = map(_FIRST, map(str.partition, map(str.removeprefix, ends, repeat(prefix)), repeat("/")))
    return map(operator.and_, below, map(heads.__contains__, head))


@dataclass
class AddLink(Operation):
    block_path: str
    link: Link
    index: int | None = None  # position in the block's link list (undo restores the order)
    # The undo of a removal: the link goes back as it was, unchecked. It was in the design in
    # this very state, perhaps loaded from a file with an id a new link may not have, and
    # refusing it would leave the undo half done.
    restore: bool = False
    change_kind = "links"
    text = "Connect"

    def apply(self, design: Design) -> Operation:
        if not self.restore:
            _validate_link(design, self.block_path, self.link)
        links = design.block(self.block_path).links
        links.insert(len(links) if self.index is None else self.index, self.link)
        return RemoveLink(self.block_path, self.link.id)


@dataclass
class RemoveLink(Operation):
    block_path: str
    link_id: str
    change_kind = "links"
    text = "Delete link"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        index = link_index(block, self.link_id)
        link = block.links.pop(index)
        return AddLink(self.block_path, link, index, restore=True)


@dataclass
class MoveItems(Operation):
    """Move several items of one block to new positions (a canvas drag is one of these)."""

    block_path: str
    positions: dict[str, tuple[float, float]]
    change_kind = "geometry"
    text = "Move"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        old: dict[str, tuple[float, float]] = {}
        for item_id, (x, y) in self.positions.items():
            item = block.children.get(item_id)
            if item is None:
                raise DesignError(f"no {item_id!r} in {block.label!r}")
            old[item_id] = (item.x, item.y)
            if isinstance(item, Block):
                item.x, item.y = float(x), float(y)  # a snapshot has its own blocks
            else:
                block.children[item_id] = dataclasses.replace(item, x=float(x), y=float(y))
        return MoveItems(self.block_path, old)
