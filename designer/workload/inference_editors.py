"""The two small tables of the inference form: the request mix (a row per request class) and
the deployment's layout per phase (TP, PP, EP, DP, batch).

Both are grids of spin boxes without arrows, sized for the ~400 px Workload dock: a cell is as
wide as the numbers it usually holds, and the grid grows by rows, never by an inner scroll bar.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractSpinBox, QDoubleSpinBox, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QSpinBox, QToolButton, QVBoxLayout, QWidget)

from core.inference_workload import MAX_BATCH, MAX_REQUEST_CLASSES, MAX_TOKENS
from core.limits import MAX_ACCELERATORS
from designer.workload.model_fields import int_spin

PHASES = ("prefill", "decode")
LAYOUT_KEYS = (("tp", "TP", "Tensor parallel: GPUs one layer's weights are split over"),
               ("pp", "PP", "Pipeline parallel: stages of a replica"),
               ("ep", "EP", "Expert parallel: GPUs each MoE layer's routed experts are spread over "
                            "(must divide TP × DP)"),
               ("dp", "DP", "Data parallel: replicas side by side"),
               ("batch", "Batch", "Requests one replica has in flight (decode: concurrent sequences; "
                                  "disaggregated prefill: prompts per step)"))
SHARE_DECIMALS = 3  # core accepts shares summing to 1 within 1e-3


def _cell(spin: QAbstractSpinBox, digits: int) -> QAbstractSpinBox:
    """A table cell: no arrows (keys and the wheel still step), wide enough for ``digits``."""
    spin.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
    spin.setAlignment(Qt.AlignmentFlag.AlignRight)
    spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance("0" * digits) + 14)
    return spin


def _header(text: str, tip: str = "") -> QLabel:
    label = QLabel(text)
    label.setStyleSheet("color: #546e7a;")
    label.setToolTip(tip)
    return label


class RequestMixTable(QWidget):
    """Request classes: input tokens, output tokens and share of the requests; one row is a
    single request shape (its share is 1). Adding a row halves the last row's share, removing
    one gives its share to the row above, so the shares keep summing to 1."""

    edited = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self._grid = QGridLayout()
        column.addLayout(self._grid)
        self._grid.setHorizontalSpacing(4)
        self._grid.setVerticalSpacing(2)
        for col, (text, tip) in enumerate((("Input tokens", "Prompt length of this class"),
                                           ("Output tokens", "Answer length of this class"),
                                           ("Share", "Fraction of the requests in this class (the "
                                                     "shares sum to 1)"))):
            self._grid.addWidget(_header(text, tip), 0, col)
        self._grid.setColumnStretch(0, 1)
        self._grid.setColumnStretch(1, 1)
        self.rows: list[tuple[QSpinBox, QSpinBox, QDoubleSpinBox, QToolButton]] = []
        self.add_button = QPushButton("Add request class")
        self.add_button.setToolTip(f"A request mix holds up to {MAX_REQUEST_CLASSES} classes")
        self.add_button.clicked.connect(self.add_row)
        add_row = QHBoxLayout()
        add_row.addWidget(self.add_button)
        add_row.addStretch(1)
        column.addLayout(add_row)
        # never empty: a form not loaded from a workload yet still has one request shape, so
        # "Add request class" always has a class to copy (a serving preset's common shape)
        self.set_classes([(2048, 256, 1.0)])

    def set_classes(self, classes: list[tuple[int, int, float]]) -> None:
        while len(self.rows) > len(classes):
            self._drop_last_row()
        while len(self.rows) < len(classes):
            self._append_row()
        for (tokens_in, tokens_out, share), (spin_in, spin_out, spin_share, _) in zip(classes, self.rows):
            for spin, value in ((spin_in, tokens_in), (spin_out, tokens_out), (spin_share, share)):
                spin.blockSignals(True)
                spin.setValue(value)
                spin.blockSignals(False)
        self._refresh()

    def classes(self) -> list[tuple[int, int, float]]:
        return [(a.value(), b.value(), c.value()) for a, b, c, _ in self.rows]

    def add_row(self) -> None:
        if len(self.rows) >= MAX_REQUEST_CLASSES:
            return
        last_in, last_out, last_share = self.classes()[-1]
        self.rows[-1][2].setValue(last_share / 2)  # shares keep summing to 1
        self._append_row()
        for spin, value in zip(self.rows[-1], (last_in, last_out, last_share / 2)):
            spin.setValue(value)
        self._refresh()
        self.edited.emit()

    def remove_row(self, index: int) -> None:
        if len(self.rows) <= 1:
            return
        classes = self.classes()
        gone = classes.pop(index)
        keeper = max(0, index - 1)
        tokens_in, tokens_out, share = classes[keeper]
        classes[keeper] = (tokens_in, tokens_out, share + gone[2])
        self.set_classes(classes)
        self.edited.emit()

    def _append_row(self) -> None:
        row = len(self.rows) + 1
        spin_in, spin_out = (_cell(int_spin(1, MAX_TOKENS), 7) for _ in range(2))
        share = _cell(QDoubleSpinBox(), 5)
        share.setRange(0.0, 1.0)
        share.setDecimals(SHARE_DECIMALS)
        share.setSingleStep(0.05)
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip("Remove this request class (its share goes to the class above)")
        remove.clicked.connect(lambda _=False, spin=spin_in: self.remove_row(
            next(i for i, r in enumerate(self.rows) if r[0] is spin)))
        for col, widget in enumerate((spin_in, spin_out, share, remove)):
            if col < 3:
                widget.valueChanged.connect(self.edited)
            self._grid.addWidget(widget, row, col)
        self.rows.append((spin_in, spin_out, share, remove))

    def _drop_last_row(self) -> None:
        for widget in self.rows.pop():
            self._grid.removeWidget(widget)
            widget.hide()
            widget.deleteLater()

    def _refresh(self) -> None:
        """One class: its share is 1 and there is nothing to remove."""
        single = len(self.rows) == 1
        for _, _, share, remove in self.rows:
            share.setEnabled(not single)
            remove.setEnabled(not single)
        if single:
            self.rows[0][2].blockSignals(True)
            self.rows[0][2].setValue(1.0)
            self.rows[0][2].blockSignals(False)
        self.add_button.setEnabled(len(self.rows) < MAX_REQUEST_CLASSES)


class PhaseLayoutGrid(QWidget):
    """TP, PP, EP, DP and batch of each phase: one row ("Each replica") for an aggregated
    deployment, a prefill and a decode row for a disaggregated one."""

    edited = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        for col, (_, text, tip) in enumerate(LAYOUT_KEYS, start=1):
            grid.addWidget(_header(text, tip), 0, col)
            grid.setColumnStretch(col, 1)
        self.spins: dict[str, dict[str, QSpinBox]] = {}
        self.row_names: dict[str, QLabel] = {}
        for row, phase in enumerate(PHASES, start=1):
            self.row_names[phase] = _header(phase.capitalize())
            grid.addWidget(self.row_names[phase], row, 0)
            self.spins[phase] = {}
            for col, (key, _, tip) in enumerate(LAYOUT_KEYS, start=1):
                spin = _cell(int_spin(1, MAX_BATCH if key == "batch" else MAX_ACCELERATORS), 4)
                spin.setToolTip(tip)
                spin.valueChanged.connect(self.edited)
                grid.addWidget(spin, row, col)
                self.spins[phase][key] = spin
        self.set_disaggregated(False)

    def set_disaggregated(self, on: bool) -> None:
        """Show both phases (on) or one row for the replicas that do both (the decode row's)."""
        self.row_names["decode"].setText("Decode" if on else "Replica")
        self.row_names["prefill"].setVisible(on)
        for spin in self.spins["prefill"].values():
            spin.setVisible(on)

    def layout_of(self, phase: str) -> dict[str, int]:
        return {key: spin.value() for key, spin in self.spins[phase].items()}

    def set_layout(self, phase: str, values: dict[str, int]) -> None:
        for key, spin in self.spins[phase].items():
            spin.blockSignals(True)
            spin.setValue(int(values.get(key, 1)))
            spin.blockSignals(False)
