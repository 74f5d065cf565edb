"""Drop placement benchmark (not part of the test run): python bench/bench_placement.py [--repeat N]

Median time of one landing-spot search (designer/canvas/placement.free_spot, run on every grid
cell the pointer enters while a palette card is dragged) on canvases with N cards and M links,
short links spread out (a drawn fabric) and long links crossing the whole search area (worst
case: every link touches every column of the search grid).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from designer.canvas.placement import free_spot  # noqa: E402

CARD_W, CARD_H, GRID, GAP = 200.0, 64.0, 20.0, 20.0


def canvas(cards: int, links: int, link_px: float, spread_px: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    cx, cy = rng.uniform(-spread_px, spread_px, cards), rng.uniform(-spread_px / 1.5, spread_px / 1.5, cards)
    rects = np.stack([cx - CARD_W / 2, cy - CARD_H / 2, cx + CARD_W / 2, cy + CARD_H / 2], axis=1)
    start = rng.uniform(-spread_px, spread_px, (links, 2))
    segments = np.hstack([start, start + rng.uniform(-link_px, link_px, (links, 2))])
    return rects, segments


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    cases = [("short links", 1_000, 2_000, 300.0, 10_000.0), ("short links", 10_000, 20_000, 300.0, 30_000.0),
             ("long links", 1_000, 2_000, 6_000.0, 3_000.0), ("long links", 10_000, 50_000, 6_000.0, 3_000.0)]
    print("| canvas | cards | links | one search (median) |")
    print("|---|---:|---:|---:|")
    for name, cards, links, link_px, spread_px in cases:
        rects, segments = canvas(cards, links, link_px, spread_px)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            free_spot(0.0, 0.0, CARD_W, CARD_H, rects, segments, GRID, GAP)
            times.append(time.perf_counter() - start)
        print(f"| {name} | {cards:,} | {links:,} | {statistics.median(times) * 1000:.2f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
