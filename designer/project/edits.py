"""Builders of the core Operations behind canvas gestures (add, delete, group, paste...).

Pure functions of the design: the GUI pushes what they return through the document, so each
gesture is exactly one undo step.
"""

from __future__ import annotations

import copy
import dataclasses

from core.catalog import Catalog
from core.errors import DesignError
from core.model import Block, Design, Link, Node, unique_id, unique_link_id
from core.operations import (
    AddLink, AddNode, Group, Macro, Operation, RemoveItems, RemoveLink, RemoveNode, Ungroup,
)

PASTE_OFFSET = 40.0


def _free_id(taken: set[str], base: str) -> str:
    probe = Block("probe", children=dict.fromkeys(taken))  # type: ignore[arg-type]
    return unique_id(probe, base)


def add_component(design: Design, catalog: Catalog, block_path: str, catalog_id: str,
                  x: float, y: float) -> AddNode:
    spec = catalog.get(catalog_id)
    block = design.block(block_path)
    node_id = unique_id(block, catalog_id.lower())
    return AddNode(block_path, Node(node_id, spec.id, 1, "", float(x), float(y)))


def delete_items(block_path: str, item_ids: list[str], link_ids: list[str]) -> Operation:
    """One undo step deleting children and links of a block. One item: RemoveNode or RemoveLink;
    more: RemoveItems, one pass over the links however many (a warning's components revealed in
    a block of 100,000 can be thousands)."""
    if len(item_ids) + len(link_ids) == 1:
        return RemoveNode(block_path, item_ids[0]) if item_ids else RemoveLink(block_path, link_ids[0])
    return RemoveItems(block_path, tuple(item_ids), tuple(link_ids))


def group_items(design: Design, block_path: str, item_ids: list[str]) -> Group:
    block = design.block(block_path)
    new_id = unique_id(block, "group")
    return Group(block_path, tuple(item_ids), new_id, "Group")


def ungroup(block_path: str, block_id: str) -> Ungroup:
    return Ungroup(block_path, block_id)


def fragment(design: Design, block_path: str, item_ids: list[str]) -> Block:
    """A detached block holding copies of ``item_ids`` and the links among them (for copy)."""
    block = design.block(block_path)
    chosen = set(item_ids)
    out = Block("fragment")
    for item_id in block.children:
        if item_id in chosen:
            out.children[item_id] = copy.deepcopy(block.children[item_id])
    for link in block.links:
        if link.a.split("/", 1)[0] in chosen and link.b.split("/", 1)[0] in chosen:
            out.links.append(copy.deepcopy(link))
    return out


def paste(design: Design, block_path: str, frag: Block,
          at: tuple[float, float] | None = None) -> tuple[Operation, list[str]]:
    """Operations adding a copy of ``frag`` to ``block_path`` with fresh ids, internal links kept.

    ``at`` places the fragment's centre there; otherwise it lands offset from the original.
    """
    block = design.block(block_path)
    items = list(frag.children.values())
    if at is None:
        dx = dy = PASTE_OFFSET
    else:
        cx = sum(i.x for i in items) / len(items)
        cy = sum(i.y for i in items) / len(items)
        dx, dy = at[0] - cx, at[1] - cy
    taken = set(block.children)
    mapping: dict[str, str] = {}
    ops: list[Operation] = []
    for item in items:
        new_id = _free_id(taken, item.id)
        taken.add(new_id)
        mapping[item.id] = new_id
        clone = dataclasses.replace(copy.deepcopy(item), id=new_id, x=item.x + dx, y=item.y + dy)
        ops.append(AddNode(block_path, clone))
    # New link ids as unique_link_id names them ("link<n>"), with the block's ids gathered once
    # rather than once per pasted link.
    taken = {link.id for link in block.links}
    count = len(block.links)
    for link in frag.links:
        count += 1
        n = count
        while f"link{n}" in taken:
            n += 1
        taken.add(f"link{n}")
        ends = {}
        for attr in ("a", "b"):
            head, _, rest = getattr(link, attr).partition("/")
            ends[attr] = mapping[head] + ("/" + rest if rest else "")
        clone = dataclasses.replace(link, id=f"link{n}", **ends)
        ops.append(AddLink(block_path, clone))
    op: Operation = ops[0] if len(ops) == 1 else Macro("Paste", ops)
    return op, [mapping[i.id] for i in items]


def new_link(design: Design, block_path: str, link: Link) -> AddLink:
    block = design.block(block_path)
    return AddLink(block_path, dataclasses.replace(link, id=unique_link_id(block)))


def link_end_choices(design: Design, block_path: str) -> list[str]:
    """Paths, relative to block ``block_path``, of every component a link it owns can end at
    (``"su/leaf"``: the component ``leaf`` inside the child block ``su``)."""
    return [path for path, _node in design.block(block_path).iter_nodes()]


def move_link_end(design: Design, block_path: str, link_id: str, end: str, path: str) -> Operation | None:
    """One undo step that reconnects end ``end`` ("a" or "b") of link ``link_id`` (owned by block
    ``block_path``) to the component at ``path`` (relative to that block): a Macro of RemoveLink and
    AddLink of a copy with the same id and properties. None when the end is already there.

    Raises DesignError with a one-line message, and changes nothing, when ``path`` is not a
    component inside the block or is the link's other end.
    """
    if end not in ("a", "b"):
        raise DesignError(f"a link end is 'a' or 'b', not {end!r}")
    link = design.block(block_path).link(link_id)
    path = path.strip().strip("/")
    if path == getattr(link, end):
        return None
    where = f"block {block_path!r}" if block_path else "the design root"
    if not path:
        raise DesignError(f"link {link_id}: choose a component for this end")
    if path not in link_end_choices(design, block_path):
        try:
            target = design.resolve(f"{block_path}/{path}" if block_path else path)
        except DesignError:
            target = None
        if isinstance(target, Block):
            raise DesignError(f"link {link_id}: {path!r} is a block; choose a component inside it")
        raise DesignError(f"link {link_id}: no component {path!r} in {where}")
    other = link.b if end == "a" else link.a
    if path == other:
        raise DesignError(f"link {link_id}: both ends would be {path!r}")
    moved = dataclasses.replace(link, **{end: path})
    index = design.block(block_path).links.index(link)
    return Macro(f"Reconnect link {link_id}",
                 [RemoveLink(block_path, link_id), AddLink(block_path, moved, index)])
