"""The Workload tab's form for an inference (serving) workload: its fields and the workload
JSON they describe (core/inference_workload.py; DESIGN.md "Workload JSON").

The form only lays the JSON out: it never checks a value itself. The Workload panel passes
``form_dict()`` to ``inference_workload_from_dict``, whose one-line error names the JSON path.
Keys of the design's workload the form has no field for (``model.causal``) are kept.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QVBoxLayout, QWidget)

from core.inference_workload import (AUTO, MAX_HOST_GB_PER_GPU, MAX_HOST_LINK_GBYTE_S, MAX_SLO_MS,
                                     PRECISION_BYTES, InferenceWorkload, inference_workload_to_dict)
from core.workload import ACTIVATIONS, INTEGER_BOUNDS
from designer.panels.deployment_search import DeploymentSearchView
from designer.workload.inference_editors import PHASES, PhaseLayoutGrid, RequestMixTable
from designer.workload.model_fields import MLA_INTS, MODEL_INTS, MOE_INTS, MOE_LAYOUT_INTS, int_spin

MODES = (("Aggregated", "aggregated"), ("Disaggregated prefill / decode", "disaggregated"),
         ("Auto (search at every evaluation)", AUTO))
PLACEMENTS = (("HBM only", "hbm"), ("HBM and host memory", "host"), ("Remote prefix cache", "remote"))
MLA_MAX = 1_000_000  # core.inference_workload._parse_mla's bound


def _number(low: float, high: float, decimals: int, suffix: str) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(low, high)
    spin.setDecimals(decimals)
    spin.setSuffix(suffix)
    spin.setGroupSeparatorShown(True)
    return spin


def _combo(items) -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    for text, data in items:
        combo.addItem(text, data)
    return combo


def _select(combo: QComboBox, data: str) -> None:
    combo.setCurrentIndex(max(0, combo.findData(data)))


class InferenceForm(QWidget):
    edited = Signal()  # a field changed (not while a workload is being loaded)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._loading = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QFormLayout()
        self.name = QLineEdit()
        self.name.textEdited.connect(self._changed)
        top.addRow("Name", self.name)
        layout.addLayout(top)
        layout.addWidget(self._model_box())
        layout.addWidget(self._moe_box())
        layout.addWidget(self._mla_box())
        layout.addWidget(self._serving_box())
        requests = QGroupBox("Request mix")
        requests.setToolTip("One row: every request has this shape. More rows: a distribution of "
                            "request shapes, each with its share of the requests")
        self.requests = RequestMixTable()
        self.requests.edited.connect(self._changed)
        QVBoxLayout(requests).addWidget(self.requests)
        layout.addWidget(requests)
        layout.addWidget(self._deployment_box())
        layout.addWidget(self._search_box())
        layout.addWidget(self._kv_box())

    # --- building ------------------------------------------------------------------------
    def _spin(self, key: str, low: int | None = None, high: int | None = None):
        bounds = INTEGER_BOUNDS.get(key, (0, MLA_MAX))
        spin = int_spin(bounds[0] if low is None else low, bounds[1] if high is None else high)
        spin.valueChanged.connect(self._changed)
        return spin

    def _model_box(self) -> QGroupBox:
        box = QGroupBox("Model")
        form = QFormLayout(box)
        self.spins = {key: self._spin(key) for key, _ in MODEL_INTS + MOE_INTS + MOE_LAYOUT_INTS}
        for key, label in MODEL_INTS:
            form.addRow(label, self.spins[key])
        self.activation = _combo((a, a) for a in ACTIVATIONS)
        self.activation.currentIndexChanged.connect(self._changed)
        form.addRow("Activation", self.activation)
        return box

    def _moe_box(self) -> QGroupBox:
        box = QGroupBox("Mixture of experts")
        box.setToolTip("0 experts: a dense model")
        form = QFormLayout(box)
        for key, label in MOE_INTS + MOE_LAYOUT_INTS:
            form.addRow(label, self.spins[key])
        return box

    def _mla_box(self) -> QGroupBox:
        box = QGroupBox("Multi-head latent attention (MLA)")
        box.setCheckable(True)
        box.setToolTip("DeepSeek-V2/V3/R1: the KV cache holds one compressed latent and one RoPE key "
                       "per token and layer, shared by all heads")
        self.mla = box  # unticked, its fields stay in sight, greyed (what MLA would add)
        form = QFormLayout(box)
        self.mla_spins = {key: self._spin(key, low, MLA_MAX) for key, _, low in MLA_INTS}
        for key, label, _ in MLA_INTS:
            form.addRow(label, self.mla_spins[key])
        box.toggled.connect(self._changed)
        return box

    def _serving_box(self) -> QGroupBox:
        box = QGroupBox("Serving and SLOs")
        form = QFormLayout(box)
        self.precision = _combo((p, p) for p in PRECISION_BYTES)
        self.kv_precision = _combo((p, p) for p in PRECISION_BYTES)
        self.ttft = _number(0.1, MAX_SLO_MS, 1, " ms")
        self.ttft.setToolTip("Time to first token the service must keep")
        self.tpot = _number(0.1, MAX_SLO_MS, 1, " ms")
        self.tpot.setToolTip("Time per output token (after the first) the service must keep")
        for label, widget in (("Precision", self.precision), ("KV-cache precision", self.kv_precision),
                              ("TTFT SLO", self.ttft), ("TPOT SLO", self.tpot)):
            form.addRow(label, widget)
        for combo in (self.precision, self.kv_precision):
            combo.currentIndexChanged.connect(self._changed)
        for spin in (self.ttft, self.tpot):
            spin.valueChanged.connect(self._changed)
        return box

    def _deployment_box(self) -> QGroupBox:
        box = QGroupBox("Deployment")
        column = QVBoxLayout(box)
        form = QFormLayout()
        self.mode = _combo(MODES)
        self.mode.setToolTip("Aggregated: every replica does prefill and decode. Disaggregated: prefill "
                             "replicas hand each request's KV cache to decode replicas. Auto: the "
                             "deployment search chooses the layout under the SLOs")
        self.mode.currentIndexChanged.connect(self._mode_changed)
        form.addRow("Mode", self.mode)
        column.addLayout(form)
        self.layouts = PhaseLayoutGrid()
        self.layouts.edited.connect(self._changed)
        column.addWidget(self.layouts)
        self.auto_note = QLabel("Every evaluation searches TP, PP, EP, DP and the batch of each phase for "
                                "the design's GPUs under the SLOs.")
        self.auto_note.setWordWrap(True)
        self.auto_note.setStyleSheet("color: #455a64;")
        column.addWidget(self.auto_note)
        self.search_button = QPushButton("Auto (search)")
        self.search_button.setToolTip("Search the best deployment (aggregated or disaggregated; TP, PP, EP, DP and "
                                      "batch per phase) for this design and workload under the SLOs, once; "
                                      "Use sets one of them")
        row = QHBoxLayout()
        row.addWidget(self.search_button)
        row.addStretch(1)
        column.addLayout(row)
        self._mode_changed()
        return box

    def _search_box(self) -> QGroupBox:
        """The deployment search's result (filled by the Workload panel; hidden before)."""
        box = QGroupBox("Deployment search")
        self.search_view = DeploymentSearchView(use_buttons=True)
        QVBoxLayout(box).addWidget(self.search_view)
        self.search_box = box
        box.hide()
        return box

    def _kv_box(self) -> QGroupBox:
        box = QGroupBox("KV cache")
        form = QFormLayout(box)
        self.kv_form = form
        self.placement = _combo(PLACEMENTS)
        self.placement.currentIndexChanged.connect(self._placement_changed)
        form.addRow("Placement", self.placement)
        self.host_gb = _number(0.0, MAX_HOST_GB_PER_GPU, 1, " GB")
        self.host_gb.setToolTip("Host memory per GPU the KV cache may take")
        self.host_link = _number(0.0, MAX_HOST_LINK_GBYTE_S, 1, " GB/s")
        self.host_link.setSpecialValueText("accelerator's")
        self.host_link.setToolTip("Bandwidth the KV cache is read back at from host memory; "
                                  "\"accelerator's\" (0): the host link the catalog gives the accelerator")
        self.hit_rate = _number(0.0, 100.0, 2, " %")
        self.hit_rate.setToolTip("Share of the prompt tokens the remote prefix cache serves, read over "
                                 "the storage path instead of computed")
        form.addRow("Host memory per GPU", self.host_gb)
        form.addRow("Host link", self.host_link)
        form.addRow("Prefix hit rate", self.hit_rate)
        for spin in (self.host_gb, self.host_link, self.hit_rate):
            spin.valueChanged.connect(self._changed)
        self._placement_changed()
        return box

    # --- reactions -----------------------------------------------------------------------
    def _changed(self, *_args) -> None:
        if not self._loading:
            self.edited.emit()

    def _mode_changed(self, *_args) -> None:
        mode = self.mode.currentData()
        self.layouts.setVisible(mode != AUTO)
        self.layouts.set_disaggregated(mode == "disaggregated")
        self.auto_note.setVisible(mode == AUTO)
        self._changed()

    def _placement_changed(self, *_args) -> None:
        placement = self.placement.currentData()
        self.kv_form.setRowVisible(self.host_gb, placement == "host")
        self.kv_form.setRowVisible(self.host_link, placement == "host")
        self.kv_form.setRowVisible(self.hit_rate, placement == "remote")
        self._changed()

    # --- workload <-> form ---------------------------------------------------------------
    def load(self, workload: InferenceWorkload) -> None:
        """Show ``workload`` (no ``edited`` signal)."""
        raw = inference_workload_to_dict(workload)
        self._loading = True
        try:
            self.name.setText(raw["name"])
            model = raw["model"]
            for key, _ in MODEL_INTS:
                self.spins[key].setValue(int(model[key]))
            for key, _ in MOE_INTS + MOE_LAYOUT_INTS:
                self.spins[key].setValue(int(model["moe"][key]))
            _select(self.activation, model["activation"])
            self.mla.setChecked("mla" in model)
            for key, spin in self.mla_spins.items():
                if "mla" in model:
                    spin.setValue(int(model["mla"][key]))
            _select(self.precision, raw["precision"])
            _select(self.kv_precision, raw["kv_cache_precision"])
            requests = raw["requests"]
            self.requests.set_classes([(c["input_tokens"], c["output_tokens"], c["share"])
                                       for c in requests["mix"]] if "mix" in requests else
                                      [(requests["input_tokens"], requests["output_tokens"], 1.0)])
            self.ttft.setValue(raw["slo"]["ttft_ms"])
            self.tpot.setValue(raw["slo"]["tpot_ms"])
            self._load_deployment(raw["deployment"])
            kv = raw.get("kv_cache", {"placement": "hbm"})
            _select(self.placement, kv["placement"])
            if kv["placement"] == "host":
                self.host_gb.setValue(kv["host_gb_per_gpu"])
                self.host_link.setValue(kv.get("host_link_gbyte_s") or 0.0)
            elif kv["placement"] == "remote":
                self.hit_rate.setValue(kv["prefix_hit_rate"] * 100.0)
        finally:
            self._loading = False

    def _load_deployment(self, deployment: dict[str, Any] | str) -> None:
        if deployment == AUTO:  # the rows keep what they held: a start if the user leaves auto
            _select(self.mode, AUTO)
            return
        _select(self.mode, deployment["mode"])
        for phase in PHASES:
            self.layouts.set_layout(phase, deployment.get(phase, deployment))

    def form_dict(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """The inference workload JSON the form describes; ``base`` is the design's inference
        workload JSON (None: there is none), whose keys the form does not show are kept."""
        raw = dict(base or {})
        model = dict(raw.get("model", {}))
        model["moe"] = dict(model.get("moe", {}))
        for key, _ in MODEL_INTS:
            model[key] = self.spins[key].value()
        for key, _ in MOE_INTS + MOE_LAYOUT_INTS:
            model["moe"][key] = self.spins[key].value()
        model["activation"] = self.activation.currentData()
        if self.mla.isChecked():
            model["mla"] = {key: spin.value() for key, spin in self.mla_spins.items()}
        else:
            model.pop("mla", None)
        classes = self.requests.classes()
        if len(classes) == 1:
            requests: dict[str, Any] = {"input_tokens": classes[0][0], "output_tokens": classes[0][1]}
        else:
            requests = {"mix": [{"input_tokens": a, "output_tokens": b, "share": share}
                                for a, b, share in classes]}
        return {**raw, "kind": "inference", "name": self.name.text().strip() or "inference",
                "model": model, "precision": self.precision.currentData(),
                "kv_cache_precision": self.kv_precision.currentData(), "requests": requests,
                "slo": {"ttft_ms": self.ttft.value(), "tpot_ms": self.tpot.value()},
                "deployment": self._deployment_dict(), "kv_cache": self._kv_dict()}

    def deployment_size(self) -> tuple[str, int, int] | None:
        """(how the GPUs add up, GPUs, largest TP) of the form's deployment; None for "auto"."""
        mode = self.mode.currentData()
        if mode == AUTO:
            return None
        phases = PHASES if mode == "disaggregated" else ("decode",)
        layouts = [self.layouts.layout_of(phase) for phase in phases]
        gpus = [one["tp"] * one["pp"] * one["dp"] for one in layouts]
        tp = max(one["tp"] for one in layouts)
        if mode == "disaggregated":
            return f"prefill {gpus[0]:,} + decode {gpus[1]:,} GPUs = <b>{sum(gpus):,}</b> GPUs", sum(gpus), tp
        one = layouts[0]
        return f"TP×PP×DP = {one['tp']}×{one['pp']}×{one['dp']} = <b>{gpus[0]:,}</b> GPUs", gpus[0], tp

    def _deployment_dict(self) -> dict[str, Any] | str:
        mode = self.mode.currentData()
        if mode == AUTO:
            return AUTO
        if mode == "aggregated":
            return {"mode": mode, **self.layouts.layout_of("decode")}
        return {"mode": mode, **{phase: self.layouts.layout_of(phase) for phase in PHASES}}

    def _kv_dict(self) -> dict[str, Any]:
        placement = self.placement.currentData()
        if placement == "host":
            out: dict[str, Any] = {"placement": placement, "host_gb_per_gpu": self.host_gb.value()}
            if self.host_link.value() > 0:
                out["host_link_gbyte_s"] = self.host_link.value()
            return out
        if placement == "remote":
            return {"placement": placement, "prefix_hit_rate": self.hit_rate.value() / 100.0}
        return {"placement": placement}
