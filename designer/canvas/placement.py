"""Where a new card lands: the free grid point nearest to where it was asked for.

Pure numpy over what the current block shows: a spot is free when the card, grown by a gap on
every side, overlaps no obstacle rectangle (other cards, link labels) and crosses no link
segment. Candidate spots are grid points in order of distance, tested a chunk at a time
against only the obstacles near that chunk, so a crowded canvas costs a few array operations
rather than a Python loop per card and candidate.
"""

from __future__ import annotations

import functools

import numpy as np

SEARCH_RADIUS_CELLS = 60  # how far (in grid cells) a card may move to find room
CHUNK = 256               # candidate spots tested per array operation


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


def _overlapping(boxes: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """For each box (K x 4: left, top, right, bottom), whether it overlaps any of ``rects``
    (touching edges do not count)."""
    if not len(rects):
        return np.zeros(len(boxes), dtype=bool)
    b, r = boxes[:, None, :], rects[None, :, :]
    return ((b[..., 0] < r[..., 2]) & (r[..., 0] < b[..., 2])
            & (b[..., 1] < r[..., 3]) & (r[..., 1] < b[..., 3])).any(axis=1)


def _crossed(boxes: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """For each box, whether any segment (M x 4: x1, y1, x2, y2) touches it: their bounding
    boxes overlap and the box's corners do not all lie on one side of the segment's line."""
    if not len(segments):
        return np.zeros(len(boxes), dtype=bool)
    x1, y1, x2, y2 = (segments[:, k][None, :] for k in range(4))
    left, top, right, bottom = (boxes[:, k][:, None] for k in range(4))
    near = ((np.minimum(x1, x2) <= right) & (np.maximum(x1, x2) >= left)
            & (np.minimum(y1, y2) <= bottom) & (np.maximum(y1, y2) >= top))
    dx, dy = x2 - x1, y2 - y1
    sides = [dx * (cy - y1) - dy * (cx - x1) for cx in (left, right) for cy in (top, bottom)]
    low = np.minimum.reduce(sides)
    high = np.maximum.reduce(sides)
    return (near & (low <= 0) & (high >= 0)).any(axis=1)


def _near(items: np.ndarray, area: tuple[float, float, float, float]) -> np.ndarray:
    """The rows of ``items`` (rectangles or segments, as x1, y1, x2, y2) whose bounding box
    meets ``area``."""
    if not len(items):
        return items
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
    offsets = grid_offsets(radius)
    for start in range(0, len(offsets), CHUNK):
        chunk = offsets[start:start + CHUNK]
        cx = x + chunk[:, 0] * grid
        cy = y + chunk[:, 1] * grid
        boxes = np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)
        area = (boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max())
        free = ~(_overlapping(boxes, _near(rects, area)) | _crossed(boxes, _near(segments, area)))
        hit = np.flatnonzero(free)
        if hit.size:
            return float(cx[hit[0]]), float(cy[hit[0]])
    return x, y
