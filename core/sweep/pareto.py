"""The Pareto front of a results table: the rows no other row beats on every objective.

Row a dominates row b when a is at least as good on every objective and strictly better on
one. Rows with a missing value (an error row, a metric the design cannot compute) are never on
the front and never dominate. Rows with identical objective values do not dominate each other,
so duplicates of a front point are all on the front.
"""

from __future__ import annotations

import numpy as np


def pareto_mask(values: np.ndarray, maximize: np.ndarray | list[bool]) -> np.ndarray:
    """Boolean mask of the non-dominated rows of ``values`` (rows x objectives; NaN = missing);
    ``maximize[k]`` says objective k is better when higher.

    The candidates are visited best-sum first; each candidate drops every remaining row it
    dominates in one vectorised step, so the cost is O(rows x front size x objectives) rather
    than O(rows^2) Python comparisons."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"expected a rows x objectives table, got shape {values.shape}")
    signs = np.where(np.asarray(maximize, dtype=bool), -1.0, 1.0)
    mask = np.zeros(len(values), dtype=bool)
    remaining = np.flatnonzero(~np.isnan(values).any(axis=1))
    costs = values[remaining] * signs  # every objective minimised
    if len(costs):
        # Visit rows by their sum of objectives scaled to [0, 1] (capex in dollars must not
        # outweigh days): a row can only be dominated by one with a smaller sum, so each
        # visited row is on the front, and an early one drops many rows at once.
        span = np.ptp(costs, axis=0)
        scaled = (costs - costs.min(axis=0)) / np.where(span > 0, span, 1.0)
        order = np.argsort(scaled.sum(axis=1), kind="stable")
        remaining, costs = remaining[order], costs[order]
    while len(remaining):
        best = costs[0]
        # Rounding can tie the sums of two rows of which one dominates the other: test the
        # visited row against the rest instead of trusting the order.
        if not np.any(np.all(costs <= best, axis=1) & np.any(costs < best, axis=1)):
            mask[remaining[0]] = True
        keep = ~(np.all(costs >= best, axis=1) & np.any(costs > best, axis=1))
        keep[0] = False
        remaining, costs = remaining[keep], costs[keep]
    return mask
