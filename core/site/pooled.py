"""Pooled leaf tiers: a separate fabric's leaf switches spread over the rows they serve.

A storage (or front-end) fabric drawn as one block has its leaf switches as one group, cabled to
compute-node groups in other blocks (core/generators/storage.py: one ``storage-fabric`` block
for the whole cluster). The design says how many cables join the nodes to the leaf group, not
which leaf each node's cable lands on (the unit graph deals them round-robin, so every leaf has
nodes in every pod). Racked together, those leaves sit in the storage rows and every node's
storage cable crosses the campus (the 100,000-GPU example: 42-244 m, past any 200G optic).

Real clusters are not wired that way: the storage fabric's leaves sit at the end of the compute
rows they serve and only the leaf-to-spine uplinks run to the storage rows (the DGX SuperPOD
RAs put a fabric's leaf switches in the racks of the SU they serve). So a leaf group is
*pooled* when it
  * is a scale-out switch group drawn once (not inside a repeated block),
  * is cabled to compute nodes of other blocks by links of the root (drawn once),
  * and has uplinks to other switches (it is a leaf, not the whole fabric);
and it is spread only when racked with its fabric some of its endpoint cables would be longer
than multimode reaches (``CENTRAL_REACH_M``): a small cluster keeps them in one network rack.
Its leaves are shared over the rows in proportion to the endpoint ports (compute and storage
nodes) each row holds, racked at the end of the row (core/site/layout.py reserves their racks
while it fills the row), and the endpoints' cables are dealt to the leaves in floor order
(``deal``): each leaf serves the nodes of its own row (a leaf straddling two rows sits in the
one it serves most, never two halls while spare ports allow) and no leaf more ports than ceil(D/L), the
fullest leaf of the drawing. The leaves are
interchangeable in the design (every one has the same uplinks), so this is a choice of wiring
the design leaves open, not a change to it: the topology, bandwidth and counts are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.catalog_spec import SwitchSpec


@dataclass(frozen=True)
class Pool:
    """One pooled leaf group and its cables to endpoints (graph edge order)."""

    group: int                  # FlatDesign group of the leaves
    edges: np.ndarray           # the cables between the leaves and endpoints
    far: np.ndarray             # the endpoint unit of each
    leaf_is_src: np.ndarray     # the leaf is the cable's A end

    def leaves_per_port(self, leaves: int) -> float:
        return leaves / max(1, len(self.edges))


def _is_switch(flat, g: int) -> bool:
    spec = flat.specs[flat.spec_row[g]]
    return isinstance(spec, SwitchSpec) and spec.role != "scale-up"


def _block_of(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def find_pools(flat, graph) -> tuple[Pool, ...]:
    """The pooled leaf groups of ``flat`` (rule in the module docstring) with their cables in
    the unit graph ``graph`` (core/flatten.py's, every bundle, bundle after bundle)."""
    bundles = len(flat.cables)
    if not bundles:
        return ()
    a, b = flat.bundle_a, flat.bundle_b
    switch = np.array([_is_switch(flat, g) for g in range(len(flat.multiplicity))], dtype=bool)
    counts = np.array([node.count for node in flat.nodes], dtype=np.int64)
    once = counts == flat.multiplicity
    compute = flat.is_compute
    pools = []
    for g in np.flatnonzero(switch & once & (flat.multiplicity > 1)).tolist():
        touching = np.flatnonzero((a == g) | (b == g))
        other = np.where(a[touching] == g, b[touching], a[touching])
        down = touching[~switch[other]]
        if not (switch[other].any() and len(down)) or (flat.owner_instances[down] != 1).any():
            continue
        block = _block_of(flat.paths[g])
        far_groups = np.where(a[down] == g, b[down], a[down])
        if not any(compute[h] and not flat.paths[h].startswith(block) for h in far_groups.tolist()):
            continue
        pools.append((g, down))
    if not pools:
        return ()
    # edges of each pool's bundles, all at once (a bundle's cables are contiguous)
    pool_of = np.full(bundles, -1, dtype=np.int64)
    for i, (_, down) in enumerate(pools):
        pool_of[down] = i
    edge_pool = pool_of[graph.edge_bundle]
    out = []
    for i, (g, _) in enumerate(pools):
        edges = np.flatnonzero(edge_pool == i)
        leaf_is_src = graph.unit_group[graph.src[edges]] == g
        far = np.where(leaf_is_src, graph.dst[edges], graph.src[edges])
        out.append(Pool(g, edges, far, leaf_is_src))
    return tuple(out)


# A pooled tier stays racked with its fabric while every endpoint cable is within this: the
# multimode reach at 400G and 800G ("Multimode has a 50-meter maximum reach", NVIDIA LinkX
# 100G-PAM4 product line overview, P; core/site/media.py) and the catalog's 200G multimode
# parts' (50 m). A small cluster's storage leaves stay in a central network rack, as in the
# DGX SuperPOD H100 RA's 4-SU layout; past it an installer puts them at the end of the rows.
CENTRAL_REACH_M = 50.0


def far_pools(pools: tuple[Pool, ...], lengths) -> tuple[Pool, ...]:
    """The pools some of whose endpoint cables, at ``lengths(edges)`` (their placed lengths
    with the pools racked with their fabric), are past ``CENTRAL_REACH_M``."""
    return tuple(p for p in pools if len(p.edges) and float(lengths(p.edges).max()) > CENTRAL_REACH_M)


@dataclass(frozen=True)
class Spread:
    """What the row filling needs to give pooled leaves room (core/site/layout.py)."""

    pools: tuple[Pool, ...]
    demand: np.ndarray          # (racks, pools): endpoint cables of each pool per rack
    leaves: np.ndarray          # per pool: its leaf switches
    per_rack: np.ndarray        # per pool: leaves to a rack
    unit_w: np.ndarray          # per pool: nameplate W of one leaf
    unit_u: np.ndarray          # per pool: U of one leaf

    def __post_init__(self):
        # the per-pool figures as Python numbers: the row filling asks once per piece
        object.__setattr__(self, "_rule", tuple(
            (int(leaves), max(1, len(pool.edges)), int(per_rack), float(w) / 1000.0)
            for pool, leaves, per_rack, w in zip(self.pools, self.leaves, self.per_rack,
                                                  self.unit_w)))

    @property
    def total(self) -> np.ndarray:
        return np.array([len(p.edges) for p in self.pools], dtype=np.int64)

    def leaves_for(self, ports: list[int]) -> list[int]:
        """Leaves a row with ``ports`` endpoint cables per pool gets at most: ``deal`` gives a
        row no more than ceil(ports / cap) <= ceil(ports L / D), one more at the end of a hall
        (the leaf its last ports share with none of the next hall's)."""
        return [-(-x * leaves // total) + (x > 0) for x, (leaves, total, _, _) in zip(ports, self._rule)]

    def racks_for(self, ports: list[int]) -> int:
        return sum(-(-n // rule[2]) for n, rule in zip(self.leaves_for(ports), self._rule))

    def kw_for(self, ports: list[int]) -> float:
        return sum(n * rule[3] for n, rule in zip(self.leaves_for(ports), self._rule))


def spread_of(pools: tuple[Pool, ...], flat, graph, racks_of_unit: np.ndarray, racks: int,
              leaf_rack: list[tuple[int, float, float]]) -> Spread:
    """The pools' endpoint cables per rack (``racks_of_unit``: every graph unit's rack) and
    each pool's leaves, leaves to a rack, W and U (``leaf_rack``, per pool)."""
    demand = np.zeros((racks, len(pools)), dtype=np.int64)
    for i, pool in enumerate(pools):
        demand[:, i] = np.bincount(racks_of_unit[pool.far], minlength=racks)[:racks]
    return Spread(pools, demand,
                  np.array([int(flat.multiplicity[p.group]) for p in pools], dtype=np.int64),
                  np.array([r[0] for r in leaf_rack], dtype=np.int64),
                  np.array([r[1] for r in leaf_rack]), np.array([r[2] for r in leaf_rack]))


def deal(spread: Spread, row_ports: np.ndarray, row_hall: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per pool: (where each row's cables start in the pool's port order, the row of every leaf).

    A pool's D endpoint cables are dealt in floor order to leaves of ``cap`` = ceil(D/L) ports
    (no leaf gets more than the drawing's fullest one): leaf j takes positions [j cap, (j+1)
    cap). At the end of a hall the position jumps to the next leaf while the spare ports (L cap
    - D) allow, so no leaf serves two halls (its cables would cross the gap between them). A
    leaf sits in the row of the middle of the ports it serves (leaves left over: the last row
    served)."""
    out = []
    rows = len(row_hall)
    last_of_hall = np.flatnonzero(np.concatenate([row_hall[1:] != row_hall[:-1], [True]]))
    for i in range(len(spread.pools)):
        ports = row_ports[:, i]
        leaves, total = int(spread.leaves[i]), int(spread.total[i])
        cap = -(-total // max(1, leaves))
        spare = leaves * cap - total
        before = np.cumsum(ports) - ports
        gap = np.zeros(rows, dtype=np.int64)       # the jump at the end of each row
        cursor = 0
        for r in last_of_hall.tolist():
            end = int(before[r] + ports[r]) + cursor
            waste = -end % cap
            if waste <= spare and r != rows - 1:
                gap[r], spare, cursor = waste, spare - waste, cursor + waste
        start = before + np.cumsum(gap) - gap
        served = np.flatnonzero(ports > 0)
        if not len(served):
            out.append((start, np.full(leaves, rows - 1, dtype=np.int64)))
            continue
        # a leaf sits in the row of the middle of the ports it serves (the end of its hall's
        # ports bounds them): with the rows between empty of endpoints (spine rows), the row
        # most of its cables come from
        first = np.arange(leaves, dtype=np.int64) * cap
        row_of = lambda at: served[np.maximum(0, np.searchsorted(start[served], at, side="right") - 1)]
        hall_end = np.zeros(int(row_hall.max()) + 1, dtype=np.int64)
        np.maximum.at(hall_end, row_hall[served], start[served] + ports[served])
        used_end = np.maximum(first + 1, np.minimum(first + cap, hall_end[row_hall[row_of(first)]]))
        out.append((start, row_of((first + used_end - 1) // 2)))
    return out


def wire(pool: Pool, leaves: int, first_unit: int, far_row: np.ndarray, far_key: np.ndarray,
         row_start: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
    """Deal ``pool``'s endpoint cables to its ``leaves`` (graph units from ``first_unit``, in
    floor order) by where their endpoint units sit (``far_row``: the row of every unit as the
    automatic placement put it, ``far_key``: its order on the floor): a cable at position p of
    the pool's port order (``row_start`` of its row plus its rank in the row) takes leaf p //
    cap (``deal``). Rewrites ``src``/``dst`` (copies of the graph's) in place."""
    total = len(pool.edges)
    cap = -(-total // max(1, leaves))
    order = np.argsort(far_key[pool.far], kind="stable")
    row = far_row[pool.far][order]
    first = np.searchsorted(row, row)                    # rows ascend along ``order``
    position = row_start[row] + np.arange(total) - first
    leaf = np.empty(total, dtype=np.int64)
    leaf[order] = np.minimum(position // cap, leaves - 1) + first_unit
    edges = pool.edges
    src[edges] = np.where(pool.leaf_is_src, leaf, src[edges])
    dst[edges] = np.where(pool.leaf_is_src, dst[edges], leaf)
