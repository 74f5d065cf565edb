"""The reversible edit every operation is, ``Macro`` (several as one step), and the link
lookup edits of every kind share."""

from __future__ import annotations

import operator
from dataclasses import dataclass

from core.errors import DesignError
from core.model import Block, Design

_LINK_ID = operator.attrgetter("id")


class Operation:
    """A reversible edit. ``apply`` mutates the design and returns the inverse operation."""

    # Subclasses define ``block_path`` (the block whose content changes) and ``text`` (the
    # action's name for the Edit menu).
    change_kind = "structure"

    def apply(self, design: Design) -> "Operation":  # pragma: no cover - interface
        raise NotImplementedError


def link_index(block: Block, link_id: str) -> int:
    """Position of link ``link_id`` in ``block.links`` (ids compared in C: list.index on the
    links themselves would compare whole dataclasses)."""
    try:
        return operator.indexOf(map(_LINK_ID, block.links), link_id)  # stops at the link
    except ValueError:
        raise DesignError(f"no link {link_id!r} in block {block.id!r}") from None


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
