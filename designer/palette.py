"""Component palette: the catalog grouped by kind, searchable, dragged onto the canvas."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from core.catalog import KINDS, Catalog
from designer import icons, mime

KIND_TITLES = {
    "accelerator": "Accelerators", "server": "Servers", "supernode": "Super-nodes",
    "switch": "Switches", "nic": "NICs", "dpu": "DPUs", "transceiver": "Transceivers",
    "cable": "Cables", "storage": "Storage", "appliance": "Appliances",
}
ID_ROLE = Qt.ItemDataRole.UserRole


class _CatalogTree(QTreeWidget):
    def mimeData(self, items) -> QMimeData:
        data = QMimeData()
        ids = [i.data(0, ID_ROLE) for i in items if i.data(0, ID_ROLE)]
        if ids:
            data.setData(mime.CATALOG_ID, ids[0].encode("utf-8"))
            data.setText(ids[0])
        return data

    def mimeTypes(self) -> list[str]:
        return [mime.CATALOG_ID]


class PaletteWidget(QWidget):
    place_requested = Signal(str)  # catalog id (double-click: place at the canvas centre)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search components (name, vendor, id)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        layout.addWidget(self.search)
        self.tree = _CatalogTree()
        self.tree.setHeaderHidden(True)
        # Catalog names are long ("8x A100 SXM4 80GB node with 8 x 200 GbE RoCE (…; MosaicML
        # A100)"); eliding in the middle keeps both the model and the distinguishing tail.
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setIndentation(14)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setRootIsDecorated(True)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        layout.addWidget(self.tree)
        self._populate()

    def _populate(self) -> None:
        for kind in KINDS:
            specs = sorted(self.catalog.by_kind(kind), key=lambda s: (s.vendor, s.name))
            if not specs:
                continue
            group = QTreeWidgetItem([f"{KIND_TITLES.get(kind, kind)} ({len(specs)})"])
            group.setIcon(0, icons.icon(kind))
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for spec in specs:
                item = QTreeWidgetItem([spec.name])
                item.setIcon(0, icons.icon(kind))
                item.setData(0, ID_ROLE, spec.id)
                item.setToolTip(0, f"<b>{spec.name}</b><br>{spec.vendor} · id <code>{spec.id}</code><br>"
                                   f"source: {spec.source}<br>confidence: {spec.confidence}")
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                              | Qt.ItemFlag.ItemIsDragEnabled)
                group.addChild(item)
            self.tree.addTopLevelItem(group)
            group.setExpanded(kind in ("server", "supernode", "switch", "storage"))

    def filter(self, text: str) -> None:
        needle = text.strip().lower()
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            shown = 0
            for c in range(group.childCount()):
                item = group.child(c)
                spec = self.catalog.get(item.data(0, ID_ROLE))
                hit = not needle or any(needle in s.lower() for s in (spec.name, spec.vendor, spec.id))
                item.setHidden(not hit)
                shown += hit
            group.setHidden(shown == 0)
            if needle:
                group.setExpanded(True)

    def item_for(self, catalog_id: str) -> QTreeWidgetItem | None:
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for c in range(group.childCount()):
                if group.child(c).data(0, ID_ROLE) == catalog_id:
                    return group.child(c)
        return None

    def mime_for(self, catalog_id: str) -> QMimeData:
        """The MIME data a drag of ``catalog_id`` carries (tests synthesise drops with it)."""
        item = self.item_for(catalog_id)
        if item is None:
            raise KeyError(catalog_id)
        return self.tree.mimeData([item])

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        catalog_id = item.data(0, ID_ROLE)
        if catalog_id:
            self.place_requested.emit(catalog_id)
