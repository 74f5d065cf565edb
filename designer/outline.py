"""Outline dock: the design hierarchy (blocks and components with their counts)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from core.catalog import Catalog
from core.model import Block, Design, Node
from designer import icons

PATH_ROLE = Qt.ItemDataRole.UserRole


class OutlineWidget(QTreeWidget):
    reveal = Signal(str)  # design path of the clicked item

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.setColumnCount(2)
        self.setHeaderLabels(["Item", "Count"])
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.itemClicked.connect(lambda item, _c: self.reveal.emit(item.data(0, PATH_ROLE)))
        self.itemActivated.connect(lambda item, _c: self.reveal.emit(item.data(0, PATH_ROLE)))

    def rebuild(self, design: Design) -> None:
        expanded = {self._path(i) for i in self._all_items() if i.isExpanded()}
        first = not self.topLevelItemCount()
        self.clear()
        root = QTreeWidgetItem([design.root.label or design.name, ""])
        root.setIcon(0, icons.icon("block"))
        root.setData(0, PATH_ROLE, "")
        self.addTopLevelItem(root)
        self._add_children(root, design.root, "")
        root.setExpanded(True)
        for item in self._all_items():
            if first and item.childCount() and self._path(item).count("/") < 1:
                item.setExpanded(True)
            elif self._path(item) in expanded:
                item.setExpanded(True)

    def _add_children(self, parent: QTreeWidgetItem, block: Block, prefix: str) -> None:
        for child_id, child in block.children.items():
            path = prefix + child_id
            if isinstance(child, Block):
                item = QTreeWidgetItem([child.label, f"×{child.count:,}"])
                item.setIcon(0, icons.icon("block"))
                item.setToolTip(0, f"{path} ({child.role or 'block'})")
                self._add_children(item, child, path + "/")
            else:
                item = QTreeWidgetItem([child.label, f"×{child.count:,}"])
                item.setIcon(0, icons.icon(self._kind(child)))
                item.setToolTip(0, f"{path}: {child.catalog_id}")
            item.setData(0, PATH_ROLE, path)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            parent.addChild(item)

    def _kind(self, node: Node) -> str:
        return self.catalog.get(node.catalog_id).kind if node.catalog_id in self.catalog else "block"

    def _all_items(self) -> list[QTreeWidgetItem]:
        out = []
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop()
            out.append(item)
            stack.extend(item.child(i) for i in range(item.childCount()))
        return out

    @staticmethod
    def _path(item: QTreeWidgetItem) -> str:
        return item.data(0, PATH_ROLE) or ""

    def item_for(self, path: str) -> QTreeWidgetItem | None:
        for item in self._all_items():
            if self._path(item) == path:
                return item
        return None
