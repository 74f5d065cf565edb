"""Where a new card lands: the free grid point nearest to where it was asked for.

A spot is free when the card, grown by a gap on every side, overlaps no obstacle rectangle
(other cards, link labels) and touches no link segment. Instead of testing every candidate
against every obstacle, each obstacle marks the grid points it rules out in one occupancy
grid around the asked spot: a rectangle rules out a block of points, a segment an interval of
points in each grid column it passes (exact, both from the card's half-size). Difference
arrays and cumulative sums turn the marks into the grid in O(obstacles x columns + cells),
then the nearest free point is the first unmarked one in a precomputed distance order.
"""

from __future__ import annotations

import functools

import numpy as np

SEARCH_RADIUS_CELLS = 60  # how far (in grid cells) a card may move to find room
SEGMENT_CHUNK = 4096      # segments marked per array operation (bounds the memory)
_EPS = 1e-9               # in grid units: a segment that all but touches a spot counts as touching


@functools.lru_cache(maxsize=4)
def grid_offsets(radius: int) -> np.ndarray:
    """Grid offsets (i, j) within ``radius`` cells, nearest first; at equal distance, right of
    the asked spot before left and below before above (reading order)."""
    steps = np.arange(-radius, radius + 1)
    i, j = (a.ravel() for a in np.meshgrid(steps, steps, indexing="ij"))
    d2 = i * i + j * j
    keep = d2 <= radius * radius
    i, j, d2 = i[keep], j[keep], d2[keep]
    order = np.lexsort((-j, -i, d2))
    offsets = np.stack([i[order], j[order]], axis=1)
    offsets.flags.writeable = False  # shared by every call (cached)
    return offsets


def _mark_rects(marks: np.ndarray, rects: np.ndarray, x: float, y: float, half_w: float, half_h: float,
                grid: float, radius: int) -> None:
    """Add each rectangle's ruled-out block of grid points to the 2-D difference array
    ``marks``: a spot (x + i*grid, y + j*grid) is out when the card's box around it overlaps the
    rectangle (touching edges do not count), i.e. i and j lie in open intervals."""
    if not len(rects):
        return
    i0 = np.floor((rects[:, 0] - half_w - x) / grid) + 1
    i1 = np.ceil((rects[:, 2] + half_w - x) / grid) - 1
    j0 = np.floor((rects[:, 1] - half_h - y) / grid) + 1
    j1 = np.ceil((rects[:, 3] + half_h - y) / grid) - 1
    _add_blocks(marks, i0, i1, j0, j1, radius)


def _add_blocks(marks: np.ndarray, i0, i1, j0, j1, radius: int) -> None:
    """+1 on the blocks [i0, i1] x [j0, j1] (offsets from the asked spot) of a difference array."""
    i0, j0 = np.maximum(i0, -radius), np.maximum(j0, -radius)
    i1, j1 = np.minimum(i1, radius), np.minimum(j1, radius)
    ok = (i0 <= i1) & (j0 <= j1)
    i0, i1, j0, j1 = ((v[ok] + radius).astype(np.intp) for v in (i0, i1, j0, j1))
    side = marks.shape[1]
    corners = np.concatenate([i0 * side + j0, (i1 + 1) * side + j0, i0 * side + j1 + 1, (i1 + 1) * side + j1 + 1])
    signs = np.repeat(np.array([1, -1, -1, 1]), len(i0))
    marks += np.bincount(corners, signs, minlength=marks.size).reshape(marks.shape).astype(marks.dtype)


def _mark_segments(marks: np.ndarray, segments: np.ndarray, x: float, y: float, half_w: float,
                   half_h: float, grid: float, radius: int) -> None:
    """Add, for each segment and grid column, the interval of rows whose spots the segment
    touches: the part of the segment within the card's width around the column spans some
    heights, and every spot within half the card's height of those is out."""
    columns = np.arange(-radius, radius + 1)
    for start in range(0, len(segments), SEGMENT_CHUNK):
        x1, y1, x2, y2 = (segments[start:start + SEGMENT_CHUNK, k][:, None] for k in range(4))
        left = x + columns[None, :] * grid - half_w
        right = left + 2 * half_w
        dx, dy = x2 - x1, y2 - y1
        vertical = dx == 0
        safe_dx = np.where(vertical, 1.0, dx)
        with np.errstate(over="ignore"):  # a nearly vertical segment: t is +-inf, which clips right
            ta, tb = (left - x1) / safe_dx, (right - x1) / safe_dx
        inside = (x1 >= left) & (x1 <= right)  # a vertical segment: wholly in the column or not at all
        t_lo = np.where(vertical, np.where(inside, 0.0, np.inf), np.maximum(np.minimum(ta, tb), 0.0))
        t_hi = np.where(vertical, np.where(inside, 1.0, -np.inf), np.minimum(np.maximum(ta, tb), 1.0))
        meets = t_lo <= t_hi + _EPS
        t_lo, t_hi = np.where(meets, t_lo, 0.0), np.where(meets, np.maximum(t_lo, t_hi), 0.0)
        ya, yb = y1 + t_lo * dy, y1 + t_hi * dy
        j0 = np.ceil((np.minimum(ya, yb) - half_h - y) / grid - _EPS)
        j1 = np.floor((np.maximum(ya, yb) + half_h - y) / grid + _EPS)
        i = np.broadcast_to(columns[None, :], meets.shape)
        _add_blocks(marks, i[meets], i[meets], j0[meets], j1[meets], radius)


def _near(items: np.ndarray, area: tuple[float, float, float, float]) -> np.ndarray:
    """The rows of ``items`` (rectangles or segments, as x1, y1, x2, y2) whose bounding box
    meets ``area``: the rest cannot touch any candidate."""
    left, top, right, bottom = area
    keep = ((np.minimum(items[:, 0], items[:, 2]) <= right) & (np.maximum(items[:, 0], items[:, 2]) >= left)
            & (np.minimum(items[:, 1], items[:, 3]) <= bottom) & (np.maximum(items[:, 1], items[:, 3]) >= top))
    return items[keep]


def free_spot(x: float, y: float, width: float, height: float, rects: np.ndarray, segments: np.ndarray,
              grid: float, gap: float, radius: int = SEARCH_RADIUS_CELLS) -> tuple[float, float]:
    """The point nearest to (x, y), on the grid of ``grid`` steps through it, where a
    ``width`` x ``height`` card centred there and grown by ``gap`` on every side overlaps none
    of ``rects`` (N x 4: left, top, right, bottom) and touches none of ``segments`` (M x 4:
    x1, y1, x2, y2). (x, y) itself when no spot within ``radius`` cells is free."""
    rects = np.asarray(rects, dtype=float).reshape(-1, 4)
    segments = np.asarray(segments, dtype=float).reshape(-1, 4)
    half_w, half_h = width / 2 + gap, height / 2 + gap
    size = 2 * radius + 1
    reach_x, reach_y = radius * grid + half_w, radius * grid + half_h  # what any candidate's box can meet
    window = (x - reach_x, y - reach_y, x + reach_x, y + reach_y)
    marks = np.zeros((size + 1, size + 1), dtype=np.int64)  # difference array over (column, row)
    _mark_rects(marks, _near(rects, window), x, y, half_w, half_h, grid, radius)
    _mark_segments(marks, _near(segments, window), x, y, half_w, half_h, grid, radius)
    taken = marks.cumsum(axis=0).cumsum(axis=1)[:size, :size] > 0
    offsets = grid_offsets(radius)
    free = np.flatnonzero(~taken[offsets[:, 0] + radius, offsets[:, 1] + radius])
    if not free.size:
        return x, y
    i, j = offsets[free[0]]
    return x + float(i) * grid, y + float(j) * grid
