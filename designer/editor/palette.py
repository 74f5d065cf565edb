"""Component palette: the catalog grouped by kind, searchable, dragged onto the canvas."""

from __future__ import annotations

import re

from PySide6.QtCore import QMimeData, QModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QLineEdit, QStyledItemDelegate, QStyleOptionViewItem, QTreeWidget, QTreeWidgetItem,
    QVBoxLayout, QWidget,
)

from core.catalog import KINDS, Catalog
from designer.common import icons, mime

KIND_TITLES = {
    "accelerator": "Accelerators", "server": "Servers", "supernode": "Super-nodes",
    "switch": "Switches", "nic": "NICs", "dpu": "DPUs", "transceiver": "Transceivers",
    "cable": "Cables", "storage": "Storage", "appliance": "Appliances",
}
ID_ROLE = Qt.ItemDataRole.UserRole
KIND_ROLE = Qt.ItemDataRole.UserRole + 1  # on group rows
NAME_LINES = 2  # a long name wraps onto a second line; the rest is elided (the tooltip has all)
WORD_JOINER = "\u2060"  # invisible; forbids a line break on either side of the character it hugs
_JOINED = re.compile(r"(?<=\S)([-/])(?=\S)")


def unbroken_model_numbers(name: str) -> str:
    """``name`` with no line break allowed at a hyphen or slash between letters or digits, so
    wrapping never splits "Q3400-RA" or "QM9700/QM9790" (breaks fall at spaces only)."""
    return _JOINED.sub(WORD_JOINER + r"\1" + WORD_JOINER, name)


def group_title(kind: str, shown: int) -> str:
    return f"{KIND_TITLES.get(kind, kind)} ({shown})"


class _WrappedNameDelegate(QStyledItemDelegate):
    """QTreeView asks for a row's height without the column's width, so a word-wrapped name
    would stay one elided line: give the width the name is drawn in, and stop at NAME_LINES."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        view = self.parent()
        depth = 0
        parent = index.parent()
        while parent.isValid():
            depth += 1
            parent = parent.parent()
        indent = view.indentation() * (depth + (1 if view.rootIsDecorated() else 0))
        one_line = super().sizeHint(option, index).height()
        sized = QStyleOptionViewItem(option)
        sized.rect = QRect(0, 0, max(1, view.columnWidth(0) - indent), one_line)
        hint = super().sizeHint(sized, index)
        extra = (NAME_LINES - 1) * option.fontMetrics.lineSpacing()
        return QSize(hint.width(), min(hint.height(), one_line + extra))


class _CatalogTree(QTreeWidget):
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.scheduleDelayedItemsLayout()  # row heights depend on the width the names wrap in

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
        # Catalog names are long ("Quantum-2 QM9700/QM9790 (InfiniBand NDR)", "8x A100 SXM4 80GB
        # node with 8 x 200 GbE RoCE (…; MosaicML A100)"): wrap them at word breaks so the model
        # number stays whole and the distinguishing tail stays readable; the tooltip has all.
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setItemDelegate(_WrappedNameDelegate(self.tree))
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
            group = QTreeWidgetItem([group_title(kind, len(specs))])
            group.setData(0, KIND_ROLE, kind)
            group.setIcon(0, icons.icon(kind))
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for spec in specs:
                item = QTreeWidgetItem([unbroken_model_numbers(spec.name)])
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
            group.setText(0, group_title(group.data(0, KIND_ROLE), shown))  # "Switches (3)" while filtering
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
