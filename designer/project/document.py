"""The open project: the design (single source of truth), its undo stack and its file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from core.model import Block, Change, Design
from core.operations import Operation
from designer.project.commands import OperationCommand


UNTITLED = "Untitled"


def empty_design() -> Design:
    return Design(UNTITLED, Block("root", UNTITLED))


class DesignDocument(QObject):
    """Routes every edit through the undo stack and re-broadcasts model changes as a signal.

    ``reset`` swaps in another design (New/Open); views listen to ``replaced`` to rebuild and
    to ``changed`` for incremental updates. ``path`` is the file that Save writes; a design
    without one is untitled, and ``copy_of`` names the file it was copied from (the bundled
    example), which is never written.
    """

    changed = Signal(object)   # core.model.Change
    replaced = Signal()
    path_changed = Signal()

    def __init__(self, design: Design | None = None, path: Path | None = None, parent=None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.design = design or empty_design()
        self.path = path
        self.copy_of: Path | None = None
        self.design.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        self.changed.emit(change)

    def reset(self, design: Design, path: Path | None, copy_of: Path | None = None) -> None:
        self.design.unsubscribe(self._on_change)
        self.undo_stack.clear()
        self.design = design
        self.path = path
        self.copy_of = copy_of
        design.subscribe(self._on_change)
        self.undo_stack.setClean()
        self.replaced.emit()
        self.path_changed.emit()

    def set_path(self, path: Path | None) -> None:
        self.path = path
        self.path_changed.emit()

    def push(self, operation: Operation, text: str | None = None) -> None:
        """Apply ``operation`` as one undo step. Raises core.errors.DesignError if it is invalid
        (the design is then unchanged)."""
        inverse = self.design.apply(operation)
        label = text or getattr(operation, "text", "Edit")
        self.undo_stack.push(OperationCommand(self.design, operation, inverse, label))

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    @property
    def title(self) -> str:
        if self.path:
            return self.path.name
        name = self.design.name or UNTITLED
        return f"Copy of {name}" if self.copy_of else name
