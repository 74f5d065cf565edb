"""Where a dropped card lands: near the drop point, on no other card and on no link line."""

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from designer.canvas.placement import free_spot, grid_offsets

GRID = 20


def _boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _segment_meets_box(segment, box) -> bool:
    """Liang-Barsky clipping in exact arithmetic (a different method from the code's)."""
    x1, y1, x2, y2 = (Fraction(v) for v in segment)
    left, top, right, bottom = (Fraction(v) for v in box)
    lo, hi = Fraction(0), Fraction(1)
    for p, q in ((x1 - x2, x1 - left), (x2 - x1, right - x1), (y1 - y2, y1 - top), (y2 - y1, bottom - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        u = q / p
        if p < 0:
            lo = max(lo, u)
        else:
            hi = min(hi, u)
    return lo <= hi


def _reference(x, y, w, h, rects, segments, gap, radius):
    """Every grid point within ``radius`` cells, nearest first, checked one by one."""
    for i, j in grid_offsets(radius):
        cx, cy = x + i * GRID, y + j * GRID
        box = (cx - w / 2 - gap, cy - h / 2 - gap, cx + w / 2 + gap, cy + h / 2 + gap)
        if not any(_boxes_overlap(box, r) for r in rects) and not any(_segment_meets_box(s, box) for s in segments):
            return cx, cy
    return x, y


coordinate = st.integers(-160, 160)
rectangle = st.tuples(coordinate, coordinate, st.integers(4, 120), st.integers(4, 80)).map(
    lambda r: (r[0], r[1], r[0] + r[2], r[1] + r[3]))
segment = st.tuples(coordinate, coordinate, coordinate, coordinate)


@given(st.lists(rectangle, max_size=8), st.lists(segment, max_size=6),
       st.integers(-4, 4).map(lambda v: v * GRID), st.integers(-4, 4).map(lambda v: v * GRID))
def test_free_spot_is_the_nearest_grid_point_clear_of_cards_and_lines(rects, segments, x, y):
    radius = 7
    got = free_spot(x, y, 60, 30, np.array(rects), np.array(segments), GRID, 6, radius)
    assert got == _reference(x, y, 60, 30, rects, segments, 6, radius)


def test_a_card_dropped_on_a_link_lands_beside_the_line():
    line = [(0, -300, 0, 300)]  # a vertical link through the drop point
    x, y = free_spot(0, 0, 200, 64, np.empty((0, 4)), np.array(line), GRID, 20)
    assert abs(x) >= 100 + 20 and y == 0  # moved sideways just far enough, not up or down
    assert abs(x) <= 100 + 20 + GRID  # touching the line counts as on it


def test_a_card_dropped_on_a_card_lands_next_to_it_and_prefers_the_right():
    card = [(-100, -32, 100, 32)]
    assert free_spot(0, 0, 200, 64, np.array(card), np.empty((0, 4)), GRID, 20) == (0.0, 100.0)
    wide = [(-100, -200, 100, 200)]  # tall: going sideways is nearer
    assert free_spot(0, 0, 200, 64, np.array(wide), np.empty((0, 4)), GRID, 20) == (220.0, 0.0)


def test_with_no_room_within_reach_the_card_lands_where_it_was_dropped():
    # 10,000 cards on a tight lattice around the drop point, no gap anywhere.
    i, j = np.meshgrid(np.arange(100), np.arange(100))
    cx, cy = (i.ravel() - 50) * 220.0, (j.ravel() - 50) * 100.0
    cards = np.stack([cx - 100, cy - 32, cx + 100, cy + 32], axis=1)
    x, y = free_spot(0, 0, 200, 64, cards, np.empty((0, 4)), GRID, 20, radius=40)
    assert (x, y) == (0, 0)
