"""The cost method's assumptions, editable where the cost is read: facility (build or
colocation), the lives of the parts, the WACC, utilisation and the two facility prices.

Each edit goes through the Assumptions tab's own path (``AssumptionsPanel.set_text``: core's
validation, one undo step, the one-line message on a bad value), so the two places can never
disagree; the fields show the evaluated assumptions after every evaluation (an undo too)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit, QWidget

from core.analysis.cost import CostAssumptions
from designer.assumptions.assumption_fields import format_value, section_fields
from designer.common.style import tinted

# The fields shown, in order (names of core.analysis.cost.CostAssumptions).
FIELDS = ("facility", "utilization", "depreciation_years", "network_depreciation_years",
          "facility_shell_depreciation_years", "facility_plant_depreciation_years", "wacc",
          "facility_usd_per_mw", "colocation_usd_per_kw_month")
EDITOR_WIDTH = 96


class CostMethodEditor(QWidget):
    """A compact grid of the method's fields; ``edit(key, text)`` commits one ("cost.wacc")
    and returns whether it was accepted."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.edit: Callable[[str, str], bool] | None = None
        infos = {info.name: info for info in section_fields("cost")}
        self.infos = [infos[name] for name in FIELDS]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(0, 1)
        title = tinted(QLabel("Method (edit here or in Assumptions → Cost)"), "#37474f", bold=True)
        title.setContentsMargins(0, 6, 0, 0)
        grid.addWidget(title, 0, 0, 1, 3)
        self.editors: dict[str, QWidget] = {}
        for row, info in enumerate(self.infos, start=1):
            name = tinted(QLabel(info.label), "#546e7a")
            name.setToolTip(info.meaning)
            if info.choices:
                editor = QComboBox()
                editor.addItems(list(info.choices))
                editor.activated.connect(lambda _i, key=info.key, e=editor: self._commit(key, e.currentText()))
            else:
                editor = QLineEdit()
                editor.setAlignment(Qt.AlignmentFlag.AlignRight)
                editor.editingFinished.connect(lambda key=info.key, e=editor: self._commit(key, e.text()))
            editor.setFixedWidth(EDITOR_WIDTH)
            editor.setToolTip(info.meaning)
            unit = tinted(QLabel(info.unit or ("fraction" if info.fraction else "")), "#607d8b")
            grid.addWidget(name, row, 0)
            grid.addWidget(editor, row, 1)
            grid.addWidget(unit, row, 2)
            self.editors[info.key] = editor
        self.show_assumptions(CostAssumptions())

    def _commit(self, key: str, text: str) -> None:
        if self.edit is not None and not self.edit(key, text):
            self.show_assumptions(self._shown, force=True)  # refused: back to the model's value

    def show_assumptions(self, assumptions: CostAssumptions, force: bool = False) -> None:
        """Show ``assumptions`` (a field being typed in keeps its text unless ``force``)."""
        self._shown = assumptions
        for info in self.infos:
            editor = self.editors[info.key]
            text = format_value(info, getattr(assumptions, info.name))
            editor.blockSignals(True)
            try:
                if isinstance(editor, QComboBox):
                    editor.setCurrentText(text)
                elif (force or not editor.hasFocus()) and editor.text() != text:
                    editor.setText(text)
                    editor.setCursorPosition(0)
            finally:
                editor.blockSignals(False)

    def value(self, key: str) -> str:
        editor = self.editors[key]
        return editor.currentText() if isinstance(editor, QComboBox) else editor.text()
