"""A block too big to draw item by item, summarised for the canvas: identical children form a
group, and the links between the members of two groups (of one link kind) form a bundle.

A design imported device by device puts 100,000 components and 1.5 million links in one block;
one item per component and per link takes minutes and gigabytes to draw and shows nothing a
user can read. Above ``AGGREGATE_CHILDREN`` children or ``AGGREGATE_LINKS`` links the canvas
draws the groups and bundles instead (a handful of items), and the Inspector lists their
members.

Components group by (catalog id, tier), child blocks by role. The per-link columns (the child
each end is in, kind, cables, speed) are kept between edits by ``BlockSummarizer``: links are
never changed in place (core.model), so a link object seen before has the same values, and only
the run of the list that differs from the last call (by object identity) is read again. An edit
costs one pass of ``id()`` over the list in C, not a Python loop over a million links.
No Qt here: the scene turns a ``Summary`` into items.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import repeat
from typing import Callable

import numpy as np

from core.model import LINK_KINDS, Block, Link, Node

AGGREGATE_CHILDREN = 300   # more children than this in one block: drawn as groups
AGGREGATE_LINKS = 1_500    # more links than this in one block: drawn as bundles

_END_A, _END_B = operator.attrgetter("a"), operator.attrgetter("b")
_KIND, _COUNT, _SPEED = operator.attrgetter("kind"), operator.attrgetter("count"), operator.attrgetter("speed_gbit_s")
_KIND_CODE = {kind: n for n, kind in enumerate(LINK_KINDS)}
# Rows of the summary, top to bottom: the fabric's upper tiers above the devices they serve.
_SWITCH_ROW = {"core": 0, "spine": 1, "leaf": 2}
DEVICE_ROW = 3


def needs_aggregation(block: Block) -> bool:
    return len(block.children) > AGGREGATE_CHILDREN or len(block.links) > AGGREGATE_LINKS


@dataclass(frozen=True)
class MemberGroup:
    """Children of one block that look the same on the canvas."""

    key: str                   # stable between edits: "component:DGX-H100:" or "block:rack"
    kind: str                  # catalog kind ("server", "switch"...) or "block"
    title: str                 # catalog name, or the blocks' role
    catalog_id: str            # "" for blocks
    tier: str
    members: tuple[str, ...]   # child ids, in the block's order
    units: int                 # sum of the members' counts
    row: int                   # layout row (0 = top): core, spine, leaf, then devices


@dataclass(frozen=True)
class GroupBundle:
    """The links of one kind between members of groups ``a`` and ``b`` (indexes; a <= b)."""

    key: str
    a: int
    b: int
    kind: str
    links: int
    cables: int
    speed_gbit_s: float        # the speed of every cable, or their mean when ``mixed``
    mixed: bool


@dataclass(frozen=True)
class Summary:
    """What the canvas draws for an aggregated block, and lookups for the Inspector's lists.
    Link positions are indexes into the block's ``links`` as they were when it was made."""

    children: int
    links: int
    groups: tuple[MemberGroup, ...]
    bundles: tuple[GroupBundle, ...]
    _link_bundle: np.ndarray = field(repr=False)  # per link: bundle index, -1 when not drawn here
    _link_a: np.ndarray = field(repr=False)       # per link: code of the child holding end a
    _link_b: np.ndarray = field(repr=False)
    _codes: dict[str, int] = field(repr=False)     # child id -> code
    group_index_of: dict[str, int] = field(repr=False)  # child id -> group index

    def group_of(self, child_id: str) -> int | None:
        return self.group_index_of.get(child_id)

    def group_index(self, key: str) -> int | None:
        return next((n for n, group in enumerate(self.groups) if group.key == key), None)

    def bundle_index(self, key: str) -> int | None:
        return next((n for n, bundle in enumerate(self.bundles) if bundle.key == key), None)

    def bundle_links(self, index: int) -> np.ndarray:
        """Positions of the links of bundle ``index``."""
        return np.flatnonzero(self._link_bundle == index)

    def member_links(self, child_id: str) -> np.ndarray:
        """Positions of the links with an end at or inside child ``child_id``."""
        code = self._codes.get(child_id)
        if code is None:
            return np.empty(0, dtype=np.intp)
        return np.flatnonzero((self._link_a == code) | (self._link_b == code))

    def bundle_of_link(self, position: int) -> int | None:
        index = int(self._link_bundle[position]) if 0 <= position < len(self._link_bundle) else -1
        return index if index >= 0 else None


class _LinkColumns:
    """Per-link columns of one block's links, updated from the last call's by identity."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}  # child id -> code; codes are never reused
        # The list as it was at the last update: holding its links keeps their id()s unique.
        self._links: list[Link] = []
        self._ids = np.empty(0, dtype=np.int64)
        self.a = np.empty(0, dtype=np.int64)
        self.b = np.empty(0, dtype=np.int64)
        self.kind = np.empty(0, dtype=np.int64)
        self.cables = np.empty(0, dtype=np.int64)
        self.speed = np.empty(0, dtype=np.float64)

    def update(self, children: list[str], links: list[Link]) -> bool:
        """Bring the columns in line with ``links``; False when they were already."""
        for child_id in children:
            self.codes.setdefault(child_id, len(self.codes))
        ids = np.fromiter(map(id, links), dtype=np.int64, count=len(links))
        old, m, n = self._ids, len(self._ids), len(ids)
        if m == n and np.array_equal(old, ids):
            return False
        common = min(m, n)
        differs = np.flatnonzero(old[:common] != ids[:common])
        start = int(differs[0]) if differs.size else common
        differs = np.flatnonzero(old[m - common:][::-1] != ids[n - common:][::-1])
        tail = min(int(differs[0]) if differs.size else common, common - start)
        fresh = self._read(links[start:n - tail])
        for name, values in zip(("a", "b", "kind", "cables", "speed"), fresh):
            column = getattr(self, name)
            setattr(self, name, np.concatenate([column[:start], values, column[m - tail:]]))
        self._ids = ids
        self._links = list(links)
        return True

    def _read(self, links: list[Link]) -> tuple[np.ndarray, ...]:
        n = len(links)
        return (self._end_codes(list(map(_END_A, links))), self._end_codes(list(map(_END_B, links))),
                np.fromiter(map(_KIND_CODE.get, map(_KIND, links), repeat(-1)), dtype=np.int64, count=n),
                np.fromiter(map(_COUNT, links), dtype=np.int64, count=n),
                np.fromiter(map(_SPEED, links), dtype=np.float64, count=n))

    def _end_codes(self, ends: list[str]) -> np.ndarray:
        """The code of the child each end is (or lies inside); -1 for an end that is neither."""
        codes = np.fromiter(map(self.codes.get, ends, repeat(-1)), dtype=np.int64, count=len(ends))
        for i in np.flatnonzero(codes < 0).tolist():  # ends inside a child block: "su/leaf"
            codes[i] = self.codes.get(ends[i].split("/", 1)[0], -1)
        return codes


KindOf = Callable[[str], tuple[str, str]]  # catalog id -> (catalog kind, display name)


class BlockSummarizer:
    """Summaries of one block, edit after edit, reusing what the last edit left unchanged."""

    def __init__(self, kind_of: KindOf):
        self._kind_of = kind_of
        self._columns = _LinkColumns()
        # The children as of the last summary (held, so their id()s stay unique) and what was
        # made of them: an edit of links only leaves the groups as they were, and an edit of
        # nothing drawn here (a position) leaves the whole summary.
        self._children: list[Node | Block] = []
        self._child_ids = np.empty(0, dtype=np.int64)
        self._keys: list[str] = []
        self._last: Summary | None = None

    def summarize(self, block: Block) -> Summary:
        keys = list(block.children)
        links_changed = self._columns.update(keys, block.links)
        columns = self._columns
        children = list(block.children.values())
        child_ids = np.fromiter(map(id, children), dtype=np.int64, count=len(children))
        last = self._last
        same_children = last is not None and keys == self._keys and np.array_equal(child_ids, self._child_ids)
        if same_children and not links_changed:
            return last
        if same_children:
            groups, group_of = last.groups, last.group_index_of
        else:
            groups, group_of = self._groups(block)
        group_by_code = np.full(len(columns.codes), -1, dtype=np.int64)
        group_by_code[np.fromiter(map(columns.codes.__getitem__, group_of), dtype=np.int64, count=len(group_of))] = \
            np.fromiter(group_of.values(), dtype=np.int64, count=len(group_of))
        link_bundle, bundles = self._bundles(groups, group_by_code)
        self._children, self._child_ids, self._keys = children, child_ids, keys
        self._last = Summary(len(keys), len(block.links), groups, bundles, link_bundle, columns.a, columns.b,
                             columns.codes, group_of)
        return self._last

    def _groups(self, block: Block) -> tuple[tuple[MemberGroup, ...], dict[str, int]]:
        members: dict[tuple[str, str, str], list[str]] = {}
        units: dict[tuple[str, str, str], int] = {}
        for child_id, child in block.children.items():
            if isinstance(child, Block):
                key = ("block", child.role, "")
            else:
                key = ("component", child.catalog_id, child.tier)
            members.setdefault(key, []).append(child_id)
            units[key] = units.get(key, 0) + child.count
        groups = []
        group_of: dict[str, int] = {}
        for index, (key, ids) in enumerate(members.items()):
            what, name, tier = key
            if what == "block":
                kind, title, row = "block", f"{name} blocks" if name else "blocks", DEVICE_ROW
            else:
                kind, title = self._kind_of(name)
                row = _SWITCH_ROW.get(tier, 2) if kind == "switch" else DEVICE_ROW
            groups.append(MemberGroup(":".join(key), kind, title, name if what == "component" else "", tier,
                                      tuple(ids), units[key], row))
            group_of.update(dict.fromkeys(ids, index))
        return tuple(groups), group_of

    def _bundles(self, groups: tuple[MemberGroup, ...], group_by_code: np.ndarray
                 ) -> tuple[np.ndarray, tuple[GroupBundle, ...]]:
        columns = self._columns
        n_groups, n_kinds = max(1, len(groups)), len(LINK_KINDS)
        ga = np.where(columns.a >= 0, group_by_code[np.maximum(columns.a, 0)], -1)
        gb = np.where(columns.b >= 0, group_by_code[np.maximum(columns.b, 0)], -1)
        # A link with both ends in one child (inside a child block) has nothing to join here.
        drawn = (ga >= 0) & (gb >= 0) & (columns.kind >= 0) & (columns.a != columns.b)
        low, high = np.minimum(ga, gb), np.maximum(ga, gb)
        key = np.where(drawn, (low * n_groups + high) * n_kinds + columns.kind, -1)
        size = n_groups * n_groups * n_kinds
        slot = np.where(drawn, key, size)  # undrawn links counted in a spare slot, then dropped
        links = np.bincount(slot, minlength=size + 1)[:size]
        cables = np.bincount(slot, weights=columns.cables, minlength=size + 1)[:size]
        speed_sum = np.bincount(slot, weights=columns.speed, minlength=size + 1)[:size]
        speed_max = np.zeros(size + 1)
        np.maximum.at(speed_max, slot, columns.speed)
        used = np.flatnonzero(links)
        index_of_key = np.full(size + 1, -1, dtype=np.int64)
        index_of_key[used] = np.arange(len(used))
        bundles = []
        for k in used.tolist():
            pair, kind = divmod(k, n_kinds)
            a, b = divmod(pair, n_groups)
            mean = speed_sum[k] / links[k]
            bundles.append(GroupBundle(f"{groups[a].key}|{groups[b].key}|{LINK_KINDS[kind]}", a, b, LINK_KINDS[kind],
                                       int(links[k]), int(cables[k]), float(mean),
                                       bool(speed_max[k] > mean * (1 + 1e-9))))
        return index_of_key[slot], tuple(bundles)
