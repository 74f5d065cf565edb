"""The floor plan's edit: the design's site replaced as one reversible operation (a rack moved in
the Floor view is one undo step). core/operations.py holds the design's other edits."""

from __future__ import annotations

from dataclasses import dataclass

from core.model import Design
from core.operations import Operation
from core.site_spec import SiteSpec, with_move


@dataclass
class SetSite(Operation):
    """Replace the design's site (None: placed automatically again)."""

    site: SiteSpec | None
    block_path = ""
    change_kind = "site"
    text = "Change floor plan"

    def apply(self, design: Design) -> Operation:
        old = design.site
        design.site = self.site
        return SetSite(old)


def move_rack(design: Design, rack: int, row: int, slot: int) -> SetSite:
    """The operation that moves rack ``rack`` (numbered from 1) to (row, slot), from 1."""
    op = SetSite(with_move(design.site or SiteSpec(), rack, row, slot))
    op.text = f"Move rack {rack}"
    return op
