"""Connected components of an undirected graph given as edge arrays, in numpy.

The window's first evaluation needs connected components (core/topology.py) and nothing else
of scipy, whose import (scipy.sparse, with the numpy modules scipy's array-API layer loads)
is ~0.2 s of every start; scipy is imported where a spectral cut or a special function is
first needed instead. Min-label hooking with pointer jumping: every round hooks the larger
root of each edge whose ends disagree under the smaller, then flattens the trees, and drops
the edges already inside one tree; rounds shrink geometrically on the graphs tried (random
3M-edge graphs, a shuffled 1M path), and each round is a few array passes: the topology of a
1,000,000-GPU fat tree takes 0.19-0.20 s with it or with scipy.sparse.csgraph's, 15-25 ms at
100,000 GPUs either way (bench/bench_core.py times the whole evaluation at those sizes).
"""

from __future__ import annotations

import numpy as np


def connected_component_labels(units: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """A label per unit in 0..k-1 (k components); two units share a label exactly when the
    edges ``src[i] - dst[i]`` connect them."""
    parent = np.arange(units)
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    while src.size:
        a, b = parent[src], parent[dst]
        differ = a != b
        if not differ.any():
            break
        a, b, src, dst = a[differ], b[differ], src[differ], dst[differ]
        np.minimum.at(parent, np.maximum(a, b), np.minimum(a, b))
        while True:  # pointer jumping: every unit straight to its root
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
    return np.unique(parent, return_inverse=True)[1].reshape(units)
