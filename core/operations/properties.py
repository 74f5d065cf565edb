"""Edits of one item's fields: a property of a component, block or link (checked by the
model's own rules), and how many of its units are failed or drained."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from core.design_fields import BLOCK_RULES, LINK_RULES, NODE_RULES, check
from core.errors import DesignError
from core.failure_paths import check_units_below, describe_target, units_in_design
from core.model import Block, Design, Node
from core.operations.base import Operation, link_index


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
        owner.links[link_index(owner, link_id)] = dataclasses.replace(target, **fields)
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
            index = link_index(owner, self.link_id)
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
            target: Any = owner.links[link_index(owner, self.link_id)]
        else:
            target = design.resolve(self.path)
        inverse = SetOutOfService(self.path, target.failed, target.drained, self.link_id)
        _put_fields(design, self.path, self.link_id, target, {"failed": failed, "drained": drained})
        return inverse
