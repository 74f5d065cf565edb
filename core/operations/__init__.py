"""Edits of a design: each an ``Operation`` whose ``apply`` changes the design and returns its
inverse, so the GUI wraps them in undo commands and scripts batch them (``Macro``).

Operations never change a ``Node`` or a ``Link`` in place: they put a changed copy where it was
(see core/model.py on why ``Design.snapshot`` relies on it). Links are looked up and filtered
with ``map``/``compress`` over the block's list because a block drawn device by device owns
millions of them.

By job: ``nodes`` (components and links), ``blocks`` (group, ungroup, restore a layout),
``properties`` (an item's fields, failed and drained units), ``design_level`` (name, workload,
services, assumptions, whole content); ``base`` holds ``Operation`` and ``Macro``.
"""

from core.operations.base import Macro, Operation
from core.operations.blocks import Group, RestoreLayout, Ungroup, rewrite_outer_links
from core.operations.design_level import (AddService, ChangeService, RemoveService, ReplaceRoot,
                                          SetAssumptions, SetDesignName, SetServices, SetWorkload,
                                          SetWorkloadPartition)
from core.operations.nodes import AddLink, AddNode, MoveItems, RemoveItems, RemoveLink, RemoveNode
from core.operations.properties import SetOutOfService, SetProperty

__all__ = [
    "Operation", "Macro",
    "AddNode", "RemoveNode", "RemoveItems", "AddLink", "RemoveLink", "MoveItems",
    "Group", "Ungroup", "RestoreLayout", "rewrite_outer_links",
    "SetProperty", "SetOutOfService",
    "SetDesignName", "SetWorkload", "SetWorkloadPartition", "SetServices", "AddService",
    "RemoveService", "ChangeService", "SetAssumptions", "ReplaceRoot",
]
