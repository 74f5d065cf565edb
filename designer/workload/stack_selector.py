"""The Workload tab's "Software stack" selector: the presets of core/stacks.py in a combo box.

Choosing a preset replaces the project's performance assumptions with the preset's (one undo
step, the SetAssumptions operation the Assumptions tab uses too), so the metric panels
re-evaluate. When the assumptions were edited after the choice, the box shows
"custom (based on X)" as an extra entry (X the preset's id); choosing X again puts its values back.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from core.assumptions import Assumptions
from core.operations import SetAssumptions
from core.stacks import PRESETS, stack_status, with_stack
from designer.project.document import DesignDocument

CUSTOM_DATA = "custom"


class StackSelector(QComboBox):
    def __init__(self, document: DesignDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for preset in PRESETS.values():
            self.addItem(preset.name, preset.id)
            self.setItemData(self.count() - 1, _tooltip(preset), Qt.ItemDataRole.ToolTipRole)
        self.activated.connect(self._chosen)
        document.changed.connect(self._design_changed)
        document.replaced.connect(self.refresh)
        self.refresh()

    def _design_changed(self, change) -> None:
        if change.kind == "assumptions":
            self.refresh()

    def refresh(self) -> None:
        """Show the design's stack; add the custom entry only while the values differ from it."""
        assumptions = self.document.design.assumptions
        status = stack_status(assumptions.performance if assumptions is not None else None)
        custom = self.findData(CUSTOM_DATA)
        if status.custom:
            if custom < 0:
                self.addItem("", CUSTOM_DATA)
                custom = self.count() - 1
            # The id, shorter than the name: the tab is narrow (the tooltip has the name).
            self.setItemText(custom, f"custom (based on {status.preset.id})")
            self.setCurrentIndex(custom)
        else:
            if custom >= 0:
                self.removeItem(custom)
            self.setCurrentIndex(self.findData(status.preset.id))
        self.setToolTip(_tooltip(status.preset) if not status.custom else
                        f"<p>{escape(status.label)}: performance assumptions edited in the "
                        "Assumptions tab</p>")

    def choose(self, stack_id: str) -> None:
        """Select preset ``stack_id`` as the user would."""
        index = self.findData(stack_id)
        self.setCurrentIndex(index)
        self._chosen(index)

    def _chosen(self, index: int) -> None:
        stack_id = self.itemData(index)
        if stack_id == CUSTOM_DATA:
            return
        current = self.document.design.assumptions or Assumptions()
        chosen = with_stack(current, stack_id)
        if chosen != current:
            self.document.push(SetAssumptions(chosen), f"Software stack {PRESETS[stack_id].name}")
        self.refresh()


def _tooltip(preset) -> str:
    """Rich text, so that Qt wraps the long description."""
    rows = preset.checked_against_text
    return f"<p>{escape(preset.description)}</p><p>Checked against validation rows: {rows}</p>"
