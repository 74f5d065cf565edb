"""Undo commands: every GUI edit is one core Operation wrapped in one QUndoCommand."""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from core.model import Design
from core.operations import Operation


class OperationCommand(QUndoCommand):
    """Applies ``operation`` on redo and its inverse on undo.

    The document applies the operation *before* pushing (so a DesignError reaches the caller
    instead of vanishing inside Qt's virtual ``redo``); the first ``redo`` the stack calls on
    push is therefore skipped. Each undo/redo keeps the operation it gets back from ``apply``,
    which restores exactly (indices, removed links) what the previous step changed.
    """

    def __init__(self, design: Design, operation: Operation, inverse: Operation, text: str):
        super().__init__(text)
        self._design = design
        self._forward = operation
        self._inverse = inverse
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            return
        self._inverse = self._design.apply(self._forward)
        self._applied = True

    def undo(self) -> None:
        self._forward = self._design.apply(self._inverse)
        self._applied = False
