"""Edits of a design: each an ``Operation`` whose ``apply`` changes the design and returns its
inverse, so the GUI wraps them in undo commands and scripts batch them (``Macro``).

Operations never change a ``Node`` or a ``Link`` in place: they put a changed copy where it was
(see core/model.py on why ``Design.snapshot`` relies on it). Links are looked up and filtered
with ``map``/``compress`` over the block's list because a block drawn device by device owns
millions of them.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Any, Callable, Iterator

from core.design_fields import (BLOCK_RULES, LINK_RULES, NODE_RULES, check, check_fields, check_id,
                                show)
from core.errors import DesignError
from core.failure_paths import check_units_below, describe_target, units_in_design
from core.model import Block, Design, Link, Node


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


def _link_index(block: Block, link_id: str) -> int:
    """Position of link ``link_id`` in ``block.links`` (ids compared in C: list.index on the
    links themselves would compare whole dataclasses)."""
    try:
        return operator.indexOf(map(_LINK_ID, block.links), link_id)  # stops at the link
    except ValueError:
        raise DesignError(f"no link {link_id!r} in block {block.id!r}") from None


def _with_ends(link: Link, rewrite: Callable[[str], str]) -> Link:
    """``link`` with both ends passed through ``rewrite``: the same object when neither end
    changes, otherwise a changed copy (links are never changed in place)."""
    a, b = rewrite(link.a), rewrite(link.b)
    return link if (a, b) == (link.a, link.b) else dataclasses.replace(link, a=a, b=b)


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


class Operation:
    """A reversible edit. ``apply`` mutates the design and returns the inverse operation."""

    # Subclasses define ``block_path`` (the block whose content changes) and ``text`` (the
    # action's name for the Edit menu).
    change_kind = "structure"

    def apply(self, design: Design) -> "Operation":  # pragma: no cover - interface
        raise NotImplementedError


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
        index = _link_index(block, self.link_id)
        link = block.links.pop(index)
        return AddLink(self.block_path, link, index, restore=True)


# What SetProperty may change (ids and link ends change only through structural operations).
_NODE_FIELDS = {name: NODE_RULES[name] for name in
                ("count", "name", "x", "y", "tier", "catalog_id", "overrides", "cooling")}
_BLOCK_FIELDS = {name: BLOCK_RULES[name] for name in ("count", "name", "x", "y", "collapsed", "role", "cooling")}
_LINK_FIELDS = {name: LINK_RULES[name] for name in ("kind", "speed_gbit_s", "count", "length_m", "medium")}


def _item_block_path(path: str, link_id: str) -> str:
    """The block whose content an edit of the item at ``path`` changes: the item's own block,
    or for link ``link_id`` the block ``path`` that holds it."""
    if link_id:
        return path
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _put_fields(design: Design, path: str, link_id: str, target: Any, fields: dict[str, Any]) -> None:
    """Set ``fields`` on ``target``, the item at ``path`` (or link ``link_id`` of block
    ``path``): a block in place (a snapshot has its own blocks), a frozen node or link by
    replacing it in its block."""
    if isinstance(target, Block):
        for name, value in fields.items():
            setattr(target, name, value)
    elif link_id:
        owner = design.block(path)
        owner.links[_link_index(owner, link_id)] = dataclasses.replace(target, **fields)
    else:
        design.block(_item_block_path(path, "")).children[path.rsplit("/", 1)[-1]] = \
            dataclasses.replace(target, **fields)


@dataclass
class SetProperty(Operation):
    """Set a field of the node/block at ``path`` (or of link ``link_id`` in block ``path``)."""

    path: str
    name: str
    value: Any
    link_id: str = ""
    change_kind = "properties"

    block_path = property(lambda self: _item_block_path(self.path, self.link_id))

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"Set {self.name.replace('_', ' ')}"

    def apply(self, design: Design) -> Operation:
        if self.link_id:
            owner = design.block(self.path)
            index = _link_index(owner, self.link_id)
            target: Any = owner.links[index]
            allowed = _LINK_FIELDS
        else:
            target = design.resolve(self.path)
            allowed = _NODE_FIELDS if isinstance(target, Node) else _BLOCK_FIELDS
        if self.name not in allowed:
            raise DesignError(f"{self.name!r} cannot be set on this item")
        # the rules of core/design_fields.py, as for a built item and a loaded file
        value = check(allowed[self.name], self.value, self.name)
        old = getattr(target, self.name)
        value = copy.deepcopy(value) if isinstance(value, dict) else value
        _put_fields(design, self.path, self.link_id, target, {self.name: value})
        if self.name == "count" and value < old:
            try:  # fewer units than are failed or drained at or below the item
                check_units_below(design, self.path)
            except DesignError:
                _put_fields(design, self.path, self.link_id, target, {self.name: old})
                raise
        return SetProperty(self.path, self.name, old, self.link_id)


@dataclass
class SetOutOfService(Operation):
    """Set how many units of the component or block at ``path`` (or cables of link ``link_id``
    in block ``path``) are failed and drained, counted over every instance of the enclosing
    blocks (core/degrade.py): one undoable step for a Fail, Drain or Restore gesture."""

    path: str
    failed: int
    drained: int
    link_id: str = ""
    change_kind = "properties"

    block_path = property(lambda self: _item_block_path(self.path, self.link_id))

    @property
    def text(self) -> str:  # type: ignore[override]
        return "Restore" if not (self.failed or self.drained) else "Fail" if self.failed else "Drain"

    def apply(self, design: Design) -> Operation:
        where = describe_target(self.path, self.link_id)
        if not self.path and not self.link_id:
            raise DesignError("the design root cannot be failed or drained: pick a block or component in it")
        failed = check(NODE_RULES["failed"], self.failed, f"{where}: failed")
        drained = check(NODE_RULES["drained"], self.drained, f"{where}: drained")
        total = units_in_design(design, self.path, self.link_id)
        if failed + drained > total:
            raise DesignError(f"{where}: {failed} failed + {drained} drained but it has {total:,} in all")
        if self.link_id:
            owner = design.block(self.path)
            target: Any = owner.links[_link_index(owner, self.link_id)]
        else:
            target = design.resolve(self.path)
        inverse = SetOutOfService(self.path, target.failed, target.drained, self.link_id)
        _put_fields(design, self.path, self.link_id, target, {"failed": failed, "drained": drained})
        return inverse


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


def _swap(design: Design, name: str, value: Any) -> Any:
    """Set a design-level field (checked by the design's rules) and return its old value."""
    old = getattr(design, name)
    setattr(design, name, value)
    return old


@dataclass
class SetDesignName(Operation):
    """Rename the design (reports and exports are titled with its name)."""

    block_path = ""
    name: str
    change_kind = "properties"
    text = "Rename design"

    def apply(self, design: Design) -> Operation:
        return SetDesignName(_swap(design, "name", self.name))


@dataclass
class SetWorkload(Operation):
    block_path = ""
    workload: Any
    change_kind = "workload"
    text = "Change workload"

    def apply(self, design: Design) -> Operation:
        return SetWorkload(_swap(design, "workload", self.workload))


@dataclass
class SetWorkloadPartition(Operation):
    """Put the main workload on a partition (core/services.py), or on every GPU the services
    leave (None)."""

    block_path = ""
    partition: Any  # core.services.Partition | None
    change_kind = "workload"
    text = "Change workload partition"

    def apply(self, design: Design) -> Operation:
        return SetWorkloadPartition(_swap(design, "workload_partition", self.partition))


@dataclass
class SetServices(Operation):
    """Replace every service at once (a generator run, a pasted list)."""

    block_path = ""
    services: tuple  # of core.services.Service
    change_kind = "workload"
    text = "Change services"

    def apply(self, design: Design) -> Operation:
        return SetServices(_swap(design, "services", tuple(self.services)))


def _service_index(design: Design, name: str) -> int:
    for index, service in enumerate(design.services):
        if service.name == name:
            return index
    raise DesignError(f"no service {name!r} (services: {', '.join(s.name for s in design.services) or 'none'})")


@dataclass
class AddService(Operation):
    """Add an inference service, at ``index`` among the services (None: last)."""

    service: Any  # core.services.Service
    index: int | None = None
    block_path = ""
    change_kind = "workload"
    text = "Add service"

    def apply(self, design: Design) -> Operation:
        services = list(design.services)
        services.insert(len(services) if self.index is None else self.index, self.service)
        design.services = tuple(services)  # the design's rules refuse a name already taken
        return RemoveService(self.service.name)


@dataclass
class RemoveService(Operation):
    name: str
    block_path = ""
    change_kind = "workload"
    text = "Remove service"

    def apply(self, design: Design) -> Operation:
        index = _service_index(design, self.name)
        removed = _swap(design, "services", design.services[:index] + design.services[index + 1:])[index]
        return AddService(removed, index)


@dataclass
class ChangeService(Operation):
    """Replace service ``name`` in its place by ``service`` (which may rename it, move it to
    another partition or change its workload)."""

    name: str
    service: Any  # core.services.Service
    block_path = ""
    change_kind = "workload"
    text = "Change service"

    def apply(self, design: Design) -> Operation:
        index = _service_index(design, self.name)
        old = _swap(design, "services", design.services[:index] + (self.service,) + design.services[index + 1:])
        return ChangeService(self.service.name, old[index])


@dataclass
class SetAssumptions(Operation):
    block_path = ""
    assumptions: Any
    change_kind = "assumptions"
    text = "Change assumptions"

    def apply(self, design: Design) -> Operation:
        return SetAssumptions(_swap(design, "assumptions", self.assumptions))


@dataclass
class ReplaceRoot(Operation):
    """Swap the whole design content (a generator run is one undoable step)."""

    block_path = ""
    root: Block
    name: str
    metadata: dict[str, Any]
    text = "New from template"

    def apply(self, design: Design) -> Operation:
        old = ReplaceRoot(design.root, design.name, design.metadata)
        design.root, design.name, design.metadata = self.root, self.name, self.metadata
        return old


@dataclass
class Macro(Operation):
    """Several operations applied in order as one step; the inverse undoes them in reverse."""

    text: str
    operations: list[Operation]

    @property
    def change_kind(self) -> str:  # type: ignore[override]
        kinds = {op.change_kind for op in self.operations}
        return kinds.pop() if len(kinds) == 1 else "structure"

    @property
    def block_path(self) -> str:  # type: ignore[override]
        paths = {op.block_path for op in self.operations}
        return paths.pop() if len(paths) == 1 else ""

    def apply(self, design: Design) -> Operation:
        inverses: list[Operation] = []
        try:
            for op in self.operations:
                inverses.append(op.apply(design))
        except DesignError:
            for inverse in reversed(inverses):
                inverse.apply(design)
            raise
        return Macro(self.text, list(reversed(inverses)))
