"""A scale-out fabric that falls apart: its parts, and what would join them.

``partition_diagnostic`` explains a FABRIC_PARTITIONED design from the connected components the
topology already found (one label per unit of the device graph): each part with its GPUs and a
representative path (the block its components share, or its top switch group; a copy number
when the parts are copies of one repeated block), and the natural join point of each part,
its top-tier switch group, named in the advice and in the diagnostic's components so that a
click selects them. Arrays over units, one pass: nothing per GPU in Python.
"""

from __future__ import annotations

import posixpath

import numpy as np

from core.diagnostics import Diagnostic
from core.flatten import FlatDesign, UnitGraph

# Parts named in the message; the others are counted.
PARTS_NAMED = 4


def partition_diagnostic(flat: FlatDesign, graph: UnitGraph, labels: np.ndarray,
                         gpu_weight: np.ndarray, unit_rank: np.ndarray,
                         tier_names: tuple[str, ...]) -> Diagnostic:
    """FABRIC_PARTITIONED for a fabric whose units fall into several GPU-holding components.

    ``labels``: connected component of every unit over the scale-out links; ``gpu_weight``: GPUs
    of every unit; ``unit_rank``: 0 for compute units, the tier rank (1 = leaf) for switches,
    -1 for units outside the fabric; ``tier_names``: names of the tiers by rank - 1.
    """
    gpus_by_label = np.bincount(labels, weights=gpu_weight)
    parts = np.flatnonzero(gpus_by_label > 0)
    parts = parts[np.argsort(-gpus_by_label[parts], kind="stable")]
    # Only units of GPU-holding parts: a mistyped count can leave a million unlinked switches,
    # each a part of its own that nothing here needs to look at.
    in_fabric = (unit_rank >= 0) & (gpus_by_label[labels] > 0)
    top_rank = np.full(len(gpus_by_label), -1, dtype=np.int64)
    np.maximum.at(top_rank, labels[in_fabric], unit_rank[in_fabric])
    # the groups each part holds, as one sorted key per (part, group) pair
    n_groups = len(graph.offsets) - 1
    pair_label, pair_group = np.divmod(
        np.unique(labels[in_fabric].astype(np.int64) * n_groups + graph.unit_group[in_fabric]),
        n_groups)
    is_top = in_fabric & (unit_rank == top_rank[labels])
    first_top = _first_unit_per_label(labels, is_top, len(gpus_by_label))

    named = parts[:PARTS_NAMED]
    names = [_part_name(flat, graph, pair_group[pair_label == c], int(first_top[c])) for c in named]
    for i, c in enumerate(named):
        unit = int(first_top[c])
        if _copies(flat, int(graph.unit_group[unit])) > 1:
            names[i] += f" ({_copy_text(flat, graph, unit)})"
    # several parts in one place (one copy of a block falling apart): numbered
    names = [f"{name} (part {i + 1})" if names.count(name) > 1 else name for i, name in enumerate(names)]
    shown = [f"{name}: {int(gpus_by_label[c]):,} GPUs" for c, name in zip(named, names)]
    more = len(parts) - len(named)
    listing = ", ".join(shown) + (f" and {more} more" if more else "")

    # the top switch groups of every part are where a tier above would join them
    top_groups = np.unique(graph.unit_group[is_top])
    join_paths = [_path(flat, int(g)) for g in top_groups]
    above = int(top_rank[parts].max()) + 1
    tier = (f"{tier_names[above - 1]} tier" if above <= len(tier_names)
            else "tier of switches above them")
    if len(join_paths) == 1:
        advice = f"connect {join_paths[0]} of every part to a common {tier} to join them"
    else:
        quoted = (", ".join(join_paths[:-1]) + " and " + join_paths[-1]
                  if len(join_paths) <= PARTS_NAMED else ", ".join(join_paths[:PARTS_NAMED]) + ", ...")
        advice = f"connect {quoted} to a common {tier} (or link them to each other) to join them"
    return Diagnostic(
        "FABRIC_PARTITIONED",
        f"the scale-out fabric is in {len(parts):,} parts not joined by any switch ({listing}); "
        f"{advice}",
        tuple(join_paths))


def _first_unit_per_label(labels: np.ndarray, mask: np.ndarray, n_labels: int) -> np.ndarray:
    """The lowest unit index with ``mask`` set in each label (-1 where none)."""
    units = np.flatnonzero(mask)  # ascending: the first occurrence of a label is its lowest unit
    found, at = np.unique(labels[units], return_index=True)
    first = np.full(n_labels, -1, dtype=np.int64)
    first[found] = units[at]
    return first


def _part_name(flat: FlatDesign, graph: UnitGraph, groups: np.ndarray, top_unit: int) -> str:
    """The block every group of the part lies in (deepest common one), or its top group."""
    block = posixpath.commonpath([posixpath.dirname(_path(flat, int(g))) for g in groups])
    return block or _path(flat, int(graph.unit_group[top_unit]))


def _copy_text(flat: FlatDesign, graph: UnitGraph, unit: int) -> str:
    """Which copy of its repeated block ``unit`` is in: "copy 2 of 4"."""
    group = int(graph.unit_group[unit])
    local = unit - int(graph.offsets[group])
    return f"copy {local // _units_per_copy(flat, group) + 1} of {_copies(flat, group)}"


# What the explanation reads of a group: its path, its units per copy of its block, copies.
def _path(flat: FlatDesign, group: int) -> str:
    return flat.paths[group]


def _units_per_copy(flat: FlatDesign, group: int) -> int:
    return max(1, flat.nodes[group].count)


def _copies(flat: FlatDesign, group: int) -> int:
    return int(flat.multiplicity[group]) // _units_per_copy(flat, group)
