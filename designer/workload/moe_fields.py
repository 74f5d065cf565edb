"""The training form's fields for today's mixtures of experts (core/workload.py): shared experts,
leading dense layers, node-limited routing, capacity factor, expert-load imbalance,
multi-token prediction, the attention head size, multi-head latent attention, and activation
offload. One group box the Workload tab adds under the model; it reads and writes the
workload's JSON form, so keys it leaves at their defaults stay out of the file."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QVBoxLayout, QWidget

from core.workload import FLOAT_BOUNDS, INTEGER_BOUNDS
from designer.workload.model_fields import MLA_INTS, MOE_LAYOUT_INTS, int_spin

# (key, label, tooltip) of the MoE routing integers and the model's own additions
MOE_ROUTING_INTS = [("route_nodes", "Routing limit (nodes, 0 = none)",
                     "A token's experts span at most this many nodes of the EP group "
                     "(DeepSeek-V3: 4)")]
MODEL_EXTRA_INTS = [("mtp_depth", "Multi-token prediction depth",
                     "Extra prediction modules on the last stage (DeepSeek-V3: 1)"),
                    ("head_size", "Head size (0 = hidden / heads)",
                     "Attention head size when it is not hidden / heads (Qwen3-235B: 128)")]
PAR_EXTRA_INTS = [("expert_tp", "Expert TP (0 = TP)",
                   "Tensor parallelism of the expert layers; set, expert TP x EP fold over the "
                   "stage's TP x DP x CP GPUs")]
MOE_FLOATS = [("capacity_factor", "Capacity factor (0 = dropless)",
               "Tokens one expert takes at most, as a multiple of its balanced share"),
              ("imbalance", "Expert-load imbalance (0 = stack's)",
               "Routed tokens of the busiest expert-parallel rank over the mean")]


class MoeFields(QWidget):
    """MoE, MTP and MLA fields of a training workload, and its activation-offload switch."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        box = QGroupBox("Mixture of experts and attention")
        form = QFormLayout(box)
        self.ints = {}
        for key, label in MOE_LAYOUT_INTS:
            self.ints[key] = self._int(key)
            form.addRow(label, self.ints[key])
        for key, label, tip in MOE_ROUTING_INTS + MODEL_EXTRA_INTS + PAR_EXTRA_INTS:
            self.ints[key] = self._int(key, tip)
            form.addRow(label, self.ints[key])
        self.floats = {}
        for key, label, tip in MOE_FLOATS:
            spin = QDoubleSpinBox()
            spin.setRange(*FLOAT_BOUNDS[key])
            spin.setDecimals(2)
            spin.setSingleStep(0.05)
            spin.setToolTip(tip)
            spin.valueChanged.connect(self.changed)
            self.floats[key] = spin
            form.addRow(label, spin)
        self.offload = QCheckBox("Offload activations to host memory")
        self.offload.setToolTip("Stored activations wait in host memory between forward and backward, "
                                "over the accelerator's host link")
        self.offload.toggled.connect(self.changed)
        form.addRow("", self.offload)
        layout.addWidget(box)
        self.mla = QGroupBox("Multi-head latent attention (MLA)")
        self.mla.setCheckable(True)
        self.mla.setToolTip("DeepSeek-V2/V3: queries and keys/values pass through low-rank latents")
        mla_form = QFormLayout(self.mla)
        self.mla_spins = {}
        for key, label, _low in MLA_INTS:
            self.mla_spins[key] = self._int(key)
            mla_form.addRow(label, self.mla_spins[key])
        self.mla.toggled.connect(self.changed)
        layout.addWidget(self.mla)

    def _int(self, key: str, tip: str = ""):
        spin = int_spin(*INTEGER_BOUNDS[key])
        if tip:
            spin.setToolTip(tip)
        spin.valueChanged.connect(self.changed)
        return spin

    def widgets(self) -> list[QWidget]:
        return [*self.ints.values(), *self.floats.values(), self.offload, self.mla]

    def load(self, model: dict[str, Any], parallelism: dict[str, Any] | str) -> None:
        """Show a workload's JSON form (``model``, ``parallelism``)."""
        moe = model.get("moe", {})
        par = parallelism if isinstance(parallelism, dict) else {}
        for key, spin in self.ints.items():
            spin.blockSignals(True)
            spin.setValue(int(moe.get(key, model.get(key, par.get(key, 0))) or 0))
            spin.blockSignals(False)
        for key, spin in self.floats.items():
            spin.blockSignals(True)
            spin.setValue(float(moe.get(key, 0.0)))
            spin.blockSignals(False)
        mla = model.get("mla")
        self.mla.blockSignals(True)
        self.mla.setChecked(mla is not None)
        self.mla.blockSignals(False)
        for key, spin in self.mla_spins.items():
            if mla is not None:
                spin.blockSignals(True)
                spin.setValue(int(mla[key]))
                spin.blockSignals(False)
        self.offload.blockSignals(True)
        self.offload.setChecked(isinstance(parallelism, dict) and bool(parallelism.get("activation_offload")))
        self.offload.blockSignals(False)

    def write(self, model: dict[str, Any], parallelism: dict[str, Any] | str) -> None:
        """Put the fields into a workload's JSON form (``model`` with its ``moe`` dict,
        ``parallelism`` unless it is "auto"); keys at their defaults are left out."""
        moe = model.setdefault("moe", {})
        for key, _ in MOE_LAYOUT_INTS:
            moe[key] = self.ints[key].value()
        for key, _, _ in MOE_ROUTING_INTS:
            _set_or_drop(moe, key, self.ints[key].value(), 0)
        for key, _, _ in MOE_FLOATS:
            _set_or_drop(moe, key, self.floats[key].value(), 0.0)
        for key, _, _ in MODEL_EXTRA_INTS:
            _set_or_drop(model, key, self.ints[key].value(), 0)
        if self.mla.isChecked():
            model["mla"] = {key: spin.value() for key, spin in self.mla_spins.items()}
        else:
            model.pop("mla", None)
        if isinstance(parallelism, dict):
            _set_or_drop(parallelism, "activation_offload", self.offload.isChecked(), False)
            for key, _, _ in PAR_EXTRA_INTS:
                _set_or_drop(parallelism, key, self.ints[key].value(), 0)


def _set_or_drop(raw: dict[str, Any], key: str, value: Any, default: Any) -> None:
    if value == default:
        raw.pop(key, None)
    else:
        raw[key] = value
