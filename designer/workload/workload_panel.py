"""Workload panel: a training or an inference workload, from a preset or edited; every change is
one undo step (Apply, a preset, switching the kind).

A preset chosen from the list is fitted to the design (core/preset_fit.py: DP and the global
batch fill its GPUs, TP/PP/CP/EP kept) and the tab says what changed; "Keep the preset's layout"
takes it exactly as written.

It checks the plan against the design as the user types: TP×PP×DP×CP against the design's
GPUs and TP against the scale-up domain (both from the latest evaluation). "Auto (search)" runs
core's parallelism search (designer/workload/searches.py).

An inference workload has its own form (designer/workload/inference_form.py); its presets are listed
with the training ones, marked "(inference)", and are taken as written (a serving deployment
is not fitted to the design). Its "Auto (search)" runs core's deployment search (searches.py too).
"""

from __future__ import annotations

import dataclasses
from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
    QPushButton, QRadioButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget,
)

from core.catalog import Catalog, default_catalog
from core.errors import DesignError
from core.flatten import flatten
from core.inference_workload import InferenceWorkload, inference_workload_from_dict, inference_workload_to_dict
from core.operations import SetWorkload
from core.preset_choice import first_that_runs
from core.preset_fit import fit_to_design
from core.workload import (
    ACTIVATIONS, OPTIMIZERS, PRECISIONS, RECOMPUTE, Workload, workload_from_dict, workload_to_dict,
)
from designer.common.busy import Cancelled, run_busy
from designer.common.first_show import BuiltOnFirstShow
from designer.project.document import DesignDocument
from designer.workload.inference_form import InferenceForm
from designer.workload.inference_search import InferenceSearchOutcome, run_inference_search
from designer.workload.model_fields import MODEL_INTS, MOE_INTS
from designer.workload.moe_fields import MoeFields
from designer.workload.preset_list import CUSTOM, NONE, fill_preset_combo, load_presets
from designer.workload.search_runner import SearchOutcome, SearchRunner
from designer.workload.searches import WorkloadSearches
from designer.workload.stack_selector import StackSelector

PAR_INTS = [("tp", "TP"), ("pp", "PP"), ("dp", "DP"), ("cp", "CP"), ("ep", "EP"),
            ("micro_batch", "Micro-batch"), ("global_batch", "Global batch"),
            ("virtual_stages", "Virtual stages")]
TRAINING, INFERENCE = "training", "inference"


class WorkloadPanel(BuiltOnFirstShow, WorkloadSearches, QScrollArea):
    error = Signal(str)
    search_finished = Signal(object)  # SearchOutcome (tests wait on it)
    inference_search_finished = Signal(object)  # InferenceSearchOutcome (tests wait on it)

    def __init__(self, document: DesignDocument, catalog: Catalog | None = None, parent=None):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog or default_catalog()
        self.search_runner = SearchRunner(self.catalog, self)
        self.search_runner.finished.connect(self._search_done)
        self.search_runner.failed.connect(self._search_failed)
        self.outcome: SearchOutcome | None = None
        # the serving deployment search ("Auto (search)" of the inference form)
        self.inference_runner = SearchRunner(self.catalog, self, run=run_inference_search)
        self.inference_runner.finished.connect(self._inference_search_done)
        self.inference_runner.failed.connect(self._inference_search_failed)
        self.inference_outcome: InferenceSearchOutcome | None = None
        self._applying = False
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._design_gpus: int | None = None
        # memory per GPU of the applied layout under each recompute mode, and what the GPU
        # holds (latest evaluation; empty without a training result)
        self._recompute_memory: tuple[dict[str, float], float] = ({}, 0.0)
        self._scale_up: int | None = None
        # the form is made when the tab is first raised (designer/common/first_show.py)

    def _build_body(self) -> None:
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)

        top = QFormLayout()
        kinds = QHBoxLayout()
        self.kind_group = QButtonGroup(self)
        self.kind_buttons: dict[str, QRadioButton] = {}
        for kind, tip in ((TRAINING, "A training job: model, parallelism, training tokens"),
                          (INFERENCE, "A serving deployment: model, request mix, SLOs, layout per phase, "
                                      "KV-cache placement")):
            button = QRadioButton(kind.capitalize())
            button.setToolTip(f"{tip}. Switching is one undo step: the last {kind} workload of this tab, "
                              f"or the first {kind} preset")
            self.kind_group.addButton(button)
            self.kind_buttons[kind] = button
            kinds.addWidget(button)
            button.clicked.connect(lambda _=False, k=kind: self.choose_kind(k))
        kinds.addStretch(1)
        top.addRow("Kind", kinds)
        self.preset = QComboBox()
        self.preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._presets, self._inference_presets = load_presets()
        fill_preset_combo(self.preset, self._presets, self._inference_presets, NONE, CUSTOM)
        self.preset.activated.connect(self._preset_chosen)
        top.addRow("Preset", self.preset)
        layout.addLayout(top)
        self._top = top
        # the last workload of each kind this tab showed: switching the kind back restores it
        self._last_of_kind: dict[str, Workload | InferenceWorkload] = {}

        self.training_body = QWidget()  # the training fields below the top rows
        training = QVBoxLayout(self.training_body)
        training.setContentsMargins(0, 0, 0, 0)
        self.keep_layout = QCheckBox("Keep the preset's layout")
        self.keep_layout.setToolTip("Use the preset's own TP/PP/DP/CP/EP and global batch as published, even "
                                    "when it uses only part of the design (or more GPUs than it has). "
                                    "Unticked, choosing a preset fits DP and the global batch to the design.")
        self.keep_layout.toggled.connect(self._keep_layout_toggled)
        top.addRow("", self.keep_layout)
        self.fit_note = QLabel()
        self.fit_note.setWordWrap(True)
        self.fit_note.setTextFormat(Qt.TextFormat.PlainText)
        self.fit_note.setStyleSheet("color: #455a64;")
        self.fit_note.hide()
        top.addRow("", self.fit_note)
        # (workload, note) of the last preset chosen here: notes for presets kept as written
        # (already filling, or too big) are not stored with the workload, so the tab keeps them.
        self._chosen: tuple[Workload | None, str] = (None, "")
        self.name = QLineEdit()
        top.addRow("Name", self.name)
        self.stack = StackSelector(self.document)
        top.addRow("Software stack", self.stack)
        # hidden for an inference workload with the training body (one form: the columns align)
        self._training_rows = (self.keep_layout, self.fit_note, self.name, self.stack)

        self.spins: dict[str, QSpinBox] = {}
        model_box = QGroupBox("Model")
        model_form = QFormLayout(model_box)
        for key, label in MODEL_INTS + MOE_INTS:
            model_form.addRow(label, self._spin(key, 0 if key in ("kv_heads", "experts", "top_k", "expert_ffn_hidden") else 1))
        self.activation = QComboBox()
        self.activation.addItems(list(ACTIVATIONS))
        model_form.addRow("Activation", self.activation)
        training.addWidget(model_box)
        self.moe_fields = MoeFields()
        self.moe_fields.changed.connect(self._update_check)
        training.addWidget(self.moe_fields)

        par_box = QGroupBox("Parallelism")
        par_form = QFormLayout(par_box)
        self.auto = QCheckBox("Search at every evaluation")
        self.auto.setToolTip('Save the workload with parallelism "auto": every evaluation searches '
                             "the best configuration for the design as it is")
        self.auto.toggled.connect(self._auto_toggled)
        par_form.addRow("", self.auto)
        for key, label in PAR_INTS:
            par_form.addRow(label, self._spin(key, 1))
        self.zero = QComboBox()
        self.zero.addItems(["0", "1", "2", "3"])
        par_form.addRow("ZeRO stage", self.zero)
        self.recompute = QComboBox()
        for mode in RECOMPUTE:
            self.recompute.addItem(mode, mode)
        self.recompute.setToolTip("Activation recompute. Beside each mode: the memory per GPU the "
                                  "applied layout needs with it (latest evaluation); ✗ over the GPU")
        par_form.addRow("Recompute", self.recompute)
        self._label_recompute_modes()
        self.fill = QPushButton("Fill the design with DP")
        self.fill.setToolTip("Set DP so that TP×PP×DP×CP uses every GPU of the design")
        self.fill.clicked.connect(self._fill_dp)
        self.search_button = QPushButton("Auto (search)")
        self.search_button.setToolTip("Search the best TP/PP/DP/CP/EP, micro-batch, virtual stages, ZeRO and "
                                      "recompute for this design and model; pick one to apply it")
        self.search_button.clicked.connect(self.start_search)
        fill_row = QHBoxLayout()
        fill_row.addWidget(self.fill)
        fill_row.addWidget(self.search_button)
        fill_row.addStretch(1)
        par_form.addRow("", fill_row)
        training.addWidget(par_box)
        training.addWidget(self._build_search())

        train_box = QGroupBox("Training")
        train_form = QFormLayout(train_box)
        self.precision = QComboBox()
        self.precision.addItems(list(PRECISIONS))
        train_form.addRow("Precision", self.precision)
        self.optimizer = QComboBox()
        self.optimizer.addItems(list(OPTIMIZERS))
        self.optimizer.setToolTip("adamw: two moments per parameter. muon: one momentum buffer "
                                  "per weight matrix (the embedding and output head stay on "
                                  "AdamW) and Newton-Schulz iterations in the optimizer step")
        train_form.addRow("Optimizer", self.optimizer)
        self.tokens = QDoubleSpinBox()
        self.tokens.setRange(0.001, 1e6)
        self.tokens.setDecimals(1)
        self.tokens.setSuffix(" B tokens")
        train_form.addRow("Training tokens", self.tokens)
        training.addWidget(train_box)
        layout.addWidget(self.training_body)
        self.inference_form = InferenceForm()
        self.inference_form.edited.connect(self._update_check)
        self.inference_form.search_button.clicked.connect(self.start_inference_search)
        self.inference_form.hide()
        layout.addWidget(self.inference_form)

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
        if self.body_built:  # else the form shows the design when it is made
            self._show(self.document.design.workload)

    def _preset_of(self, workload: Workload | InferenceWorkload | None) -> str | None:
        """The preset ``workload`` is, as written or fitted to a design."""
        if isinstance(workload, InferenceWorkload):
            return next((name for name, preset in self._inference_presets.items() if preset == workload), None)
        if workload is None:
            return None
        if workload.preset_fit is not None and workload.preset_fit.preset in self._presets:
            return workload.preset_fit.preset
        return next((name for name, preset in self._presets.items() if preset == workload), None)

    def _show_fit_note(self, workload: Workload | None) -> None:
        if isinstance(workload, Workload) and workload.preset_fit is not None:
            note = workload.preset_fit.note
            if self._design_gpus is not None and self._design_gpus != workload.preset_fit.design_gpus:
                note += (f". The design now has {self._design_gpus:,} GPUs: choose the preset again to fit it "
                         "anew")
        else:
            chosen, note = self._chosen
            note = note if workload is not None and chosen is workload else ""
        self.fit_note.setText(note)
        self.fit_note.setVisible(bool(note))

    def _show_preset(self, workload: Workload | InferenceWorkload) -> None:
        match = self._preset_of(workload)
        self.preset.setCurrentIndex(self.preset.findData(match) if match else self.preset.findText(CUSTOM))

    def _show(self, workload: Workload | InferenceWorkload | None) -> None:
        inference = isinstance(workload, InferenceWorkload)
        self.kind_buttons[INFERENCE if inference else TRAINING].setChecked(True)
        self.training_body.setVisible(not inference)
        for row in self._training_rows:  # the fit note's own visibility follows in _show_fit_note
            self._top.setRowVisible(row, not inference)
        self.inference_form.setVisible(inference)
        if workload is not None:
            self._last_of_kind[INFERENCE if inference else TRAINING] = workload
        if inference:
            self.inference_form.load(workload)
            self._show_preset(workload)
            self._update_check()
            return
        self._show_fit_note(workload)
        enabled = workload is not None
        for widget in [*self.spins.values(), self.activation, self.zero, self.recompute, self.precision,
                       self.optimizer, self.tokens, self.name, self.auto, self.fill, *self.moe_fields.widgets()]:
            widget.setEnabled(enabled)
        self.search_button.setEnabled(enabled and not self.search_runner.running)
        if workload is None:
            self.preset.setCurrentText(NONE)
            self._update_check()
            return
        raw = workload_to_dict(workload)
        self._show_preset(workload)
        for spin in self.spins.values():
            spin.blockSignals(True)
        self.name.setText(raw["name"])
        model = raw["model"]
        for key, _ in MODEL_INTS:
            self.spins[key].setValue(int(model[key]))
        for key, _ in MOE_INTS:
            self.spins[key].setValue(int(model["moe"][key]))
        self.activation.setCurrentText(model["activation"])
        self.moe_fields.load(model, raw["parallelism"])
        par = raw["parallelism"]
        self.auto.setChecked(par == "auto")
        if par != "auto":
            for key, _ in PAR_INTS:
                self.spins[key].setValue(int(par[key]))
            self.zero.setCurrentText(str(par["zero_stage"]))
            self.recompute.setCurrentIndex(max(0, self.recompute.findData(par["recompute"])))
        self.precision.setCurrentText(raw["precision"])
        self.optimizer.setCurrentText(raw.get("optimizer", "adamw"))
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
            par["recompute"] = self.recompute.currentData()
        self.moe_fields.write(model, par)
        return {**raw, "name": self.name.text().strip() or "workload", "model": model, "parallelism": par,
                "precision": self.precision.currentText(),
                "optimizer": self.optimizer.currentText(), "training_tokens": self.tokens.value() * 1e9}

    def apply_edits(self) -> None:
        if isinstance(self.document.design.workload, InferenceWorkload):
            self._apply_inference()
            return
        if self.preset.currentText() == NONE and self.document.design.workload is None:
            return
        try:
            workload = workload_from_dict(self.form_dict(), "workload")
        except DesignError as exc:
            self._set_check(f"<span style='color:#c62828'>{exc}</span>")
            self.error.emit(str(exc))
            return
        base = self.document.design.workload
        if workload.preset_fit is not None and base is not None and workload.parallelism != base.parallelism:
            workload = dataclasses.replace(workload, preset_fit=None)  # the layout is the user's now
        if workload != base:
            self.document.push(SetWorkload(workload), "Change workload")

    def _apply_inference(self) -> None:
        """The inference form's workload as one undo step; an invalid form says why (one line,
        red) and leaves the design as it is."""
        workload = self._inference_from_form(
            lambda text: self._set_check(f"<span style='color:#c62828'>{text}</span>"))
        if workload is not None and workload != self.document.design.workload:
            self.document.push(SetWorkload(workload), "Change inference workload")

    def _inference_from_form(self, show_error) -> InferenceWorkload | None:
        """The inference form's workload, or None after ``show_error`` (escaped html) and the
        error signal have said why it is not valid."""
        base = self.document.design.workload
        raw = inference_workload_to_dict(base) if isinstance(base, InferenceWorkload) else None
        try:
            return inference_workload_from_dict(self.inference_form.form_dict(raw), "workload")
        except DesignError as exc:
            show_error(escape(str(exc), quote=False))
            self.error.emit(str(exc))
            return None

    def choose_kind(self, kind: str) -> None:
        """Make the design's workload a ``kind`` one (TRAINING or INFERENCE) as one undo step:
        the last workload of that kind this tab showed, else the first preset of that kind that
        the design can run (core/preset_choice.py)."""
        current = self.document.design.workload
        if (kind == INFERENCE) == isinstance(current, InferenceWorkload):  # no workload: training's
            self._show(current)
            return
        remembered = self._last_of_kind.get(kind)
        if remembered is None:
            first = self._first_preset_that_runs(kind)
            if first is None:
                self._show(current)
            else:
                self.choose_preset(first)
            return
        self.document.push(SetWorkload(remembered), f"{kind.capitalize()} workload {remembered.name}")
        self._show(remembered)

    def _first_preset_that_runs(self, kind: str) -> str | None:
        if kind == INFERENCE:
            candidates = list(self._inference_presets.items())
        else:
            gpus = self._gpus_now()
            candidates = [(name, fit_to_design(preset, gpus, name)[0]) for name, preset in self._presets.items()]
        design = self.document.design.snapshot()
        try:  # an evaluation per preset tried: a big design takes a while, and the window says so
            return run_busy(self, "Finding a preset the design can run…",
                            lambda: first_that_runs(design, self.catalog, candidates), what="choosing a preset")
        except (DesignError, Cancelled):
            return candidates[0][0] if candidates else None

    def choose_preset(self, name: str | None) -> None:
        """Select preset ``name`` (None: no workload) as the user would."""
        index = self.preset.findText(NONE) if name is None else self.preset.findData(name)
        self.preset.setCurrentIndex(index)
        self._preset_chosen(index)

    def _preset_chosen(self, _index: int) -> None:
        """Set the chosen preset as one undo step: fitted to the design unless its layout is kept."""
        if self.preset.currentText() == CUSTOM:
            return
        name = self.preset.currentData()
        if name in self._inference_presets:  # served with its own deployment: nothing to fit
            workload = self._inference_presets[name]
            self._chosen = (workload, "")
            if workload != self.document.design.workload:
                self.document.push(SetWorkload(workload), f"Workload {name}")
            self._show(workload)
            return
        workload = self._presets.get(name) if name else None
        note = ""
        if workload is not None and not self.keep_layout.isChecked():
            try:
                workload, note = fit_to_design(workload, self._gpus_now(), name)
            except DesignError as exc:
                note = f"Preset kept as written: cannot count the design's GPUs ({exc})"
        self._chosen = (workload, note)
        if workload != self.document.design.workload:
            if workload is None:
                text = "Remove workload"
            elif workload.preset_fit is not None:
                text = f"Workload {name} fitted to {workload.preset_fit.design_gpus:,} GPUs"
            else:
                text = f"Workload {name}"
            self.document.push(SetWorkload(workload), text)
        self._show(workload)

    def _keep_layout_toggled(self, _on: bool) -> None:
        """Choose the shown preset again (one undo step) if the design's workload is that preset."""
        name = self.preset.currentData()
        if name and self._preset_of(self.document.design.workload) == name:
            self._preset_chosen(self.preset.currentIndex())

    def _gpus_now(self) -> int:
        """The design's GPUs as it is now (the last evaluation may be older than the last edit)."""
        return flatten(self.document.design, self.catalog).gpus

    def _auto_toggled(self, on: bool) -> None:
        for key, _ in PAR_INTS:
            self.spins[key].setEnabled(not on and self.document.design.workload is not None)
        self._update_check()

    def _fill_dp(self) -> None:
        """DP and the global batch of the form's layout, fitted to the design by the same rule as a
        preset (EP and the interleaved schedule respected); the form changes, Apply commits."""
        try:
            workload = workload_from_dict(self.form_dict(), "workload")
            fitted, note = fit_to_design(workload, self._gpus_now())
        except DesignError as exc:
            self._set_check(f"<span style='color:#c62828'>{escape(str(exc))}</span>")
            return
        if fitted is workload:  # nothing to change: say why (already full, or too small a design)
            self._set_check(escape(note))
            return
        self.spins["dp"].setValue(fitted.parallelism.dp)
        self.spins["global_batch"].setValue(fitted.parallelism.global_batch)

    # --- checks against the design -------------------------------------------------------
    def set_design_facts(self, gpus: int, scale_up_domain: int) -> None:
        self._design_gpus, self._scale_up = gpus, scale_up_domain
        if not self.body_built:
            return
        self._show_fit_note(self.document.design.workload)
        self._update_check()

    def show_recompute_memory(self, by_mode: dict[str, float], hbm_gb: float) -> None:
        """The latest evaluation's memory per GPU under each recompute mode, shown beside the
        modes ({} when the design has no training result)."""
        self._recompute_memory = (dict(by_mode), hbm_gb)
        if self.body_built:
            self._label_recompute_modes()

    def _label_recompute_modes(self) -> None:
        by_mode, hbm_gb = self._recompute_memory
        for index in range(self.recompute.count()):
            mode = self.recompute.itemData(index)
            gb = by_mode.get(mode)
            self.recompute.setItemText(index, mode if gb is None else
                                       f"{mode} — {gb:,.1f} GB" + (" ✗" if gb > hbm_gb else ""))

    def _set_check(self, html: str) -> None:
        self.check.setText(html)

    def _update_check(self) -> None:
        if isinstance(self.document.design.workload, InferenceWorkload):
            size = self.inference_form.deployment_size()
            if size is None:
                self._set_check("The deployment is searched for the design's GPUs under the SLOs.")
            else:
                text, need, tp = size
                self._set_check("<br>".join([text, *self._fit_lines(need, tp)]))
            return
        if self.document.design.workload is None and self.preset.currentText() == NONE:
            self._set_check("<i>No workload: the design is evaluated without a training job.</i>")
            return
        if self.auto.isChecked():
            self._set_check("Parallelism is searched for the design's GPUs.")
            return
        tp, pp, dp, cp = (self.spins[k].value() for k in ("tp", "pp", "dp", "cp"))
        need = tp * pp * dp * cp
        lines = [f"TP×PP×DP×CP = {tp}×{pp}×{dp}×{cp} = <b>{need:,}</b> GPUs", *self._fit_lines(need, tp)]
        self._set_check("<br>".join(lines))

    def _fit_lines(self, need: int, tp: int) -> list[str]:
        """Whether ``need`` GPUs fit the design and TP its scale-up domain (latest evaluation)."""
        lines = []
        if self._design_gpus is not None:
            if need > self._design_gpus:
                lines.append(f"<span style='color:#c62828'>✗ exceeds the design's {self._design_gpus:,} GPUs</span>")
            else:
                lines.append(f"<span style='color:#2e7d32'>✓ fits the design's {self._design_gpus:,} GPUs</span>")
        if self._scale_up is not None and tp > self._scale_up:
            lines.append(f"<span style='color:#c62828'>✗ TP {tp} exceeds the scale-up domain of "
                         f"{self._scale_up} GPUs: tensor-parallel traffic would cross the scale-out network</span>")
        return lines
