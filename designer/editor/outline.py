"""Outline dock: the design hierarchy (blocks and components with their counts), and a search.

A design imported device by device has 100,000 components in one block: the tree is a model
the view asks only for the rows it shows (no item object per component), rebuilt in constant
time after an edit, and the search lists matching paths the same way.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import (QAbstractItemModel, QModelIndex, QPersistentModelIndex, QPoint, Qt, QTimer,
                            Signal)
from PySide6.QtWidgets import QHeaderView, QLabel, QLineEdit, QListView, QTreeView, QVBoxLayout, QWidget

from core.catalog import Catalog
from core.errors import DesignError
from core.model import Block, Design, Node
from designer.common import icons
from designer.common.format import out_of_service_text
from designer.editor.member_list import FILTER_DELAY_MS, RowsModel

PATH_ROLE = Qt.ItemDataRole.UserRole
_TOP = 0  # internal id of the top row (the design); a row below a block carries that block's id
COUNT_ROWS_MEASURED = 200  # rows read to size the count column


class OutlineRow(NamedTuple):
    """What the outline shows for one path (``text(1)`` is the count column)."""

    path: str
    label: str
    count: str

    def text(self, column: int) -> str:
        return self.label if column == 0 else self.count


class OutlineModel(QAbstractItemModel):
    """The design tree as rows read on demand. Each index carries the id of its parent block;
    a block's list of child ids (and their rows) is read once per reset, when first asked."""

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.design: Design | None = None
        self._ids: dict[str, int] = {}       # block path -> internal id (from 1)
        self._paths: list[str] = [""]        # internal id -> block path (0: the top row)
        self._keys: dict[str, list[str]] = {}     # block path -> its children's ids
        self._blocks: dict[str, list[bool]] = {}  # block path -> which children are blocks
        self._rows: dict[str, dict[str, int]] = {}

    def set_design(self, design: Design) -> None:
        self.beginResetModel()
        self.design = design
        self._ids, self._paths, self._keys, self._blocks, self._rows = {}, [""], {}, {}, {}
        self.endResetModel()

    def sync(self) -> bool:
        """Follow an edit of the design's structure with row signals, so the view keeps its open
        blocks and lays out only what changed (a reset makes it ask about every row of an open
        block again). Handles one run of rows removed or inserted per block; False when the
        change is anything else (the caller resets)."""
        for path in sorted(self._keys, key=lambda p: p.count("/") + bool(p)):
            if path not in self._keys:
                continue  # below a block removed just now
            block = self._item(path)
            if not isinstance(block, Block):
                return False
            keys = list(block.children)
            blocks = [isinstance(child, Block) for child in block.children.values()]
            if keys == self._keys[path] and blocks == self._blocks[path]:
                continue
            if not self._one_run(path, keys, blocks):
                return False
        return True

    def _one_run(self, path: str, keys: list[str], blocks: list[bool]) -> bool:
        old_keys, old_blocks = self._keys[path], self._blocks[path]
        start = next((n for n, (a, b) in enumerate(zip(old_keys, keys)) if a != b), min(len(old_keys), len(keys)))
        removed, inserted = len(old_keys) - len(keys), len(keys) - len(old_keys)
        if removed > 0 and old_keys[:start] + old_keys[start + removed:] == keys \
                and old_blocks[:start] + old_blocks[start + removed:] == blocks:
            self.beginRemoveRows(self.index_of(path), start, start + removed - 1)
            gone = [f"{path}/{key}" if path else key for key in old_keys[start:start + removed]]
            self._store(path, keys, blocks)
            for cached in list(self._keys):
                if any(cached == g or cached.startswith(g + "/") for g in gone):
                    del self._keys[cached], self._blocks[cached]
                    self._rows.pop(cached, None)
            self.endRemoveRows()
            return True
        if inserted > 0 and keys[:start] + keys[start + inserted:] == old_keys \
                and blocks[:start] + blocks[start + inserted:] == old_blocks:
            self.beginInsertRows(self.index_of(path), start, start + inserted - 1)
            self._store(path, keys, blocks)
            self.endInsertRows()
            return True
        return False

    def _store(self, path: str, keys: list[str], blocks: list[bool]) -> None:
        self._keys[path], self._blocks[path] = keys, blocks
        self._rows.pop(path, None)

    # --- paths and indexes ---------------------------------------------------------------
    def _block_id(self, path: str) -> int:
        found = self._ids.get(path)
        if found is None:
            found = self._ids[path] = len(self._paths)
            self._paths.append(path)
        return found

    def _children(self, path: str) -> list[str]:
        keys = self._keys.get(path)
        if keys is None:
            item = self._item(path)
            children = item.children if isinstance(item, Block) else {}
            keys = self._keys[path] = list(children)
            self._blocks[path] = [isinstance(child, Block) for child in children.values()]
        return keys

    def _item(self, path: str) -> Node | Block | None:
        if self.design is None:
            return None
        try:
            return self.design.resolve(path)
        except DesignError:
            return None

    def path_of(self, index: QModelIndex | QPersistentModelIndex) -> str:
        parent = index.internalId()
        if parent == _TOP:
            return ""
        parent_path = self._paths[parent]
        key = self._children(parent_path)[index.row()]
        return f"{parent_path}/{key}" if parent_path else key

    def index_of(self, path: str, column: int = 0) -> QModelIndex:
        """The index of ``path`` (an invalid one if the design has no such item)."""
        if self.design is None:
            return QModelIndex()
        if not path:
            return self.createIndex(0, column, _TOP)
        parent_path, _, key = path.rpartition("/")
        rows = self._rows.get(parent_path)
        if rows is None:
            rows = self._rows[parent_path] = {k: n for n, k in enumerate(self._children(parent_path))}
        row = rows.get(key)
        return QModelIndex() if row is None else self.createIndex(row, column, self._block_id(parent_path))

    def listed_blocks(self) -> list[str]:
        """The blocks whose rows the view has asked for since the last reset (only those can
        be open in it)."""
        return ["", *self._ids]

    # --- QAbstractItemModel --------------------------------------------------------------
    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        # The view asks this for every row of an open block when it lays them out (100,000 rows
        # of an import): no hasIndex (which would call rowCount each time), the bounds come from
        # the cached list of the block's children.
        if self.design is None or not 0 <= column < 2:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _TOP) if row == 0 else QModelIndex()
        parent_path = "" if parent.internalId() == _TOP else self.path_of(parent)
        if not 0 <= row < len(self._children(parent_path)):
            return QModelIndex()
        return self.createIndex(row, column, self._block_id(parent_path))

    def parent(self, index=QModelIndex()):  # noqa: D401 - Qt's overloaded name
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        return self.index_of(self._paths[index.internalId()])

    def _is_block(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        """Whether the row ``index`` is a block, from its parent's cached flags (the view asks
        for every row of an open block: a component row must cost no lookup in the design)."""
        if index.internalId() == _TOP:
            return True
        parent_path = self._paths[index.internalId()]
        self._children(parent_path)
        flags = self._blocks[parent_path]
        return 0 <= index.row() < len(flags) and flags[index.row()]

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        if self.design is None:
            return False
        if not parent.isValid():
            return True
        return parent.column() == 0 and self._is_block(parent) and bool(self._children(self.path_of(parent)))

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if self.design is None:
            return 0
        if not parent.isValid():
            return 1
        if parent.column() != 0 or not self._is_block(parent):
            return 0
        return len(self._children(self.path_of(parent)))

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 2

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ("Item", "Count")[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        path = self.path_of(index)
        if role == PATH_ROLE:
            return path
        item = self._item(path)
        if item is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.row(path).text(column)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return icons.icon(self._kind(item))
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            if isinstance(item, Block):
                return f"{path or item.label} ({item.role or 'block'})"
            return f"{path}: {item.catalog_id}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def row(self, path: str) -> OutlineRow:
        item = self._item(path)
        if not path:
            return OutlineRow("", (self.design.root.label or self.design.name) if self.design else "", "")
        if item is None:
            return OutlineRow(path, path.rpartition("/")[2], "")
        out = out_of_service_text(item.failed, item.drained)
        return OutlineRow(path, item.label, f"×{item.count:,}" + (f", {out}" if out else ""))

    def _kind(self, item: Node | Block) -> str:
        if isinstance(item, Block):
            return "block"
        return self.catalog.get(item.catalog_id).kind if item.catalog_id in self.catalog else "block"


class OutlineWidget(QWidget):
    reveal = Signal(str)  # design path of the clicked item
    # a right-click on a row: its path is revealed first (selected on the canvas), then this
    # asks for the item's menu at the global position
    menu_requested = Signal(str, QPoint)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.design: Design | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find a component or block…")
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.model = OutlineModel(catalog, self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)  # 100,000 rows without measuring each
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Sized to the counts shown (read from the first rows only, so a block of 100,000
        # children costs nothing more): sized for the longest plausible count instead, it left
        # the names "…" in a narrow column.
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setResizeContentsPrecision(COUNT_ROWS_MEASURED)
        self.tree.clicked.connect(lambda index: self.reveal.emit(self.model.path_of(index)))
        self.tree.activated.connect(lambda index: self.reveal.emit(self.model.path_of(index)))
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._row_menu)
        layout.addWidget(self.tree)
        self.matches_label = QLabel()
        self.matches_label.setStyleSheet("color: #546e7a;")
        self.matches_label.hide()
        layout.addWidget(self.matches_label)
        self.matches = QListView()
        self.matches.setUniformItemSizes(True)
        self.matches_model = RowsModel(self)
        self.matches.setModel(self.matches_model)
        self.matches.clicked.connect(lambda index: self.reveal.emit(self.matches_model.value(index.row())))
        self.matches.activated.connect(lambda index: self.reveal.emit(self.matches_model.value(index.row())))
        self.matches.hide()
        layout.addWidget(self.matches)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FILTER_DELAY_MS)
        self._timer.timeout.connect(self.find)
        self.search.textChanged.connect(lambda _text: self._timer.start())

    def rebuild(self, design: Design) -> None:
        """Show ``design`` (after any change), keeping which blocks are open and the scroll."""
        first = self.design is None
        expanded = [] if first else self._expanded_paths()
        scroll = self.tree.verticalScrollBar().value()
        self.design = design
        self.model.set_design(design)
        if first:
            expanded = [""] + [key for key, child in design.root.children.items() if isinstance(child, Block)]
        for path in expanded:
            index = self.model.index_of(path)
            if index.isValid():
                self.tree.setExpanded(index, True)
        self.tree.verticalScrollBar().setValue(scroll)
        if self.search.text().strip():
            self.find()

    def _row_menu(self, position: QPoint) -> None:
        index = self.tree.indexAt(position)
        path = self.model.path_of(index) if index.isValid() else ""
        if path:
            self.reveal.emit(path)
            self.menu_requested.emit(path, self.tree.viewport().mapToGlobal(position))

    def follow(self, design: Design, change_kind: str) -> None:
        """Show an edit of ``design``: its structure changed (rows in or out), or only values
        (names, counts: painted afresh), or nothing the outline shows (positions)."""
        if design is not self.design:
            self.rebuild(design)
            return
        if change_kind == "geometry":
            return
        if change_kind == "structure" and not self.model.sync():
            self.rebuild(design)
            return
        self.tree.viewport().update()
        if self.search.text().strip():
            self.find()

    def _expanded_paths(self) -> list[str]:
        """Open blocks, parents first."""
        paths = sorted(self.model.listed_blocks(), key=lambda p: (p.count("/") if p else -1, p))
        return [p for p in paths if self.tree.isExpanded(self.model.index_of(p))]

    def find(self) -> None:
        """List the paths of the components and blocks whose id, name or path holds the text."""
        self._timer.stop()
        needle = self.search.text().strip().lower()
        searching = bool(needle) and self.design is not None
        self.tree.setVisible(not searching)
        self.matches.setVisible(searching)
        self.matches_label.setVisible(searching)
        if not searching:
            return
        root = self.design.root
        found = [path for path, item in (*root.iter_blocks(), *root.iter_nodes())
                 if needle in path.lower() or (item.name and needle in item.name.lower())]
        self.matches_model.set_rows(found, lambda path: self._match_label(path))
        self.matches_label.setText(f"{len(found):,} found" if found else "nothing found")

    def _match_label(self, path: str) -> str:
        row = self.model.row(path)
        return f"{path}  {row.count}" if row.label == path.rpartition("/")[2] else f"{path} ({row.label})  {row.count}"

    def item_for(self, path: str) -> OutlineRow | None:
        """The outline's row for ``path`` (None if the design has no such item)."""
        index = self.model.index_of(path)
        return self.model.row(path) if index.isValid() else None
