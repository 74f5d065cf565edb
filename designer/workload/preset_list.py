"""The Workload tab's list of presets, grouped by kind: "(no workload)", the training presets
under a "Training" heading, the inference presets under an "Inference" heading, then
"Custom". Headings cannot be chosen; a preset's item data is its name."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QStandardItemModel
from PySide6.QtWidgets import QComboBox

from core.errors import DesignError
from core.inference_workload import InferenceWorkload, list_inference_presets, load_inference_preset
from core.workload import Workload, list_presets, load_preset

INFERENCE_TIP = "An inference (serving) preset, taken as written"
NONE, CUSTOM = "(no workload)", "(custom)"  # the list's first and last entries


def load_presets() -> tuple[dict[str, Workload], dict[str, InferenceWorkload]]:
    """(training presets, inference presets) by name; a broken preset file is left out, so
    it cannot take the tab down."""
    training: dict[str, Workload] = {}
    for name in list_presets():
        try:
            training[name] = load_preset(name)
        except DesignError:
            continue
    inference: dict[str, InferenceWorkload] = {}
    for name in list_inference_presets():
        try:
            inference[name] = load_inference_preset(name)
        except DesignError:
            continue
    return training, inference


def _heading(combo: QComboBox, text: str) -> None:
    combo.addItem(text)
    item = combo.model().item(combo.count() - 1)  # type: ignore[union-attr]
    item.setFlags(item.flags() & ~(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled))
    font = QFont(item.font())
    font.setBold(True)
    item.setFont(font)


def fill_preset_combo(combo: QComboBox, training: dict[str, Workload],
                      inference: dict[str, InferenceWorkload], none_text: str, custom_text: str) -> None:
    assert isinstance(combo.model(), QStandardItemModel)
    combo.addItem(none_text)
    if training:
        _heading(combo, "Training")
        for name, workload in training.items():
            combo.addItem(f"{name} — {workload.name}", name)
    if inference:
        _heading(combo, "Inference")
        for name, workload in inference.items():
            combo.addItem(f"{name} (inference) — {workload.name}", name)
            combo.setItemData(combo.count() - 1, INFERENCE_TIP, Qt.ItemDataRole.ToolTipRole)
    combo.addItem(custom_text)
