"""A block drawn aggregated on the canvas (above designer.canvas.aggregate's thresholds): one
group card per group of identical children and one line per bundle of links between two groups,
laid out in rows, and the members picked from their lists in the Inspector, which are the
selection then (designer/canvas/scene.py draws every other block)."""

from __future__ import annotations

import operator

from PySide6.QtCore import QPointF

from core.model import Block
from designer.canvas.aggregate import BlockSummarizer, Summary
from designer.canvas.aggregate_items import GROUP_W, BundleItem, GroupCard
from designer.canvas.links import PARALLEL_SPACING

# Layout of an aggregated block: rows of group cards (core, spine, leaf, devices), top down.
GROUP_GAP = 150.0       # between cards of one row (room for the loop of a bundle within a group)
GROUP_ROW_GAP = 150.0   # between rows: the card and the label of the bundles between rows
GROUPS_PER_ROW = 6
FEW_LINKS = 8           # picked links looked up one by one (more: one pass over the block's links)
_LINK_ID = operator.attrgetter("id")


class AggregatedBlock:
    """DesignScene's aggregated blocks (a part of DesignScene: its design, catalog, current
    block and selection)."""

    def _summarizer(self, path: str) -> BlockSummarizer:
        summarizer = self._summarizers.get(path)
        if summarizer is None:
            summarizer = self._summarizers[path] = BlockSummarizer(self._catalog_kind)
        return summarizer

    def _prune_summarizers(self) -> None:
        """Keep what was read of the current block, its ancestors (stepping out is quick) and
        its children; forget the rest."""
        parts = self.block_path.split("/") if self.block_path else []
        around = {"/".join(parts[:depth]) for depth in range(len(parts) + 1)}
        children = self.design.block(self.block_path).children
        for path in list(self._summarizers):
            parent, _, key = path.rpartition("/")
            if path not in around and not (parent == self.block_path and key in children):
                del self._summarizers[path]

    def _catalog_kind(self, catalog_id: str) -> tuple[str, str]:
        if catalog_id in self.catalog:
            spec = self.catalog.get(catalog_id)
            return spec.kind, spec.name
        return "block", f"unknown id {catalog_id}"

    def _clear_summary(self) -> None:
        for key in list(self._group_cards):
            self._remove_group_card(key)
        self.summary = None
        self._picked_ids, self._picked_links = [], []

    def _remove_group_card(self, key: str) -> None:
        card = self._group_cards.pop(key)
        for bundle in list(card.bundles):
            self._remove_bundle(bundle.key)
        self.removeItem(card)

    def _remove_bundle(self, key: str) -> None:
        item = self._bundle_items.pop(key, None)
        if item is not None:
            item.detach()
            self.removeItem(item)

    def _sync_summary(self, block: Block) -> None:
        summary = self._summarizer(self.block_path).summarize(block)
        self.summary = summary
        self._picked_ids = [key for key in self._picked_ids if key in block.children]
        picked_links = self._link_positions(block, self._picked_links)
        self._picked_links = list(picked_links)
        groups = {group.key: n for n, group in enumerate(summary.groups)}
        for key in [k for k in self._group_cards if k not in groups]:
            self._remove_group_card(key)
        for group, (x, y) in zip(summary.groups, group_positions(summary)):
            card = self._group_cards.get(group.key)
            if card is None:
                card = self._group_cards[group.key] = GroupCard(group.key)
                self.addItem(card)
            card.set_group(group, [k for k in self._picked_ids if summary.group_of(k) == groups[group.key]])
            if card.pos() != QPointF(x, y):
                card.setPos(x, y)
        self._sync_bundles(summary, picked_links)
        if self._picked_ids or self._picked_links:
            # The picks' cards and bundles are the selection (a pick may have changed group).
            self.clearSelection()
            for key in self._picked_ids:
                self._group_cards[summary.groups[summary.group_of(key)].key].setSelected(True)
            for link_id, position in picked_links.items():
                bundle = summary.bundle_of_link(position)
                if bundle is not None:
                    self._bundle_items[summary.bundles[bundle].key].setSelected(True)

    @staticmethod
    def _link_positions(block: Block, link_ids: list[str]) -> dict[str, int]:
        """Where the links ``link_ids`` are in ``block.links`` (the ones that still exist)."""
        if not link_ids:
            return {}
        # In C: a block may own millions of links.
        if len(link_ids) > FEW_LINKS:
            wanted = set(link_ids)
            found = {link_id: n for n, link_id in enumerate(map(_LINK_ID, block.links)) if link_id in wanted}
            return {link_id: found[link_id] for link_id in link_ids if link_id in found}
        positions = {}
        for link_id in link_ids:
            try:
                positions[link_id] = operator.indexOf(map(_LINK_ID, block.links), link_id)
            except ValueError:
                continue  # gone (deleted, undone)
        return positions

    def _sync_bundles(self, summary: Summary, picked_links: dict[str, int]) -> None:
        wanted = {bundle.key: bundle for bundle in summary.bundles}
        for key in [k for k in self._bundle_items if k not in wanted]:
            self._remove_bundle(key)
        pairs: dict[tuple[int, int], list[str]] = {}
        for bundle in summary.bundles:
            pairs.setdefault((bundle.a, bundle.b), []).append(bundle.key)
        for (a, b), keys in pairs.items():
            for n, key in enumerate(keys):
                bundle = wanted[key]
                item = self._bundle_items.get(key)
                if item is None:
                    item = self._bundle_items[key] = BundleItem(
                        key, self._group_cards[summary.groups[a].key], self._group_cards[summary.groups[b].key])
                    self.addItem(item)
                item.bend = (n - (len(keys) - 1) / 2) * PARALLEL_SPACING
                index = summary.bundle_index(key)
                item.set_bundle(bundle, [link_id for link_id, position in picked_links.items()
                                         if summary.bundle_of_link(position) == index])

    @staticmethod
    def _note_text(summary: Summary | None) -> str:
        if summary is None:
            return ""
        what = "items" if any(g.kind == "block" for g in summary.groups) else "components"
        return (f"Aggregated view: {summary.children:,} {what} and {summary.links:,} links in this block, too many "
                f"to draw one by one. A card stands for identical {what}, a line for the links between two "
                f"cards. Click one to list them in the Inspector, and pick one there to edit it; the Outline "
                f"lists every {what[:-1]}.")

    def _drop_unselected_picks(self) -> None:
        """Picks whose card or bundle the user deselected (a click elsewhere) are dropped."""
        summary = self.summary
        if summary is None or not (self._picked_ids or self._picked_links):
            return
        cards = {item.key for item in self.selectedItems() if isinstance(item, GroupCard)}
        self._picked_ids = [key for key in self._picked_ids
                            if summary.group_of(key) is not None
                            and summary.groups[summary.group_of(key)].key in cards]
        bundles = {item.key for item in self.selectedItems() if isinstance(item, BundleItem)}
        positions = self._link_positions(self.current_block(), self._picked_links)
        self._picked_links = [link_id for link_id, position in positions.items()
                              if summary.bundle_of_link(position) is not None
                              and summary.bundles[summary.bundle_of_link(position)].key in bundles]
        self._mark_picks()

    def _mark_picks(self) -> None:
        summary = self.summary
        if summary is None:
            return
        for n, group in enumerate(summary.groups):
            card = self._group_cards.get(group.key)
            if card is not None:
                card.set_group(group, [k for k in self._picked_ids if summary.group_of(k) == n])
        positions = self._link_positions(self.current_block(), self._picked_links)
        for n, bundle in enumerate(summary.bundles):
            item = self._bundle_items.get(bundle.key)
            if item is not None:
                item.set_bundle(bundle, [k for k, p in positions.items() if summary.bundle_of_link(p) == n])

    def _select_picked(self) -> None:
        summary = self.summary
        assert summary is not None
        for key in self._picked_ids:
            self._group_cards[summary.groups[summary.group_of(key)].key].setSelected(True)
        for position in self._link_positions(self.current_block(), self._picked_links).values():
            bundle = summary.bundle_of_link(position)
            if bundle is not None:
                self._bundle_items[summary.bundles[bundle].key].setSelected(True)
        self._mark_picks()

    def select_group(self, key: str) -> None:
        """Select the group card ``key`` of an aggregated block, with no member picked."""
        self._select_aggregate_item(self._group_cards.get(key))

    def select_bundle(self, key: str) -> None:
        self._select_aggregate_item(self._bundle_items.get(key))

    def _select_aggregate_item(self, item: GroupCard | BundleItem | None) -> None:
        self.blockSignals(True)
        self.clearSelection()
        self._picked_ids, self._picked_links = [], []
        if item is not None:
            item.setSelected(True)
        self._mark_picks()
        self.blockSignals(False)
        self.selectionChanged.emit()

    def group_card_of(self, key: str) -> GroupCard | None:
        """The group card that draws child ``key`` of an aggregated block."""
        summary = self.summary
        index = summary.group_of(key) if summary is not None else None
        return None if index is None else self._group_cards.get(summary.groups[index].key)


def group_positions(summary: Summary) -> list[tuple[float, float]]:
    """Where the group cards of an aggregated block go: one row per layout row (core, spine,
    leaf, then the devices), at most GROUPS_PER_ROW cards a line, centred on x = 0. Imported
    positions are ignored: they are often all zero or far apart."""
    rows: dict[int, list[int]] = {}
    for n, group in enumerate(summary.groups):
        rows.setdefault(group.row, []).append(n)
    positions: list[tuple[float, float]] = [(0.0, 0.0)] * len(summary.groups)
    y = 0.0
    for row in sorted(rows):
        members = rows[row]
        for start in range(0, len(members), GROUPS_PER_ROW):
            line = members[start:start + GROUPS_PER_ROW]
            width = len(line) * GROUP_W + (len(line) - 1) * GROUP_GAP
            for j, n in enumerate(line):
                positions[n] = (-width / 2 + GROUP_W / 2 + j * (GROUP_W + GROUP_GAP), y)
            y += GROUP_ROW_GAP
    return positions
