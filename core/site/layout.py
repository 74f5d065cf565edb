"""Rows and halls: the racks of a design's templates laid out on the floor.

Pieces (runs of racks that belong together, core/site/templates.py) fill rows in the design's
order; a new row starts when the next piece does not fit the row's racks or its CDU's liquid
capacity, a new hall when the hall's rows, power or cooling are used up. Storage racks (and
the switches of a storage fabric) get rows of their own after the others. A pooled leaf tier (a
separate fabric's leaves cabled to the compute rows, core/site/pooled.py) is racked at the end
of the rows it serves: each row keeps room for the leaf racks its endpoints' cables call for.
Then the user's moves are applied: a moved rack takes the slot it was given, swapping with the
rack that was there.

The loop is over pieces (an SU each), not racks: a 1,000,000-GPU site is some 15,000 pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.cooling import COOLING_TYPES
from core.site_spec import Hall, SiteSpec
from core.site.pooled import Spread, deal
from core.site.templates import COMPUTE, NETWORK, STORAGE, Template

LIQUID = np.array([c in ("cold-plate", "immersion") for c in COOLING_TYPES])


@dataclass(frozen=True)
class Layout:
    halls: tuple[Hall, ...]
    hall_x_m: np.ndarray         # west edge of every hall
    hall_y_m: np.ndarray         # north edge of every hall
    drawn_halls: int             # how many of ``halls`` the user gave (the rest are added)
    row_hall: np.ndarray         # hall of every row
    row_in_hall: np.ndarray      # row number within its hall, from 0
    rack_row: np.ndarray         # global row of every rack
    rack_slot: np.ndarray        # position in its row, from 0
    x_m: np.ndarray              # rack centre on the floor
    y_m: np.ndarray
    problems: tuple[str, ...]    # moves that could not be made, overflow
    # pooled leaf tiers (core/site/pooled.py): every rack's row and slot as the automatic
    # placement put it (a moved rack keeps its cables) and, per pool, where each row's cables
    # start in the pool's port order
    auto_row: np.ndarray | None = None
    auto_slot: np.ndarray | None = None
    pool_row_start: tuple[np.ndarray, ...] = ()

    @property
    def rack_hall(self) -> np.ndarray:
        return self.row_hall[self.rack_row]


class _Floor:
    """Halls and rows as they are opened."""

    def __init__(self, spec: SiteSpec):
        self.spec = spec
        self.halls: list[Hall] = list(spec.halls)
        self.drawn = len(spec.halls)
        self.hall = -1
        self.row_hall: list[int] = []
        self.row_in_hall: list[int] = []
        self.hall_rows_used = 0
        self.hall_kw = 0.0
        self.new_hall()

    def new_hall(self) -> None:
        self.hall += 1
        if self.hall >= len(self.halls):
            self.halls.append(self.spec.default_hall(len(self.halls) + 1))
        self.hall_rows_used = 0
        self.hall_kw = 0.0

    @property
    def current(self) -> Hall:
        return self.halls[self.hall]

    def row_racks(self) -> int:
        return self.spec.hall_racks_per_row(self.current)

    def new_row(self, kw: float) -> None:
        """Open a row for a piece of ``kw``, in a new hall when this one is full."""
        hall = self.current
        if self.row_hall and (self.hall_rows_used >= self.spec.hall_rows(hall)
                              or (self.hall_kw + kw > min(hall.power_kw, hall.cooling_kw)
                                  and self.hall_kw > 0)):
            self.new_hall()
        self.row_hall.append(self.hall)
        self.row_in_hall.append(self.hall_rows_used)
        self.hall_rows_used += 1


def lay_out(t: Template, spec: SiteSpec, spread: Spread | None = None) -> tuple[Template, Layout]:
    """``t``'s racks in rows and halls (with the racks of ``spread``'s pooled leaves at the end
    of the rows they serve, added to the template returned)."""
    n = t.racks
    rack_row = np.zeros(n, dtype=np.int64)
    rack_slot = np.zeros(n, dtype=np.int64)
    floor = _Floor(spec)
    liquid_w = np.where(LIQUID[t.rack_cooling], t.rack_w, 0.0)
    bounds = np.concatenate([t.pieces, [n]]) if n else np.zeros(1, dtype=np.int64)
    piece_w = np.add.reduceat(t.rack_w, t.pieces) if n else np.zeros(0)
    piece_liquid = np.add.reduceat(liquid_w, t.pieces) if n else np.zeros(0)
    # storage rows: pieces with storage racks and no compute (a storage fabric with its switches)
    storage_only = ((np.add.reduceat((t.rack_class == COMPUTE).astype(np.int64), t.pieces) == 0)
                    & (np.add.reduceat((t.rack_class == STORAGE).astype(np.int64), t.pieces) > 0)
                    if n else np.zeros(0, dtype=bool))
    order = np.concatenate([np.flatnonzero(~storage_only), np.flatnonzero(storage_only)])
    # pooled leaves' endpoint cables up to every rack (Python lists: the loop is over pieces and
    # must stay cheap): a row keeps room for the leaf racks its racks' cables call for
    pools = len(spread.pools) if spread is not None else 0
    cum = (np.vstack([np.zeros((1, pools), dtype=np.int64), np.cumsum(spread.demand, axis=0)])
           .tolist() if pools else [[]] * (n + 1))
    reserve = spread.racks_for if pools else (lambda ports: 0)

    def span(a: int, b: int, ports: list[int]) -> list[int]:
        """``ports`` plus the pools' endpoint cables of racks a..b-1."""
        return [x + hi - lo for x, lo, hi in zip(ports, cum[a], cum[b])]

    row_ports: list[list[int]] = []
    row_used: list[int] = []
    used = capacity = 0
    row_liquid = 0.0
    zone = None
    cdu_w = spec.row_cdu_kw * 1000.0

    def open_row(kw: float) -> int:
        floor.new_row(kw)
        row_ports.append([0] * pools)
        row_used.append(0)
        return floor.row_racks()

    for p in order.tolist():
        start, stop = int(bounds[p]), int(bounds[p + 1])
        size, kw = stop - start, float(piece_w[p]) / 1000.0
        same = zone == bool(storage_only[p]) and row_liquid + piece_liquid[p] <= cdu_w
        fits = same and used + size + reserve(span(start, stop, row_ports[-1])) <= capacity
        if (not fits and same and pools and size <= capacity < size + reserve(span(start, stop, [0] * pools))
                and used + 1 + reserve(span(start, start + 1, row_ports[-1])) <= capacity):
            # a piece a row holds only without its leaves' racks (a full row of racks) would
            # leave every row half empty: it flows on from this row, as a longer piece does
            fits = True
        if not fits:
            capacity = open_row(kw)
            used, row_liquid, zone = 0, 0.0, bool(storage_only[p])
        # a piece longer than the row continues on the next rows
        at = start
        while at < stop:
            ports = row_ports[-1]
            take = min(stop - at, capacity - used)
            while take > 0:
                over = used + take + reserve(span(at, at + take, ports)) - capacity
                if over <= 0:
                    break
                take -= over  # the reserve only shrinks with fewer racks: this one fits
            if take <= 0 and used == 0:
                take = min(stop - at, max(1, capacity))  # a row too short for a rack and its leaves
            if take <= 0:
                capacity = open_row(kw)
                used, row_liquid = 0, 0.0
                continue
            rack_row[at:at + take] = len(floor.row_hall) - 1
            rack_slot[at:at + take] = np.arange(used, used + take)
            if pools:
                added = span(at, at + take, ports)
                floor.hall_kw += spread.kw_for(added) - spread.kw_for(ports)
                row_ports[-1] = added
            used += take
            row_used[-1] = used
            at += take
        row_liquid += float(piece_liquid[p])
        floor.hall_kw += kw
    row_hall = np.array(floor.row_hall, dtype=np.int64)
    dealt: list[tuple[np.ndarray, np.ndarray]] = []
    if pools and row_used:
        dealt = deal(spread, np.array(row_ports), row_hall)
        t, rack_row, rack_slot = _leaf_racks(t, spread, [leaf_row for _, leaf_row in dealt],
                                             np.array(row_used), rack_row, rack_slot)
        n = t.racks
    auto_row, auto_slot = rack_row.copy(), rack_slot.copy()
    row_in_hall = np.array(floor.row_in_hall, dtype=np.int64)
    problems: list[str] = []
    if len(floor.halls) > floor.drawn > 0:
        problems.append(f"the drawn halls cannot hold the design (rows, power or cooling): "
                        f"{len(floor.halls) - floor.drawn} default hall(s) added")
    _apply_moves(spec, floor, rack_row, rack_slot, row_hall, problems)
    # a hall added automatically is as deep as the rows it holds: its area is the area used
    rows_in = np.bincount(row_hall, minlength=len(floor.halls))
    halls = tuple(hall if i < floor.drawn else
                  replace(hall, depth_m=max(1, int(rows_in[i])) * hall.row_pitch_m)
                  for i, hall in enumerate(floor.halls))
    hall_x, hall_y = _campus(halls, spec.hall_gap_m)
    hall_of = row_hall[rack_row] if n else np.zeros(0, dtype=np.int64)
    x = hall_x[hall_of] + spec.end_aisle_m + (rack_slot + 0.5) * spec.rack_width_m
    pitch = np.array([h.row_pitch_m for h in halls])[hall_of]
    y = hall_y[hall_of] + (row_in_hall[rack_row] + 0.5) * pitch if n else np.zeros(0)
    return t, Layout(halls, hall_x, hall_y, floor.drawn, row_hall, row_in_hall, rack_row,
                     rack_slot, x, y, tuple(problems), auto_row, auto_slot,
                     tuple(start for start, _ in dealt))


def _leaf_racks(t: Template, spread: Spread, leaf_rows: list[np.ndarray], row_used: np.ndarray,
                rack_row: np.ndarray, rack_slot: np.ndarray):
    """``t`` with the pooled leaves' racks added at the end of their rows (``leaf_rows``: the
    row of every leaf of every pool; after the racks the row filling put there), numbered after
    the template's racks, and their rows and slots."""
    rows, pools = len(row_used), len(spread.pools)
    leaves = np.stack([np.bincount(r, minlength=rows) for r in leaf_rows], axis=1)  # (rows, pools)
    racks = -(-leaves // spread.per_rack[None, :])
    cell_racks = racks.ravel()                                     # row by row, pool by pool
    total = int(cell_racks.sum())
    new_row = np.repeat(np.repeat(np.arange(rows), pools), cell_racks)
    new_pool = np.repeat(np.tile(np.arange(pools), rows), cell_racks)
    # slots after the row's own racks, the pools' racks one after another
    in_row = racks.sum(axis=1)
    new_slot = row_used[new_row] + np.arange(total) - np.repeat(np.cumsum(in_row) - in_row, in_row)
    first_rack = t.racks + np.cumsum(cell_racks) - cell_racks      # per (row, pool) cell
    fill = np.zeros(total)
    units = dict(t.units)
    for i, pool in enumerate(spread.pools):
        per_rack = int(spread.per_rack[i])
        count = leaves[:, i]
        # leaves in floor order: the rows' leaves one row after another
        order = np.argsort(leaf_rows[i], kind="stable")
        local = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        rack = np.empty(len(order), dtype=np.int64)
        u = np.empty(len(order))
        rack[order] = first_rack[np.repeat(np.arange(rows), count) * pools + i] + local // per_rack
        u[order] = (local % per_rack) * float(spread.unit_u[i])
        units[pool.group] = (rack, u)
        fill += np.bincount(rack - t.racks, minlength=total)[:total]
    groups = np.array([p.group for p in spread.pools], dtype=np.int64)[new_pool]
    extended = Template(
        np.concatenate([t.rack_class, np.full(total, NETWORK, dtype=t.rack_class.dtype)]),
        np.concatenate([t.rack_w, fill * spread.unit_w[new_pool]]),
        np.concatenate([t.rack_u, fill * spread.unit_u[new_pool]]),
        np.concatenate([t.rack_fill, fill / spread.per_rack[new_pool]]),
        np.concatenate([t.rack_cooling, np.zeros(total, dtype=t.rack_cooling.dtype)]),
        np.concatenate([t.rack_group, groups]),
        np.concatenate([t.pieces, t.racks + np.arange(total, dtype=np.int64)]), units)
    return (extended, np.concatenate([rack_row, new_row]),
            np.concatenate([rack_slot, new_slot.astype(np.int64)]))


def _campus(halls: tuple[Hall, ...], gap_m: float) -> tuple[np.ndarray, np.ndarray]:
    """(west, north) edge of every hall: halls side by side in rows of halls, as many to a row
    as keeps the campus about square (the longest run between halls stays short)."""
    width = max(h.width_m for h in halls) + gap_m
    depth = max(h.depth_m for h in halls) + gap_m
    across = max(1, min(len(halls), round(np.sqrt(len(halls) * depth / width))))
    index = np.arange(len(halls))
    return (index % across) * width, (index // across) * depth


def _apply_moves(spec: SiteSpec, floor: _Floor, rack_row: np.ndarray, rack_slot: np.ndarray,
                 row_hall: np.ndarray, problems: list[str]) -> None:
    """Each move puts its rack at (row, slot); the rack there, if any, takes the moved one's place."""
    if not spec.moves:
        return
    where = {(r, s): k for k, (r, s) in enumerate(zip(rack_row.tolist(), rack_slot.tolist()))}
    for move in spec.moves:
        k, row, slot = move.rack - 1, move.row - 1, move.slot - 1
        if k >= len(rack_row):
            problems.append(f"rack {move.rack} moved, but the design has {len(rack_row)} racks")
            continue
        if row >= len(row_hall):
            problems.append(f"rack {move.rack} moved to row {move.row}, but the site has "
                            f"{len(row_hall)} rows")
            continue
        if slot >= spec.hall_racks_per_row(floor.halls[row_hall[row]]):
            problems.append(f"rack {move.rack} moved to slot {move.slot} of row {move.row}, "
                            "past the end of the row")
            continue
        old = (int(rack_row[k]), int(rack_slot[k]))
        other = where.get((row, slot))
        if other is not None:
            rack_row[other], rack_slot[other] = old
            where[old] = other
        else:
            where.pop(old, None)
        rack_row[k], rack_slot[k] = row, slot
        where[(row, slot)] = k
