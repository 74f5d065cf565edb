"""Workload panel: pick a preset or edit the model and its parallelism; apply as one undo step.

It checks the plan against the design as the user types: TP×PP×DP×CP against the design's
GPUs and TP against the scale-up domain (both from the latest evaluation).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
    QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget,
)

from core.errors import DesignError
from core.model import SetWorkload
from core.workload import ACTIVATIONS, PRECISIONS, RECOMPUTE, Workload, list_presets, load_preset, workload_from_dict, workload_to_dict
from designer.document import DesignDocument

MODEL_INTS = [("layers", "Layers"), ("hidden", "Hidden size"), ("ffn_hidden", "FFN hidden"),
              ("heads", "Attention heads"), ("kv_heads", "KV heads (0 = heads)"), ("vocab", "Vocabulary"),
              ("seq_len", "Sequence length")]
MOE_INTS = [("experts", "Experts (0 = dense)"), ("top_k", "Top-k"), ("expert_ffn_hidden", "Expert FFN hidden")]
PAR_INTS = [("tp", "TP"), ("pp", "PP"), ("dp", "DP"), ("cp", "CP"), ("ep", "EP"),
            ("micro_batch", "Micro-batch"), ("global_batch", "Global batch"),
            ("virtual_stages", "Virtual stages")]
NONE, CUSTOM = "(no workload)", "(custom)"


class WorkloadPanel(QScrollArea):
    error = Signal(str)

    def __init__(self, document: DesignDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._design_gpus: int | None = None
        self._scale_up: int | None = None
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)

        top = QFormLayout()
        self.preset = QComboBox()
        self.preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.preset.addItem(NONE)
        self._presets: dict[str, Workload] = {}
        for name in list_presets():
            try:
                self._presets[name] = load_preset(name)
            except DesignError:
                continue  # a broken preset file must not take the panel down
            self.preset.addItem(f"{name} — {self._presets[name].name}", name)
        self.preset.addItem(CUSTOM)
        self.preset.activated.connect(self._preset_chosen)
        top.addRow("Preset", self.preset)
        self.name = QLineEdit()
        top.addRow("Name", self.name)
        layout.addLayout(top)

        self.spins: dict[str, QSpinBox] = {}
        model_box = QGroupBox("Model")
        model_form = QFormLayout(model_box)
        for key, label in MODEL_INTS + MOE_INTS:
            model_form.addRow(label, self._spin(key, 0 if key in ("kv_heads", "experts", "top_k", "expert_ffn_hidden") else 1))
        self.activation = QComboBox()
        self.activation.addItems(list(ACTIVATIONS))
        model_form.addRow("Activation", self.activation)
        layout.addWidget(model_box)

        par_box = QGroupBox("Parallelism")
        par_form = QFormLayout(par_box)
        self.auto = QCheckBox("Search automatically")
        self.auto.toggled.connect(self._auto_toggled)
        par_form.addRow("", self.auto)
        for key, label in PAR_INTS:
            par_form.addRow(label, self._spin(key, 1))
        self.zero = QComboBox()
        self.zero.addItems(["0", "1", "2", "3"])
        par_form.addRow("ZeRO stage", self.zero)
        self.recompute = QComboBox()
        self.recompute.addItems(list(RECOMPUTE))
        par_form.addRow("Recompute", self.recompute)
        self.fill = QPushButton("Fill the design with DP")
        self.fill.setToolTip("Set DP so that TP×PP×DP×CP uses every GPU of the design")
        self.fill.clicked.connect(self._fill_dp)
        par_form.addRow("", self.fill)
        layout.addWidget(par_box)

        train_box = QGroupBox("Training")
        train_form = QFormLayout(train_box)
        self.precision = QComboBox()
        self.precision.addItems(list(PRECISIONS))
        train_form.addRow("Precision", self.precision)
        self.tokens = QDoubleSpinBox()
        self.tokens.setRange(0.001, 1e6)
        self.tokens.setDecimals(1)
        self.tokens.setSuffix(" B tokens")
        train_form.addRow("Training tokens", self.tokens)
        layout.addWidget(train_box)

        self.check = QLabel()
        self.check.setWordWrap(True)
        self.check.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.check)
        buttons = QHBoxLayout()
        self.apply = QPushButton("Apply")
        self.apply.setDefault(True)
        self.apply.clicked.connect(self.apply_edits)
        self.revert = QPushButton("Revert")
        self.revert.clicked.connect(self.load_from_design)
        buttons.addStretch(1)
        buttons.addWidget(self.revert)
        buttons.addWidget(self.apply)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.setWidget(body)
        self.load_from_design()

    def _spin(self, key: str, minimum: int) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(minimum, 100_000_000)
        spin.setGroupSeparatorShown(True)
        spin.valueChanged.connect(self._update_check)
        self.spins[key] = spin
        return spin

    # --- model ↔ form --------------------------------------------------------------------
    def load_from_design(self) -> None:
        self._show(self.document.design.workload)

    def _show(self, workload: Workload | None) -> None:
        enabled = workload is not None
        for widget in [*self.spins.values(), self.activation, self.zero, self.recompute, self.precision,
                       self.tokens, self.name, self.auto, self.fill]:
            widget.setEnabled(enabled)
        if workload is None:
            self.preset.setCurrentText(NONE)
            self._update_check()
            return
        raw = workload_to_dict(workload)
        match = next((name for name, preset in self._presets.items() if preset == workload), None)
        index = self.preset.findData(match) if match else self.preset.findText(CUSTOM)
        self.preset.setCurrentIndex(index)
        for spin in self.spins.values():
            spin.blockSignals(True)
        self.name.setText(raw["name"])
        model = raw["model"]
        for key, _ in MODEL_INTS:
            self.spins[key].setValue(int(model[key]))
        for key, _ in MOE_INTS:
            self.spins[key].setValue(int(model["moe"][key]))
        self.activation.setCurrentText(model["activation"])
        par = raw["parallelism"]
        self.auto.setChecked(par == "auto")
        if par != "auto":
            for key, _ in PAR_INTS:
                self.spins[key].setValue(int(par[key]))
            self.zero.setCurrentText(str(par["zero_stage"]))
            self.recompute.setCurrentText(par["recompute"])
        self.precision.setCurrentText(raw["precision"])
        self.tokens.setValue(raw["training_tokens"] / 1e9)
        for spin in self.spins.values():
            spin.blockSignals(False)
        self._auto_toggled(self.auto.isChecked())
        self._update_check()

    def form_dict(self) -> dict[str, Any]:
        """The workload JSON the form describes (unknown-to-the-form keys kept from the design)."""
        base = self.document.design.workload
        raw = workload_to_dict(base) if base is not None else {"model": {"moe": {}}, "parallelism": {}}
        model = dict(raw["model"])
        model["moe"] = dict(model.get("moe", {}))
        for key, _ in MODEL_INTS:
            model[key] = self.spins[key].value()
        for key, _ in MOE_INTS:
            model["moe"][key] = self.spins[key].value()
        model["activation"] = self.activation.currentText()
        if self.auto.isChecked():
            par: Any = "auto"
        else:
            par = dict(raw["parallelism"]) if isinstance(raw["parallelism"], dict) else {}
            for key, _ in PAR_INTS:
                par[key] = self.spins[key].value()
            par["zero_stage"] = int(self.zero.currentText())
            par["recompute"] = self.recompute.currentText()
        return {"name": self.name.text().strip() or "workload", "model": model, "parallelism": par,
                "precision": self.precision.currentText(), "training_tokens": self.tokens.value() * 1e9}

    def apply_edits(self) -> None:
        if self.preset.currentText() == NONE and self.document.design.workload is None:
            return
        try:
            workload = workload_from_dict(self.form_dict(), "workload")
        except DesignError as exc:
            self._set_check(f"<span style='color:#c62828'>{exc}</span>")
            self.error.emit(str(exc))
            return
        if workload != self.document.design.workload:
            self.document.push(SetWorkload(workload), "Change workload")

    def choose_preset(self, name: str | None) -> None:
        """Select preset ``name`` (None: no workload) as the user would."""
        index = self.preset.findText(NONE) if name is None else self.preset.findData(name)
        self.preset.setCurrentIndex(index)
        self._preset_chosen(index)

    def _preset_chosen(self, _index: int) -> None:
        if self.preset.currentText() == CUSTOM:
            return
        name = self.preset.currentData()
        workload = self._presets.get(name) if name else None
        if workload != self.document.design.workload:
            self.document.push(SetWorkload(workload), "Remove workload" if workload is None else f"Workload {name}")
        self._show(workload)

    def _auto_toggled(self, on: bool) -> None:
        for key, _ in PAR_INTS:
            self.spins[key].setEnabled(not on and self.document.design.workload is not None)
        self._update_check()

    def _fill_dp(self) -> None:
        if not self._design_gpus:
            return
        model_parallel = self.spins["tp"].value() * self.spins["pp"].value() * self.spins["cp"].value()
        dp = max(1, self._design_gpus // model_parallel)
        micro = self.spins["micro_batch"].value()
        per_replica = max(1, self.spins["global_batch"].value() // max(1, self.spins["dp"].value() * micro))
        self.spins["dp"].setValue(dp)
        self.spins["global_batch"].setValue(dp * micro * per_replica)

    # --- checks against the design -------------------------------------------------------
    def set_design_facts(self, gpus: int, scale_up_domain: int) -> None:
        self._design_gpus, self._scale_up = gpus, scale_up_domain
        self._update_check()

    def _set_check(self, html: str) -> None:
        self.check.setText(html)

    def _update_check(self) -> None:
        if self.document.design.workload is None and self.preset.currentText() == NONE:
            self._set_check("<i>No workload: the design is evaluated without a training job.</i>")
            return
        if self.auto.isChecked():
            self._set_check("Parallelism is searched for the design's GPUs.")
            return
        tp, pp, dp, cp = (self.spins[k].value() for k in ("tp", "pp", "dp", "cp"))
        need = tp * pp * dp * cp
        lines = [f"TP×PP×DP×CP = {tp}×{pp}×{dp}×{cp} = <b>{need:,}</b> GPUs"]
        if self._design_gpus is not None:
            if need > self._design_gpus:
                lines.append(f"<span style='color:#c62828'>✗ exceeds the design's {self._design_gpus:,} GPUs</span>")
            else:
                lines.append(f"<span style='color:#2e7d32'>✓ fits the design's {self._design_gpus:,} GPUs</span>")
        if self._scale_up is not None and tp > self._scale_up:
            lines.append(f"<span style='color:#c62828'>✗ TP {tp} exceeds the scale-up domain of "
                         f"{self._scale_up} GPUs: tensor-parallel traffic would cross the scale-out network</span>")
        self._set_check("<br>".join(lines))
