"""The scene shows one block of the design (the "current" block) and follows model changes.

One card per child (component or block) and one line per link bundle owned by the current
block, whatever the multiplicities: a 100,000-GPU fabric is a handful of items. A link whose
end lies inside a child block is drawn to that child's card. An expanded block card also draws
its own children and links, from data the scene hands it (``_update_card``).

A block drawn device by device (an import: 100,000 components of count 1 and a link per cabled
pair) is too big for an item per child: above designer.canvas.aggregate's thresholds the
scene draws it aggregated, one card per group of identical children and one line per bundle
of links between two groups, with a note saying so. Selection then has two levels: a group
card or bundle (the Inspector lists its members), or members picked from such a list
(``select``), which every action (Inspector, delete, copy, group, step inside) works on as on
the cards of a small block.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from itertools import compress, repeat
from typing import Iterator

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGraphicsScene

from core.catalog import Catalog
from core.errors import DesignError
from core.failure_paths import units_in_design
from core.model import Block, Change, Design, Node
from designer.canvas.aggregate import BlockSummarizer, Summary, needs_aggregation
from designer.canvas.aggregate_items import BundleItem, GroupCard, group_name
from designer.canvas.aggregated_scene import AggregatedBlock, group_positions
from designer.canvas.items import BlockItem, Card, ComponentItem
from designer.canvas.links import PARALLEL_SPACING, ExternalLinkItem, LinkItem
from designer.canvas.partition_tags import PartitionTagger
from designer.canvas.preview import PreviewChild, PreviewLink
from designer.common import style

SUMMARY_ITEMS = 3
_END_A, _END_B = operator.attrgetter("a"), operator.attrgetter("b")


class DesignScene(AggregatedBlock, QGraphicsScene):
    block_changed = Signal(str)
    # What the view's banner says about an aggregated block ("" when drawn item by item).
    note_changed = Signal(str)

    def __init__(self, design: Design, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.design = design
        self.catalog = catalog
        self.block_path = ""
        self.snapping = False      # true while the user drags (snap to grid)
        self.show_grid = True      # off for exports
        self._cards: dict[str, Card] = {}
        self._links: dict[str, LinkItem] = {}
        self._external: list[ExternalLinkItem] = []
        # An aggregated current block: its summary, items, and the members picked in lists.
        self.summary: Summary | None = None
        self._summarizers: dict[str, BlockSummarizer] = {}  # by block path, kept while nearby
        self._group_cards: dict[str, GroupCard] = {}
        self._bundle_items: dict[str, BundleItem] = {}
        self.note = ""
        self._picked_ids: list[str] = []
        self._picked_links: list[str] = []
        self._tagger = PartitionTagger()  # which partition each card runs (several workloads)
        self._tags: dict[str, tuple] = {}   # of the block shown: child id -> its card's tags
        # Connected first, so the picks are current when the other listeners hear the signal.
        self.selectionChanged.connect(self._drop_unselected_picks)
        self.sync()

    # --- navigation ----------------------------------------------------------------------
    def set_design(self, design: Design) -> None:
        self.design = design
        self._summarizers.clear()
        self.set_block("")

    def set_block(self, path: str) -> None:
        self.design.block(path)  # raises DesignError for a bad path
        self.block_path = path
        with self._selection_announced_after():
            self.clear()
            self._cards.clear()
            self._links.clear()
            self._external.clear()
            self._group_cards.clear()
            self._bundle_items.clear()
            self.summary = None
            self._picked_ids, self._picked_links = [], []
        self.sync()
        self.block_changed.emit(path)

    def current_block(self) -> Block:
        return self.design.block(self.block_path)

    def child_path(self, key: str) -> str:
        return f"{self.block_path}/{key}" if self.block_path else key

    @contextmanager
    def _selection_announced_after(self) -> Iterator[None]:
        """Hold the selection signal while items follow the model, then emit it once if the
        selection changed. Qt announces a selected item's removal at once, while the model
        already lost it and other items are still stale: listeners (the Inspector) would be
        handed ids of links or cards that no longer exist."""
        if self.signalsBlocked():  # a caller announces (select()) or nobody listens
            yield
            return
        before = self._selection_keys()
        self.blockSignals(True)
        try:
            yield
        finally:
            self.blockSignals(False)
        if self._selection_keys() != before:
            self.selectionChanged.emit()

    def _selection_keys(self) -> frozenset[tuple[str, str]]:
        items = frozenset((type(item).__name__, item.key) for item in self.selectedItems()
                          if isinstance(item, (Card, LinkItem, GroupCard, BundleItem)))
        return items | {("pick", key) for key in self._picked_ids} | {("pick-link", key) for key in self._picked_links}

    # --- model → items ---------------------------------------------------------------------
    def on_change(self, change: Change) -> None:
        # Whatever block the change is in, every card is refreshed: an edit inside a child
        # block (change.block_path "su") must redraw that block's expanded card up here.
        self.sync()

    def sync(self) -> None:
        """Bring the items in line with the model (add, update, remove; never rebuild all)."""
        try:
            block = self.current_block()
        except DesignError:
            # The current block vanished (undo of a group, a generator run): step out to the
            # nearest block that still exists.
            parts = self.block_path.split("/")
            while parts:
                parts.pop()
                try:
                    self.design.block("/".join(parts))
                    break
                except DesignError:
                    continue
            self.set_block("/".join(parts))
            return
        with self._selection_announced_after():
            self._prune_summarizers()
            if needs_aggregation(block):
                self._clear_items()
                self._sync_summary(block)
            else:
                self._clear_summary()
                self._sync_items(block)
        self._update_scene_rect()
        note = self._note_text(self.summary)
        if note != self.note:
            self.note = note
            self.note_changed.emit(note)

    def _clear_items(self) -> None:
        """Drop the item-by-item cards and links (the block became too big for them)."""
        for key in list(self._cards):
            self._remove_card(key)
        for item in self._external:
            item.detach()
            self.removeItem(item)
        self._external = []

    def _sync_items(self, block: Block) -> None:
        self._tags = self._tagger.tags(self.design, self.block_path)
        for key in list(self._cards):
            child = block.children.get(key)
            card = self._cards[key]
            if child is None or isinstance(child, Block) != isinstance(card, BlockItem):
                self._remove_card(key)
        for key, child in block.children.items():
            card = self._cards.get(key)
            if card is None:
                card = BlockItem(key, self.child_path(key)) if isinstance(child, Block) else ComponentItem(
                    key, self.child_path(key))
                self._cards[key] = card
                self.addItem(card)
            self._update_card(card, child)
        self._sync_links(block)
        self._sync_external_links()

    def _remove_card(self, key: str) -> None:
        card = self._cards.pop(key)
        for link in list(card.links):
            if isinstance(link, ExternalLinkItem):
                link.detach()
                self._external.remove(link)
                self.removeItem(link)
            else:
                self._remove_link(link.key)
        self.removeItem(card)

    def _remove_link(self, key: str) -> None:
        item = self._links.pop(key, None)
        if item is not None:
            item.detach()
            self.removeItem(item)

    def _update_card(self, card: Card, child: Node | Block) -> None:
        if isinstance(child, Block):
            assert isinstance(card, BlockItem)
            if needs_aggregation(child):
                children, links = self._preview_of_summary(self._summarizer(card.path).summarize(child))
            else:
                children = [PreviewChild(self._kind_of(c), c.label, c.count, c.x, c.y)
                            for c in child.children.values()]
                links = self._preview_links(child)
            card.set_data(child.label, child.role, child.count, child.collapsed, self._summary(children),
                          children, links)
        else:
            assert isinstance(card, ComponentItem)
            spec = self.catalog.get(child.catalog_id) if child.catalog_id in self.catalog else None
            subtitle = spec.name if spec else f"unknown id {child.catalog_id}"
            card.set_data(child.label, subtitle, spec.kind if spec else "block", child.count, child.tier)
        card.set_partition_tags(self._tags.get(card.key, ()))
        if child.failed or child.drained or card.out_of_service[:2] != (0, 0):
            units = units_in_design(self.design, card.path) if child.failed or child.drained else 0
            card.set_out_of_service(child.failed, child.drained, units)
        if card.pos() != QPointF(child.x, child.y):
            card.setPos(child.x, child.y)

    @staticmethod
    def _summary(children: list[PreviewChild]) -> str:
        parts = [f"{c.label} ×{c.count:,}" for c in children[:SUMMARY_ITEMS]]
        if len(children) > SUMMARY_ITEMS:
            parts.append(f"+{len(children) - SUMMARY_ITEMS} more")
        return " · ".join(parts) or "empty"

    @staticmethod
    def _preview_links(block: Block) -> list[PreviewLink]:
        """The block's links as pairs of child indexes for its expanded card. An end inside a
        nested block ("su/leaf") lands on that block; a link with both ends inside one nested
        block has nothing to join at this level."""
        index = {key: i for i, key in enumerate(block.children)}
        links = []
        for link in block.links:
            a, b = index.get(link.a.split("/", 1)[0]), index.get(link.b.split("/", 1)[0])
            if a is not None and b is not None and a != b:
                links.append(PreviewLink(a, b, link.kind, link.count))
        return links

    @staticmethod
    def _preview_of_summary(summary: Summary) -> tuple[list[PreviewChild], list[PreviewLink]]:
        """A big child block's card shows its groups and bundles, laid out as the block itself
        is when stepped into."""
        positions = group_positions(summary)
        children = [PreviewChild(g.kind, group_name(g, " · "), g.units, x, y)
                    for g, (x, y) in zip(summary.groups, positions)]
        links = [PreviewLink(b.a, b.b, b.kind, b.cables) for b in summary.bundles if b.a != b.b]
        return children, links

    def _kind_of(self, item: Node | Block) -> str:
        if isinstance(item, Block):
            return "block"
        return self.catalog.get(item.catalog_id).kind if item.catalog_id in self.catalog else "block"

    def _sync_links(self, block: Block) -> None:
        wanted = {}
        for link in block.links:
            a, b = link.a.split("/", 1)[0], link.b.split("/", 1)[0]
            if a != b and a in self._cards and b in self._cards:
                wanted[link.id] = (link, a, b)
        for key in list(self._links):
            item = self._links[key]
            if key not in wanted or (item.source.key, item.target.key) != wanted[key][1:]:
                self._remove_link(key)
        pairs: dict[frozenset, list[str]] = {}
        for key, (link, a, b) in wanted.items():
            item = self._links.get(key)
            if item is None:
                item = LinkItem(key, self._cards[a], self._cards[b])
                self._links[key] = item
                self.addItem(item)
            pairs.setdefault(frozenset((a, b)), []).append(key)
        for keys in pairs.values():
            for n, key in enumerate(keys):
                link, a, b = wanted[key]
                item = self._links[key]
                # Spread parallel bundles of one pair symmetrically; the sign keeps the spread
                # consistent whichever way round each bundle was drawn.
                sign = 1.0 if a < b else -1.0
                item.bend = (n - (len(keys) - 1) / 2) * PARALLEL_SPACING * sign
                item.set_data(link.kind, link.speed_gbit_s, link.count, link.length_m, link.medium,
                              f"{link.a} ↔ {link.b}", link.failed, link.drained)

    def _sync_external_links(self) -> None:
        """Stubs for links owned by ancestors that end inside the current block."""
        for item in self._external:
            item.detach()
            self.removeItem(item)
        self._external = []
        parts = self.block_path.split("/") if self.block_path else []
        slots: dict[str, int] = {}
        for depth in range(len(parts)):
            owner_path = "/".join(parts[:depth])
            rel = "/".join(parts[depth:])
            links = self.design.block(owner_path).links
            # An owner may hold a million links (an import): the ones with an end in here are
            # picked in C, and only they are looked at.
            inside = map(operator.or_, map(str.startswith, map(_END_A, links), repeat(rel + "/")),
                         map(str.startswith, map(_END_B, links), repeat(rel + "/")))
            for link in compress(links, inside):
                for near, far in ((link.a, link.b), (link.b, link.a)):
                    if not near.startswith(rel + "/") or far.startswith(rel + "/"):
                        continue
                    key = near[len(rel) + 1:].split("/", 1)[0]
                    card = self._cards.get(key)
                    if card is None:
                        continue
                    slot = slots.get(key, 0)
                    slots[key] = slot + 1
                    item = ExternalLinkItem(card, slot, link.kind, far, link.count, link.speed_gbit_s,
                                            owner_path)
                    self.addItem(item)
                    self._external.append(item)

    def _update_scene_rect(self) -> None:
        rect = self.itemsBoundingRect()
        if rect.isNull():
            rect = QRectF(-400, -300, 800, 600)
        self.setSceneRect(rect.adjusted(-1500, -1500, 1500, 1500))

    # --- queries -------------------------------------------------------------------------
    def card(self, key: str) -> Card | None:
        return self._cards.get(key)

    def room_for(self, key: str, gap: float = 40.0) -> dict[str, tuple[float, float]]:
        """New positions that move the other cards sideways off the card ``key`` (after it grew
        on expanding): every card to its right moves right by the same amount, every card to
        its left moves left, so the rest of the layout keeps its shape. Empty if nothing
        overlaps."""
        grown = self._cards.get(key)
        if grown is None:  # a member of an aggregated block: the cards are laid out for it
            return {}
        area = grown.card_rect().translated(grown.pos()).adjusted(-gap, -gap, gap, gap)
        right = left = 0.0
        others = [card for k, card in self._cards.items() if k != key]
        for card in others:
            rect = card.card_rect().translated(card.pos())
            if not rect.intersects(area):
                continue
            if card.pos().x() >= grown.pos().x():
                right = max(right, area.right() - rect.left())
            else:
                left = max(left, rect.right() - area.left())
        moves = {}
        for card in others:
            dx = right if card.pos().x() >= grown.pos().x() else -left
            if dx:
                moves[card.key] = (card.pos().x() + dx, card.pos().y())
        return moves

    def placement_obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        """What a new card must keep clear of, in scene coordinates: rectangles (cards, link
        labels, stubs of outer links) as (left, top, right, bottom) rows, and the link lines,
        curves flattened, as (x1, y1, x2, y2) segments. One row per drawn item, so a few."""
        cards = [*self._cards.values(), *self._group_cards.values()]
        lines = [*self._links.values(), *self._bundle_items.values()]
        rects = [card.mapRectToScene(card.card_rect()) for card in cards]
        rects += [link.mapRectToScene(link.label_rect()) for link in lines]
        rects += [stub.sceneBoundingRect() for stub in self._external]
        segments = []
        for link in lines:
            for polygon in link.mapToScene(link.path()).toSubpathPolygons():
                points = [(p.x(), p.y()) for p in polygon]
                segments += [(*a, *b) for a, b in zip(points, points[1:])]
        rect_rows = np.array([(r.left(), r.top(), r.right(), r.bottom()) for r in rects], dtype=float)
        return rect_rows.reshape(-1, 4), np.array(segments, dtype=float).reshape(-1, 4)

    def link_item(self, key: str) -> LinkItem | None:
        return self._links.get(key)

    def cards(self) -> list[Card]:
        return list(self._cards.values())

    def selected_ids(self) -> list[str]:
        """The selected children of the current block, in its order (in an aggregated block: the
        members picked from a list)."""
        if self.summary is not None:
            return list(self._picked_ids)
        chosen = {item.key for item in self.selectedItems() if isinstance(item, Card)}
        return [key for key in self.current_block().children if key in chosen]

    def selected_link_ids(self) -> list[str]:
        if self.summary is not None:
            return list(self._picked_links)
        return [item.key for item in self.selectedItems() if isinstance(item, LinkItem)]

    def selected_groups(self) -> list[str]:
        """Keys of the selected group cards of an aggregated block."""
        return [item.key for item in self.selectedItems() if isinstance(item, GroupCard)]

    def selected_bundles(self) -> list[str]:
        """Keys of the selected bundles of an aggregated block."""
        return [item.key for item in self.selectedItems() if isinstance(item, BundleItem)]

    def select(self, ids: list[str], link_ids: list[str] = ()) -> None:
        """Select children and links of the current block by id (in an aggregated block: pick
        them, and select their cards and bundles)."""
        self.blockSignals(True)
        self.clearSelection()
        if self.summary is not None:
            block = self.current_block()
            self._picked_ids = [key for key in dict.fromkeys(ids) if key in block.children]
            self._picked_links = list(self._link_positions(block, list(dict.fromkeys(link_ids))))
            self._select_picked()
        else:
            for key in ids:
                if key in self._cards:
                    self._cards[key].setSelected(True)
            for key in link_ids:
                if key in self._links:
                    self._links[key].setSelected(True)
        self.blockSignals(False)
        self.selectionChanged.emit()

    def select_all(self) -> None:
        """Every card (in an aggregated block: every group card, no member picked)."""
        if self.summary is None:
            self.select(list(self._cards))
            return
        self.blockSignals(True)
        self._picked_ids, self._picked_links = [], []
        for card in self._group_cards.values():
            card.setSelected(True)
        self._mark_picks()
        self.blockSignals(False)
        self.selectionChanged.emit()

    def content_rect(self, selected_only: bool = False) -> QRectF:
        items = self.selectedItems() if selected_only else self.items()
        rect = QRectF()
        for item in items:
            rect = rect.united(item.sceneBoundingRect())
        return rect

    # --- painting ------------------------------------------------------------------------
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        if not self.show_grid:
            painter.fillRect(rect, QColor("#ffffff"))  # exports: plain paper
            return
        painter.fillRect(rect, style.CANVAS_BACKGROUND)
        step = style.GRID * 2
        if rect.width() / step > 250 or rect.height() / step > 250:
            return  # zoomed far out: dots would be noise and cost time
        painter.setPen(style.GRID_DOT)
        left = int(rect.left() // step) * step
        top = int(rect.top() // step) * step
        points = []
        y = top
        while y < rect.bottom():
            x = left
            while x < rect.right():
                points.append(QPointF(x, y))
                x += step
            y += step
        painter.drawPoints(points)
