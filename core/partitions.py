"""Partitions resolved on a design: the GPUs each holds, the fabric its workload sees, and
whether they overlap or fit (core/services.py says what a partition is).

**A block partition sees the fabric its blocks' GPUs really have.** Its view is built from the
design cut down to it: the partition's subtrees whole, every other subtree that holds compute
dropped (with the links into it), and what holds none (spines, cores, the storage fabric:
shared by every partition) kept with its links to what is left. So a partition of GB200 NVL72
racks in a design that also has DGX H100 pods serves on GB200s in 72-GPU NVLink domains, and
its scale-out tiers count only the uplinks of its own leaves: an oversubscribed pod stays
oversubscribed. (The drain machinery of core/degrade.py would keep the other pods' leaves and
their uplinks, which would credit the partition with bandwidth it does not have.) The cut
follows the drawing: only blocks on the way to a partition's paths are rebuilt, the rest is
shared. This module builds no fabric of its own: the cut goes through the same pipeline as the
design (``evaluate_cut``, core/evaluate.py: the first stage of core/design_view.py, then the
power and cost units), so its cost is one flatten and topology of the partition (~20 ms at
100,000 GPUs).

**A GPU-count partition** takes its GPUs from the pool of GPUs outside every block partition:
it sees the pool's fabric restricted to its count (``FabricView.restricted_to``: consecutive
GPUs, as schedulers place jobs). The main workload without a partition of its own takes what
the services leave of the pool.

**Power and cost.** A partition is charged its own compute nodes and a GPU share of what the
partitions share (network, storage, facility), so the partitions of a design add up to it:
tokens/s per MW of a service is per MW of its partition, and its $/GPU-hour is its share of
the design's TCO over its GPU-hours (core/analysis/cost.py ``partition_usd_per_gpu_hour``;
GB200 hours cost more than H100 hours in one design).

Paths are matched against the design's own (``original_path``): a degraded design of
core/degrade.py splits ``pod`` into ``pod.degraded`` and ``pod``, both of partition ``pod``.
Nothing here loops over devices; overlap is found per path and ancestor (no pairs compared).
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable

from core.analysis.cost import CostResult, partition_usd_per_gpu_hour
from core.analysis.power import PowerResult
from core.catalog import COMPUTE_KINDS, Catalog
from core.degrade import original_path
from core.design_view import DesignView, design_gpus
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload
from core.model import Block, Design, Node
from core.services import Partition, main_partition_name
from core.workload import Workload

TRAINING, INFERENCE = "training", "inference"


@dataclass(frozen=True)
class PartitionView:
    """One partition of an evaluated design: what it holds and what its workload sees."""

    name: str
    kind: str | None                 # TRAINING, INFERENCE, or None (a partition without a workload)
    workload_name: str | None
    partition: Partition | None      # as written; None: the main workload's implicit one
    gpus: int                        # GPUs it holds (0 when it cannot be resolved)
    fabric: FabricView | None        # None: unresolved (``problems`` says why)
    compute_it_kw: float = 0.0       # nameplate IT of its own compute nodes
    compute_capex_usd: float | None = None  # hardware capex of its own compute nodes (None: unpriced)
    problems: tuple[Diagnostic, ...] = ()   # errors: why it has no fabric
    # its share of the design's power and cost (``with_shares``; None before, or unpriced)
    it_kw: float | None = None
    facility_kw: float | None = None
    usd_per_gpu_hour: float | None = None
    # its cut-down design as the analyses see it (a GPU count's: the pool's), for the main
    # workload's storage path and failures; None when unresolved
    analysed: DesignView | None = field(default=None, repr=False, compare=False)

    @property
    def blocks(self) -> tuple[str, ...]:
        return self.partition.blocks if self.partition is not None else ()

    @property
    def requested_gpus(self) -> int | None:
        return self.partition.gpus if self.partition is not None else None

    def describe(self) -> str:
        """"blocks serve: 576 GPUs", "576 GPUs", "the 1,024 GPUs the services leave"."""
        if self.partition is None:
            return f"the {self.gpus:,} GPUs the services leave"
        if self.blocks:
            return f"{self.partition.describe()}: {self.gpus:,} GPUs"
        return self.partition.describe()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "workload": self.workload_name,
                "blocks": list(self.blocks) if self.blocks else None,
                "requested_gpus": self.requested_gpus, "gpus": self.gpus,
                "accelerator": self.fabric.accelerator.id if self.fabric is not None else None,
                "scale_up_domain_gpus": self.fabric.scale_up_domain_gpus if self.fabric is not None else None,
                "it_kw": self.it_kw, "facility_kw": self.facility_kw,
                "usd_per_gpu_hour": self.usd_per_gpu_hour,
                "problems": [d.to_json() for d in self.problems]}


@dataclass(frozen=True)
class CutEvaluation:
    """What the pipeline (core/evaluate.py) gives a partition's cut-down design: the design as
    the analyses see it, and its power and cost without a run."""

    view: DesignView
    power: PowerResult
    cost: CostResult


@dataclass(frozen=True)
class Partitions:
    main: PartitionView | None           # the main workload's (None: no main workload nor partition)
    services: tuple[PartitionView, ...]  # one per service, in the design's order
    diagnostics: tuple[Diagnostic, ...]  # overlaps, over-subscription, unknown paths, misfits

    @property
    def all(self) -> tuple[PartitionView, ...]:
        return ((self.main,) if self.main is not None else ()) + self.services


def has_partitions(design: Design) -> bool:
    """Whether the design carries services or a main-workload partition (else it evaluates
    exactly as a design with one workload always has)."""
    return bool(design.services) or design.workload_partition is not None


def main_gpus(design: Design, catalog: Catalog) -> int:
    """The GPUs the main workload may use: its partition's, or what the services leave (the
    design's own without partitions). Flattening only, no fabric: for fitting a preset to the
    partition before the design is evaluated (core/preset_fit.py)."""
    if not has_partitions(design):
        return design_gpus(design, catalog)
    cut = _Cutter(design, catalog)
    main = design.workload_partition
    if main is not None and main.blocks:
        return design_gpus(cut.keep(set(main.blocks))[0], catalog)
    dropped = {path for p in (main, *(s.partition for s in design.services)) if p is not None
               for path in p.blocks}
    pool = design_gpus(cut.drop(dropped) if dropped else design, catalog)
    if main is not None:
        return min(main.gpus, pool)
    return max(0, pool - sum(s.partition.gpus or 0 for s in design.services))


def _kind(workload: Workload | InferenceWorkload | None) -> str | None:
    if workload is None:
        return None
    return INFERENCE if isinstance(workload, InferenceWorkload) else TRAINING


def resolve_partitions(design: Design, catalog: Catalog, workload: Workload | InferenceWorkload | None,
                       evaluate_cut: Callable[[Design], CutEvaluation]) -> Partitions:
    """Every partition of ``design`` resolved: GPUs, fabric, own compute power and capex, each
    from ``evaluate_cut`` (the pipeline, core/evaluate.py) on the design cut down to it (given
    ``design`` itself for a pool that is the whole design). ``workload`` is the main one (an
    override of the design's, or the design's). Partitions that cannot be resolved have no
    fabric and say why (errors); overlaps and over-subscription are warnings."""
    has_main = workload is not None or design.workload_partition is not None
    entries = ([PartitionView(main_partition_name(design.workload_partition), _kind(workload),
                              workload.name if workload is not None else None,
                              design.workload_partition, 0, None)] if has_main else [])
    entries += [PartitionView(s.partition_name, INFERENCE, s.workload.name, s.partition, 0, None)
                for s in design.services]
    cut = _Cutter(design, catalog)
    views: list[PartitionView] = list(entries)
    by_blocks = [i for i, view in enumerate(entries) if view.blocks]
    diagnostics = _overlaps([(entries[i].name, entries[i].blocks) for i in by_blocks])
    for i in by_blocks:
        sub, matched = cut.keep(set(entries[i].blocks))
        unknown = [path for path in entries[i].blocks if path not in matched]
        if unknown:
            views[i] = _unresolved(entries[i], "PARTITION_UNKNOWN_BLOCK", "no block or component at "
                                   + ", ".join(map(repr, unknown[:3]))
                                   + (f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else ""))
            continue
        views[i] = _view_of(entries[i], evaluate_cut(sub))
        if not views[i].gpus:
            views[i] = _unresolved(entries[i], "PARTITION_DOES_NOT_FIT",
                                   f"{entries[i].partition.describe()} hold no GPUs")

    by_count = [i for i, view in enumerate(entries) if view.requested_gpus is not None]
    implicit = has_main and entries[0].partition is None
    if not by_count and not implicit:
        return _collected(views, has_main, diagnostics)
    # the pool: every GPU outside the block partitions (the design itself when there are none)
    dropped = {path for i in by_blocks for path in entries[i].blocks}
    outside = " outside the block partitions" if dropped else ""
    pool = _view_of(PartitionView("", None, None, None, 0, None),
                    evaluate_cut(cut.drop(dropped) if dropped else design))
    for i in by_count:
        asked = entries[i].requested_gpus
        views[i] = (_share_of_pool(entries[i], pool, asked) if asked <= pool.gpus else
                    _unresolved(entries[i], "PARTITION_DOES_NOT_FIT",
                                f"it asks {asked:,} GPUs; the design has {pool.gpus:,}{outside}"))
    asked = sum(entries[i].requested_gpus for i in by_count)
    if asked > pool.gpus and len(by_count) > 1:
        diagnostics.append(Diagnostic(
            "PARTITIONS_EXCEED_DESIGN",
            f"partitions {_names([entries[i].name for i in by_count])} ask {asked:,} GPUs together; "
            f"the design has {pool.gpus:,}{outside}: they cannot all run at once (each is "
            f"evaluated as if alone)"))
    if implicit:  # the main workload on what the services leave
        left = pool.gpus - asked
        views[0] = (_share_of_pool(entries[0], pool, left) if left > 0 else
                    _unresolved(entries[0], "PARTITION_DOES_NOT_FIT",
                                f"the services take every GPU of the design{outside} "
                                f"({pool.gpus:,}); give it a partition"))
    return _collected(views, has_main, diagnostics)


def _collected(views: list[PartitionView], has_main: bool, diagnostics: list[Diagnostic]) -> Partitions:
    """The partitions, with every unresolved one's error after the other diagnostics."""
    problems = [problem for view in views for problem in view.problems]
    return Partitions(views[0] if has_main else None, tuple(views[1:] if has_main else views),
                      tuple(diagnostics + problems))


def _unresolved(view: PartitionView, code: str, why: str) -> PartitionView:
    """``view`` without GPUs or fabric, and the error that says why."""
    what = f"{view.workload_name} is not evaluated" if view.workload_name else "no workload runs on it"
    problem = Diagnostic(code, f"partition {view.name}: {why}: {what}", view.blocks)
    return dataclasses.replace(view, gpus=0, fabric=None, analysed=None, problems=(problem,))


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _view_of(base: PartitionView, cut: CutEvaluation) -> PartitionView:
    """``base`` with the GPUs, fabric and own compute figures of its cut-down design."""
    return dataclasses.replace(base, gpus=cut.view.flat.gpus, fabric=cut.view.topology.fabric,
                               compute_it_kw=cut.power.by_kind_kw.get("compute", 0.0),
                               compute_capex_usd=cut.cost.compute_capex_usd, analysed=cut.view)


def _share_of_pool(base: PartitionView, pool: PartitionView, gpus: int) -> PartitionView:
    """``gpus`` of the pool: its fabric restricted to them, its compute figures pro rata."""
    share = gpus / pool.gpus
    fabric = pool.fabric if gpus == pool.gpus else pool.fabric.restricted_to(gpus)
    capex = pool.compute_capex_usd * share if pool.compute_capex_usd is not None else None
    return dataclasses.replace(base, gpus=gpus, fabric=fabric, analysed=pool.analysed,
                               compute_it_kw=pool.compute_it_kw * share, compute_capex_usd=capex)


def _overlaps(partitions: list[tuple[str, tuple[str, ...]]]) -> list[Diagnostic]:
    """PARTITIONS_OVERLAP for every pair of block partitions where a path of one is a path of
    the other or lies inside one: each path is looked up with its ancestors, never against
    every other path."""
    owners: dict[str, list[int]] = {}
    for index, (_, paths) in enumerate(partitions):
        for path in paths:
            owners.setdefault(path, []).append(index)
    found: dict[tuple[int, int], tuple[str, str]] = {}
    for index, (_, paths) in enumerate(partitions):
        for path in paths:
            parts = path.split("/")
            for depth in range(1, len(parts) + 1):
                above = "/".join(parts[:depth])
                for other in owners.get(above, ()):
                    if other != index:
                        found.setdefault((min(index, other), max(index, other)),
                                         (path, above) if index < other else (above, path))
    out = []
    for (a, b), (path_a, path_b) in found.items():
        (name_a, _), (name_b, _) = partitions[a], partitions[b]
        where = (f"both hold {path_a}" if path_a == path_b else
                 f"{name_a}'s {path_a} is inside {name_b}'s {path_b}" if path_a.startswith(path_b + "/")
                 else f"{name_b}'s {path_b} is inside {name_a}'s {path_a}")
        out.append(Diagnostic(
            "PARTITIONS_OVERLAP",
            f"partitions {name_a} and {name_b} share GPUs ({where}): they cannot run at once "
            f"(each is evaluated as if alone)", tuple(dict.fromkeys((path_a, path_b)))))
    return out


def share_of(view: PartitionView, design_gpus: int, power: PowerResult,
             cost: CostResult | None) -> PartitionView:
    """``view`` with its share of the design's power and cost: its own compute plus a GPU
    share of the rest (network, storage), the facility at the design's facility/IT ratio, and
    its $/GPU-hour from its share of the TCO (core/analysis/cost.py). With one partition
    holding the whole design these are the design's own figures."""
    if view.fabric is None or not design_gpus or power.it_kw <= 0:
        return view
    g = view.gpus / design_gpus
    it_kw = view.compute_it_kw + (power.it_kw - power.by_kind_kw.get("compute", 0.0)) * g
    facility_kw = power.facility_kw * it_kw / power.it_kw
    per_hour = (None if cost is None else
                partition_usd_per_gpu_hour(cost, view.compute_capex_usd, view.gpus, g, it_kw / power.it_kw))
    return dataclasses.replace(view, it_kw=it_kw, facility_kw=facility_kw, usd_per_gpu_hour=per_hour)


def with_shares(partitions: Partitions, design_gpus: int, power: PowerResult,
                cost: CostResult | None) -> Partitions:
    """Every partition with its share of the design's power and cost (``share_of``)."""
    def share(view: PartitionView) -> PartitionView:
        return share_of(view, design_gpus, power, cost)

    main = share(partitions.main) if partitions.main is not None else None
    return dataclasses.replace(partitions, main=main, services=tuple(map(share, partitions.services)))


# --- the design cut down to a partition, or without the block partitions --------------------
_FIRST = operator.itemgetter(0)
_END_A, _END_B = operator.attrgetter("a"), operator.attrgetter("b")


class _Cutter:
    """Cuts of one design: ``keep`` (a partition's subtrees, plus what holds no compute) and
    ``drop`` (everything but the given subtrees). Only blocks on the way to a given path are
    rebuilt; every other block, node and link is shared with the design (as snapshots share
    them: core/model.py)."""

    def __init__(self, design: Design, catalog: Catalog):
        self.design = design
        self.catalog = catalog
        self._compute_ids: dict[str, bool] = {}

    def keep(self, paths: set[str]) -> tuple[Design, set[str]]:
        """The design with ``paths`` whole, every other subtree holding compute dropped; and
        the paths found."""
        return self._cut(paths, keep=True)

    def drop(self, paths: set[str]) -> Design:
        return self._cut(paths, keep=False)[0]

    def _cut(self, paths: set[str], keep: bool) -> tuple[Design, set[str]]:
        ancestors = {path[:i] for path in paths for i, char in enumerate(path) if char == "/"}
        matched: set[str] = set()

        def rebuild(block: Block, prefix: str) -> tuple[Block, set[str], dict]:
            """The block's cut: (new block, child ids dropped, child id -> (gone, rebuilt) of
            the children rebuilt)."""
            children: dict[str, Node | Block] = {}
            gone: set[str] = set()
            rebuilt: dict[str, tuple[set[str], dict]] = {}
            for child_id, child in block.children.items():
                path = prefix + child_id
                path = original_path(path) if ".degraded" in path else path
                if path in paths:
                    matched.add(path)
                    if keep:
                        children[child_id] = child
                    else:
                        gone.add(child_id)
                elif path in ancestors and isinstance(child, Block):
                    new, inner_gone, inner_rebuilt = rebuild(child, prefix + child_id + "/")
                    children[child_id] = new
                    if inner_gone or inner_rebuilt:
                        rebuilt[child_id] = (inner_gone, inner_rebuilt)
                elif keep and self._holds_compute(child):
                    gone.add(child_id)
                else:
                    children[child_id] = child
            if not gone and not rebuilt:
                return block, gone, rebuilt
            links = _links_left(block.links, gone, rebuilt)
            return dataclasses.replace(block, children=children, links=links), gone, rebuilt

        return Design(self.design.name, rebuild(self.design.root, "")[0]), matched

    def _is_compute(self, catalog_id: str) -> bool:
        known = self._compute_ids.get(catalog_id)
        if known is None:
            known = catalog_id in self.catalog and self.catalog.get(catalog_id).kind in COMPUTE_KINDS
            self._compute_ids[catalog_id] = known
        return known

    def _holds_compute(self, item: Node | Block) -> bool:
        stack = [item]
        while stack:
            item = stack.pop()
            if isinstance(item, Node):
                if self._is_compute(item.catalog_id):
                    return True
            else:
                stack.extend(item.children.values())
        return False


def _alive(end: str, gone: set[str], rebuilt: dict) -> bool:
    head, _, rest = end.partition("/")
    if head in gone:
        return False
    inner = rebuilt.get(head)
    return inner is None or not rest or _alive(rest, *inner)


def _links_left(links: list, gone: set[str], rebuilt: dict) -> list:
    """The links whose both ends are left. A block drawn device by device owns millions: the
    common case (no child rebuilt) tests the ends' first ids in C."""
    if rebuilt:
        return [link for link in links if _alive(link.a, gone, rebuilt) and _alive(link.b, gone, rebuilt)]
    heads_a = map(_FIRST, map(str.partition, map(_END_A, links), repeat("/")))
    heads_b = map(_FIRST, map(str.partition, map(_END_B, links), repeat("/")))
    cut = map(operator.or_, map(gone.__contains__, heads_a), map(gone.__contains__, heads_b))
    return [link for link, out in zip(links, cut) if not out]
