"""File → New from Template: fat-tree, computing islands or super-node cluster.

The resulting GPU, switch and cable counts are shown live (generate + flatten, both cheap:
repetition is stored once) before anything touches the open design. Accepting replaces the
design's content as one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel, QLineEdit,
    QSpinBox, QStackedWidget, QVBoxLayout, QWidget,
)

from core.catalog import COMPUTE_KINDS, Catalog
from core.errors import DesignError
from core.flatten import flatten
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.generators.planes import MAX_PLANES
from core.model import Design

TEMPLATES = [("fat-tree", "Fat-tree (folded Clos)"),
             ("islands", "Computing islands (oversubscribed between pods)"),
             ("supernode", "Super-node cluster (NVL72, CloudMatrix384…)")]
PREVIEW_DELAY_MS = 120


def design_counts(design: Design, catalog: Catalog) -> dict[str, object]:
    """GPUs, compute nodes, switches by tier and cables of a generated design (from flatten)."""
    flat = flatten(design, catalog)
    tiers: dict[str, int] = {}
    for group in flat.groups:
        if group.spec.kind == "switch":
            name = group.node.tier or group.spec.role
            tiers[name] = tiers.get(name, 0) + group.multiplicity
    return {
        "gpus": flat.gpus,
        "nodes": sum(flat.groups[i].multiplicity for i in flat.compute_groups),
        "switches": tiers,
        "cables": sum(b.cables for b in flat.bundles),
    }


class TemplateWizard(QDialog):
    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle("New from Template")
        self.setMinimumWidth(520)
        self.design: Design | None = None
        self._fields: dict[str, dict] = {}
        layout = QVBoxLayout(self)
        head = QFormLayout()
        self.template = QComboBox()
        for key, text in TEMPLATES:
            self.template.addItem(text, key)
        head.addRow("Template", self.template)
        self.name = QLineEdit()
        self.name.setPlaceholderText("(automatic)")
        head.addRow("Name", self.name)
        layout.addLayout(head)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._fat_tree_page(islands=False))
        self.pages.addWidget(self._fat_tree_page(islands=True))
        self.pages.addWidget(self._supernode_page())
        layout.addWidget(self.pages)
        self.template.currentIndexChanged.connect(self.pages.setCurrentIndex)
        self.template.currentIndexChanged.connect(self._schedule)
        self.name.textChanged.connect(self._schedule)

        self.preview = QLabel()
        self.preview.setTextFormat(Qt.TextFormat.RichText)
        self.preview.setWordWrap(True)
        self.preview.setMinimumHeight(90)
        self.preview.setStyleSheet("background: #f5f7f9; border: 1px solid #cfd8dc; border-radius: 4px; padding: 8px;")
        layout.addWidget(self.preview)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self.update_preview)
        self.update_preview()

    # --- pages ---------------------------------------------------------------------------
    def _combo(self, kinds: tuple[str, ...], default: str, predicate=lambda s: True) -> QComboBox:
        combo = QComboBox()
        for spec in sorted((s for k in kinds for s in self.catalog.by_kind(k) if predicate(s)),
                           key=lambda s: s.name):
            combo.addItem(f"{spec.name} ({spec.id})", spec.id)
        index = combo.findData(default)
        combo.setCurrentIndex(max(0, index))
        combo.currentIndexChanged.connect(self._schedule)
        return combo

    def _int(self, value: int, lo: int, hi: int, step: int = 1) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(lo, hi)
        spin.setSingleStep(step)
        spin.setValue(value)
        spin.setGroupSeparatorShown(True)
        spin.valueChanged.connect(self._schedule)
        return spin

    def _ratio(self, value: float) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(1.0, 16.0)
        spin.setDecimals(2)
        spin.setSingleStep(0.5)
        spin.setSuffix(" : 1")
        spin.setValue(value)
        spin.valueChanged.connect(self._schedule)
        return spin

    def _planes(self) -> QSpinBox:
        spin = self._int(1, 1, MAX_PLANES)
        spin.setToolTip("Independent Clos planes sharing the servers, never joined at the top; "
                        "each server's NIC ports are divided among them")
        return spin

    def _fat_tree_page(self, islands: bool) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        has_nics = lambda s: bool(s.nics)  # noqa: E731 - only compute nodes with NICs fit a fabric
        scale_out = lambda s: s.role == "scale-out"  # noqa: E731
        fields = {
            "gpus": self._int(16_384 if islands else 1_024, 1, 10_000_000, 8),
            "server": self._combo(COMPUTE_KINDS, "DGX-H100", has_nics),
            "switch": self._combo(("switch",), "QM9700", scale_out),
            "tiers": QComboBox(),
            "oversubscription": self._ratio(1.0),
        }
        fields["tiers"].addItems(["auto", "2", "3"])
        fields["tiers"].currentIndexChanged.connect(self._schedule)
        form.addRow("GPUs", fields["gpus"])
        form.addRow("Server", fields["server"])
        form.addRow("Switch", fields["switch"])
        form.addRow("Tiers", fields["tiers"])
        form.addRow("Leaf oversubscription", fields["oversubscription"])
        fields["planes"] = self._planes()
        form.addRow("Planes", fields["planes"])
        if not islands:
            fields["rail_only"] = QCheckBox("no spine: one switch per rail, rails joined by NVLink")
            fields["rail_only"].toggled.connect(self._schedule)
            form.addRow("Rail-only", fields["rail_only"])
        if islands:
            fields["island_gpus"] = self._int(2_048, 8, 10_000_000, 8)
            fields["island_oversubscription"] = self._ratio(4.0)
            form.addRow("GPUs per island", fields["island_gpus"])
            form.addRow("Between islands", fields["island_oversubscription"])
        storage = QComboBox()
        storage.addItem("(no storage fabric)", "")
        for spec in sorted(self.catalog.by_kind("storage"), key=lambda s: s.name):
            storage.addItem(f"{spec.name} ({spec.id})", spec.id)
        storage.currentIndexChanged.connect(self._schedule)
        fields["storage"] = storage
        fields["storage_nodes"] = self._int(8, 1, 100_000)
        form.addRow("Storage", storage)
        form.addRow("Storage nodes", fields["storage_nodes"])
        fields["ufm_appliances"] = self._int(0, 0, 64)
        fields["ufm_appliances"].setToolTip(
            "InfiniBand fabric managers on free leaf ports (the DGX SuperPOD uses 4 and one "
            "DGX fewer per scalable unit to free the ports)")
        form.addRow("UFM appliances", fields["ufm_appliances"])
        self._fields["islands" if islands else "fat-tree"] = fields
        return page

    def _supernode_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        system = self._combo(("supernode",), "GB200-NVL72")
        switch = QComboBox()
        switch.addItem("(default: one at its NICs' speed)", "")
        for spec in sorted((s for s in self.catalog.by_kind("switch") if s.role == "scale-out"),
                           key=lambda s: s.name):
            switch.addItem(f"{spec.name} ({spec.id})", spec.id)
        switch.currentIndexChanged.connect(self._schedule)
        count = self._int(8, 1, 100_000)
        form.addRow("System", system)
        form.addRow("Count", count)
        form.addRow("Scale-out switch", switch)
        planes = self._planes()
        form.addRow("Planes", planes)
        self._fields["supernode"] = {"system": system, "count": count, "switch": switch,
                                     "planes": planes}
        return page

    # --- generation ----------------------------------------------------------------------
    @property
    def template_key(self) -> str:
        return self.template.currentData()

    def fields(self, key: str | None = None) -> dict:
        return self._fields[key or self.template_key]

    def generate(self) -> Design:
        key = self.template_key
        f = self.fields(key)
        name = self.name.text().strip() or None
        if key == "supernode":
            return generate_supernode(SupernodeOptions(f["system"].currentData(), f["count"].value(),
                                                       f["switch"].currentData() or None, name,
                                                       f["planes"].value()), self.catalog)
        storage = f["storage"].currentData() or None
        options = FatTreeOptions(
            gpus=f["gpus"].value(), server=f["server"].currentData(), switch=f["switch"].currentData(),
            tiers=f["tiers"].currentText(), oversubscription=f["oversubscription"].value(),
            island_gpus=f["island_gpus"].value() if key == "islands" else None,
            island_oversubscription=f["island_oversubscription"].value() if key == "islands" else 1.0,
            storage=storage, storage_nodes=f["storage_nodes"].value() if storage else 0,
            ufm_appliances=f["ufm_appliances"].value(), name=name, planes=f["planes"].value(),
            rail_only=key == "fat-tree" and f["rail_only"].isChecked())
        return generate_fat_tree(options, self.catalog)

    def _schedule(self, *_args) -> None:
        self._timer.start()

    def update_preview(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            design = self.generate()
            counts = design_counts(design, self.catalog)
        except DesignError as exc:
            self.design = None
            self.preview.setText(f"<span style='color:#c62828'><b>Cannot build this:</b> {exc}</span>")
            ok.setEnabled(False)
            return
        self.design = design
        tiers = ", ".join(f"{t} {n:,}" for t, n in counts["switches"].items()) or "none"
        total = sum(counts["switches"].values())
        self.preview.setText(
            f"<b>{design.name}</b><br>"
            f"<b>{counts['gpus']:,}</b> GPUs in <b>{counts['nodes']:,}</b> servers / super-nodes<br>"
            f"<b>{total:,}</b> switches ({tiers})<br>"
            f"<b>{counts['cables']:,}</b> cables")
        ok.setEnabled(True)

    def accept(self) -> None:
        self._timer.stop()
        self.update_preview()
        if self.design is not None:
            super().accept()
