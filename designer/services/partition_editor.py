"""Where a workload runs, as the Services tab edits it: the blocks selected on the canvas, a GPU
count, or (the main workload only) whatever GPUs the services leave; and the partition's name.

The editor only lays the choice out: ``partition()`` builds a core.services.Partition, whose
checks raise the one-line DesignError the tab shows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QGridLayout, QLabel, QLineEdit, QPushButton, QRadioButton,
                               QSpinBox, QWidget)

from core.limits import MAX_ACCELERATORS
from core.services import Partition

LEFT, BLOCKS, GPUS = "left", "blocks", "gpus"
SHOWN_PATHS = 3  # paths named on the blocks line; the rest are counted


def paths_text(paths: tuple[str, ...] | list[str]) -> str:
    """"su, serve" or "pod-1, pod-2, pod-3 and 5 more"."""
    shown = ", ".join(paths[:SHOWN_PATHS])
    return shown + (f" and {len(paths) - SHOWN_PATHS:,} more" if len(paths) > SHOWN_PATHS else "")


class PartitionEditor(QWidget):
    """Runs on: ( ) what the services leave  ( ) blocks [su, serve] [Use the selection]
    ( ) [ 64 ] GPUs; and an optional partition name (``named``)."""

    edited = Signal()

    def __init__(self, main: bool, named: bool = True, parent=None):
        super().__init__(parent)
        self._blocks: tuple[str, ...] = ()
        self._selection: list[str] = []
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        row = 0
        if main:
            self.buttons[LEFT] = QRadioButton("Every GPU the services leave")
            self.buttons[LEFT].setToolTip("The main workload takes the GPUs outside every service's partition")
            grid.addWidget(self.buttons[LEFT], row, 0, 1, 3)
            row += 1
        self.buttons[BLOCKS] = QRadioButton("Blocks")
        self.buttons[BLOCKS].setToolTip("Design paths (blocks or components; a repeated block is all its "
                                        "instances): select them on the canvas or in the outline")
        self.blocks_label = QLabel()
        self.blocks_label.setWordWrap(True)
        self.blocks_label.setStyleSheet("color: #37474f;")
        self.take = QPushButton("Use the selection")
        self.take.clicked.connect(self.use_selection)
        grid.addWidget(self.buttons[BLOCKS], row, 0)
        grid.addWidget(self.blocks_label, row, 1)
        grid.addWidget(self.take, row, 2)
        row += 1
        self.buttons[GPUS] = QRadioButton("GPUs")
        self.buttons[GPUS].setToolTip("A count of GPUs taken from those outside every block partition")
        self.gpus = QSpinBox()
        self.gpus.setRange(1, MAX_ACCELERATORS)
        self.gpus.setGroupSeparatorShown(True)
        self.gpus.setValue(8)
        self.gpus.valueChanged.connect(lambda _: self._choose(GPUS))
        self.gpus.setMinimumWidth(self.gpus.fontMetrics().horizontalAdvance("0,000,000") + 40)
        grid.addWidget(self.buttons[GPUS], row, 0)
        grid.addWidget(self.gpus, row, 1, Qt.AlignmentFlag.AlignLeft)
        row += 1
        grid.setColumnStretch(1, 1)
        for mode, button in self.buttons.items():
            self.group.addButton(button)
            button.toggled.connect(lambda on, m=mode: on and self.edited.emit())
        self.name = QLineEdit()
        self.name.setPlaceholderText("named after its workload")
        self.name.setToolTip("The partition's name in the panels and warnings (empty: the service's "
                             "name, or \"main\")")
        self.name.textEdited.connect(lambda _: self.edited.emit())
        if named:
            grid.addWidget(QLabel("Partition name"), row, 0)
            grid.addWidget(self.name, row, 1, 1, 2)
        self._show_blocks()
        self.set_selection([])
        self._choose(LEFT if main else GPUS)

    # --- state ---------------------------------------------------------------------------
    def mode(self) -> str:
        return next(mode for mode, button in self.buttons.items() if button.isChecked())

    def _choose(self, mode: str) -> None:
        self.buttons[mode].setChecked(True)

    def set_selection(self, paths: list[str]) -> None:
        """What is selected on the canvas now (design paths)."""
        self._selection = list(paths)
        self.take.setEnabled(bool(paths))
        self.take.setToolTip(f"Run on {paths_text(paths)}" if paths else
                             "Select blocks or components on the canvas (or in the outline) first")

    def use_selection(self) -> None:
        if self._selection:
            self._blocks = tuple(self._selection)
            self._show_blocks()
            self._choose(BLOCKS)
            self.edited.emit()

    def _show_blocks(self) -> None:
        self.blocks_label.setText(paths_text(self._blocks) if self._blocks else "none chosen")
        self.blocks_label.setToolTip("\n".join(self._blocks[:40]))

    def load(self, partition: Partition | None, default_gpus: int = 8) -> None:
        """Show ``partition`` (None: what the services leave, for the main workload; else blocks
        taken from the selection)."""
        self.blockSignals(True)
        try:
            self.name.setText(partition.name if partition is not None else "")
            self._blocks = partition.blocks if partition is not None else ()
            self._show_blocks()
            gpus = partition.gpus if partition is not None and partition.gpus is not None else default_gpus
            self.gpus.setValue(max(1, min(gpus, MAX_ACCELERATORS)))
            if partition is None:
                self._choose(LEFT if LEFT in self.buttons else BLOCKS)
            else:
                self._choose(GPUS if partition.gpus is not None else BLOCKS)
        finally:
            self.blockSignals(False)

    def partition(self) -> Partition | None:
        """The partition the editor shows (None: what the services leave). Raises DesignError
        (one line) for one core refuses: no blocks chosen, a bad name."""
        mode = self.mode()
        if mode == LEFT:
            return None
        name = self.name.text().strip()
        if mode == GPUS:
            return Partition(name, gpus=self.gpus.value())
        return Partition(name, blocks=self._blocks)
