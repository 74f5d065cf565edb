"""Edits of a block's layout: group items into a new block, dissolve a block into its parent,
and put a recorded layout back (the exact inverse of both)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from core.design_fields import check_id
from core.errors import DesignError
from core.model import Block, Design, Link, Node
from core.operations.base import Operation


def _with_ends(link: Link, rewrite: Callable[[str], str]) -> Link:
    """``link`` with both ends passed through ``rewrite``: the same object when neither end
    changes, otherwise a changed copy (links are never changed in place)."""
    a, b = rewrite(link.a), rewrite(link.b)
    return link if (a, b) == (link.a, link.b) else dataclasses.replace(link, a=a, b=b)


@dataclass
class RestoreLayout(Operation):
    """Put a block's children, and the link lists of the block and of each of its ancestors,
    back as recorded: the exact inverse of a Group or an Ungroup (children and links in their
    order, a dissolved block with its own name, position, role and link ids). Links are never
    changed in place, so the recorded lists hold them exactly as they were. Its own inverse
    records the layout it replaces, so undo and redo alternate between two exact states."""

    block_path: str
    children: tuple[tuple[str, "Node | Block"], ...]
    links: tuple[tuple[str, tuple[Link, ...]], ...]  # (owner block path, its links), block first
    text: str = "Restore layout"

    @staticmethod
    def record(design: Design, block_path: str, text: str) -> "RestoreLayout":
        """The children of block ``block_path`` and the links of it and of its ancestors (the
        links a Group or an Ungroup there may rewrite)."""
        block = design.block(block_path)
        parts = block_path.split("/") if block_path else []
        owners = [block_path] + ["/".join(parts[:depth]) for depth in range(len(parts))]
        return RestoreLayout(block_path, tuple(block.children.items()),
                             tuple((owner, tuple(design.block(owner).links)) for owner in owners), text)

    def apply(self, design: Design) -> Operation:
        inverse = RestoreLayout.record(design, self.block_path, self.text)
        design.block(self.block_path).children = dict(self.children)
        for owner, links in self.links:
            design.block(owner).links = list(links)
        return inverse


@dataclass
class Group(Operation):
    """Move ``item_ids`` of a block into a new child block ``new_id``.

    Links among the grouped items move inside the new block; links between a grouped item and
    the rest of the block get their endpoint prefixed with the new block's id, so the wiring
    and every metric stay the same. The new block takes the place of the first grouped item.
    """

    block_path: str
    item_ids: tuple[str, ...]
    new_id: str
    name: str = ""
    text = "Group"

    def apply(self, design: Design) -> Operation:
        check_id(self.new_id)
        block = design.block(self.block_path)
        if not self.item_ids:
            raise DesignError("nothing to group")
        if self.new_id in block.children and self.new_id not in self.item_ids:
            raise DesignError(f"{self.new_id!r} already exists")
        members = set(self.item_ids)
        for item_id in members:
            if item_id not in block.children:
                raise DesignError(f"no {item_id!r} in {block.label!r}")
        inverse = RestoreLayout.record(design, self.block_path, "Ungroup")
        order = list(block.children)
        xs = [block.children[i].x for i in self.item_ids]
        ys = [block.children[i].y for i in self.item_ids]
        new = Block(self.new_id, self.name, x=sum(xs) / len(xs), y=sum(ys) / len(ys))
        for item_id in order:
            if item_id in members:
                new.children[item_id] = block.children[item_id]
        remaining: dict[str, Node | Block] = {}
        inserted = False
        for item_id in order:
            if item_id in members:
                if not inserted:
                    remaining[self.new_id] = new
                    inserted = True
                continue
            remaining[item_id] = block.children[item_id]
        block.children = remaining

        def into_group(end: str) -> str:
            return f"{self.new_id}/{end}" if end.split("/", 1)[0] in members else end

        kept: list[Link] = []
        for link in block.links:
            if link.a.split("/", 1)[0] in members and link.b.split("/", 1)[0] in members:
                new.links.append(link)
            else:
                kept.append(_with_ends(link, into_group))
        block.links = kept
        rewrite_outer_links(design, self.block_path, self.new_id, members, add=True)
        return inverse


def rewrite_outer_links(design: Design, block_path: str, group_id: str, members: set[str], add: bool) -> None:
    """Fix endpoints of links owned by ancestors of ``block_path`` after (un)grouping (each
    owner gets a new list, with changed copies of the links whose ends move)."""
    parts = block_path.split("/") if block_path else []
    for depth in range(len(parts)):
        owner = design.block("/".join(parts[:depth]))
        prefix = "/".join(parts[depth:]) + "/"

        def rewrite(end: str) -> str:
            if not end.startswith(prefix):
                return end
            rest = end[len(prefix):]
            first = rest.split("/", 1)[0]
            if add and first in members:
                return f"{prefix}{group_id}/{rest}"
            if not add and first == group_id:
                return f"{prefix}{rest.split('/', 1)[1]}"
            return end

        owner.links = [_with_ends(link, rewrite) for link in owner.links]


@dataclass
class Ungroup(Operation):
    """Dissolve child block ``block_id`` (count 1 only) into its parent.

    Its children take its place; its links join the parent's (renamed when an id is taken).
    """

    block_path: str
    block_id: str
    text = "Ungroup"

    def apply(self, design: Design) -> Operation:
        block = design.block(self.block_path)
        inner = block.children.get(self.block_id)
        if not isinstance(inner, Block):
            raise DesignError(f"{self.block_id!r} is not a block")
        if inner.count != 1:
            raise DesignError(
                f"cannot ungroup {inner.label!r}: it is repeated ×{inner.count}; set its count to 1 first"
            )
        clash = set(inner.children) & (set(block.children) - {self.block_id})
        if clash:
            raise DesignError(f"cannot ungroup: {sorted(clash)[0]!r} already exists outside")
        inverse = RestoreLayout.record(design, self.block_path, "Group")
        members = tuple(inner.children)
        items: dict[str, Node | Block] = {}
        for item_id, item in block.children.items():
            if item_id == self.block_id:
                items.update(inner.children)
            else:
                items[item_id] = item
        block.children = items
        prefix = self.block_id + "/"

        def out_of_block(end: str) -> str:
            return end[len(prefix):] if end.startswith(prefix) else end

        links = [_with_ends(link, out_of_block) for link in block.links]
        taken = {link.id for link in links}
        for link in inner.links:
            if link.id in taken:
                # As unique_link_id(block) would name it, without a set of every id per link.
                n = len(links) + 1
                while f"link{n}" in taken:
                    n += 1
                link = dataclasses.replace(link, id=f"link{n}")
            links.append(link)
            taken.add(link.id)
        block.links = links
        rewrite_outer_links(design, self.block_path, self.block_id, set(members), add=False)
        return inverse
