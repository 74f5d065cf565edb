"""File > Import Fabric Dump… and File > Export > GraphML / draw.io / topology file.

The window's side of core/interop: the import reads and folds a dump on a worker thread (a
65,536-HCA dump takes seconds) and opens the design untitled, after asking to save unsaved work
as File > Open does; the exports write the document's design by the chosen format.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLineEdit, QMessageBox, QPushButton, QWidget)

from core.errors import DesignError
from designer.common.busy import Cancelled, run_busy
from designer.common.qaction import make_action

STATUS_MS = 5000
RECOGNISE = "(recognise from the description)"
NONE = "(none: map every host in the mapping file)"
# label, file extension, what the file dialog filters on
EXPORTS = (("Design as &GraphML (devices)…", ".graphml", "device"),
           ("Design as GraphML (&blocks)…", ".graphml", "block"),
           ("Diagram as &draw.io…", ".drawio", None),
           ("InfiniBand &topology file…", ".topo", None),
           ("&ASTRA-sim inputs (folder)…", ".astra", None))


class ImportDumpDialog(QDialog):
    """The dump file, the catalog server for hosts, the switch, and an optional mapping file."""

    def __init__(self, catalog, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import fabric dump")
        form = QFormLayout(self)
        self.dump = self._file_row(form, "ibnetdiscover dump:", "Fabric dumps (*.txt *.topo *.out);;All files (*)")
        self.server = QComboBox()
        self.server.addItem(NONE, None)
        for spec in sorted(catalog.by_kind("server") + catalog.by_kind("supernode"), key=lambda s: s.id):
            self.server.addItem(f"{spec.id} — {spec.name}", spec.id)
        form.addRow("Hosts are:", self.server)
        self.switch = QComboBox()
        self.switch.addItem(RECOGNISE, None)
        for spec in sorted(catalog.by_kind("switch"), key=lambda s: s.id):
            self.switch.addItem(f"{spec.id} — {spec.name}", spec.id)
        form.addRow("Switches are:", self.switch)
        self.mapping = self._file_row(form, "Mapping file (optional):", "Mapping files (*.json)")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.setMinimumWidth(560)

    def _file_row(self, form: QFormLayout, label: str, filter_text: str) -> QLineEdit:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        edit = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda: self._browse(edit, filter_text))
        layout.addWidget(edit, 1)
        layout.addWidget(browse)
        form.addRow(label, row)
        return edit

    def _browse(self, edit: QLineEdit, filter_text: str) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Choose a file", edit.text(), filter_text)
        if name:
            edit.setText(name)


class InteropController(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.import_action = make_action(window, "&Import Fabric Dump…", self.import_dialog,
                                         tip="Make a design from an InfiniBand fabric's ibnetdiscover dump")
        self.export_actions = [make_action(window, label, lambda _=False, e=ext, lv=level: self.export_dialog(e, lv))
                               for label, ext, level in EXPORTS]

    # --- import ----------------------------------------------------------------------------------
    def import_dialog(self) -> None:
        dialog = ImportDumpDialog(self._window.catalog, self._window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.import_dump(Path(dialog.dump.text()), dialog.server.currentData(), dialog.switch.currentData(),
                         Path(dialog.mapping.text()) if dialog.mapping.text().strip() else None)

    def import_dump(self, dump: Path, server: str | None, switch: str | None, mapping: Path | None) -> bool:
        from core.interop.fabric_import import design_from_fabric  # noqa: PLC0415
        from core.interop.fabric_map import fabric_map  # noqa: PLC0415
        from core.interop.ibnetdiscover_read import read_ibnetdiscover  # noqa: PLC0415

        window = self._window
        if not window.maybe_save():
            return False
        catalog = window.catalog

        def work():
            rules = fabric_map(mapping, catalog, server, switch)
            return design_from_fabric(read_ibnetdiscover(dump), catalog, rules)

        try:
            design, summary = run_busy(window, f"Importing {dump.name}…", work, cancellable=True,
                                       what="importing the fabric")
        except Cancelled:
            return False
        except DesignError as exc:
            QMessageBox.critical(window, "Cannot import the fabric", str(exc))
            return False
        window.recovery.discard()
        window.load_design(design, None)
        window.statusBar().showMessage(f"Imported {dump.name}: {summary.text()}", STATUS_MS * 2)
        return True

    # --- export ----------------------------------------------------------------------------------
    def export_dialog(self, ext: str, level: str | None) -> None:
        window = self._window
        base = window.document.path.with_suffix("") if window.document.path else Path(window.document.design.name or "design")
        name, _ = QFileDialog.getSaveFileName(window, "Export", f"{base}{ext}", f"{ext[1:]} (*{ext})")
        if not name:
            return
        path = Path(name) if name.lower().endswith(ext) else Path(name + ext)
        try:
            self.export(path, level or "device")
        except DesignError as exc:
            QMessageBox.critical(window, "Cannot export", str(exc))
            return
        window.statusBar().showMessage(f"Exported {path}", STATUS_MS)

    def export(self, path: Path, level: str = "device") -> None:
        from core.interop.exports import write_data_export  # noqa: PLC0415

        window = self._window
        design = window.document.design.snapshot()
        run_busy(window, f"Exporting {path.name}…",
                 lambda: write_data_export(design, window.catalog, path, level), what="exporting")
