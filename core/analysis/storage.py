"""Storage by I/O class: the path each kind of I/O takes, its bottleneck, the job's bandwidth.

The classes are the ones the source articles name (article 000's "super tunneling" gives each
its own path): bulk sequential reads (data loading), checkpoint write bursts, checkpoint
restore reads and small random reads for inference (KV cache, embeddings).

**The path.** Compute nodes reach storage over their storage links when they have any (bundles
of kind ``storage`` or ``frontend`` from a compute node: a *separate* storage fabric, the
north-south NIC or DPU ports of the server), else over their scale-out NICs (a *converged*
fabric: storage nodes on the compute fabric's switches). The path is a chain of stages, each a
cut all compute-to-storage traffic crosses: the compute nodes' links, every tier-to-tier cut of
the switches on the path (crossed up and then down), the storage nodes' links and the storage
devices themselves (datasheet read or write GB/s, or IOPS x I/O size for small reads). When the
storage links leave from the nodes' DPUs, their engines are stages too (core/analysis/dpu.py:
storage GB/s or IOPS, network line rate, IPsec when ``dpu_encrypt_storage``).

**The job's share** (issue 14: a checkpoint never gets faster when the cluster grows around an
unchanged job). The job has the links of its own nodes (its fraction ``f`` of the GPUs on the
path). Every other stage is shared with the rest of the compute nodes: the job gets
``f / (f + c (1 - f))`` of it, where ``c`` is the share of the other nodes doing storage I/O
at the same time (``contention``; 1 = they all do, the fair share by endpoints). The job's
bandwidth is the least of its stages; it can only fall when nodes are added around the job.

Bandwidths are rated (line rate, datasheet throughput); the reliability analysis applies its
read and write efficiencies to turn them into checkpoint times. Latency is the one-way time of
the first byte: NIC on both sides, every switch crossed (the top tier once, the others up and
down), cable propagation and the storage device's service latency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from core.analysis.dpu import DpuStage, storage_path_stages
from core.diagnostics import Diagnostic
from core.errors import ProjectFileError
from core.flatten import FlatDesign
from core.jsonable import to_jsonable
from core.topology import NS_PER_M, NetworkAssumptions, Topology
from core.workload import Workload

IO_CLASSES = ("data_loading", "checkpoint_write", "checkpoint_restore", "inference_small_read")
IO_CLASS_TITLES = {
    "data_loading": "Data loading (bulk sequential read)",
    "checkpoint_write": "Checkpoint write burst",
    "checkpoint_restore": "Checkpoint restore read",
    "inference_small_read": "Inference small random read (KV cache, embeddings)",
}
_SEPARATE_KINDS = ("storage", "frontend")

_LATENCY_US = {"min": 0.0, "unit": "µs"}


@dataclass(frozen=True)
class StorageAssumptions:
    # Share of the other compute nodes doing storage I/O while the job does (1: every node
    # bursts at once and the job gets its fair share of shared tiers by endpoints; 0: the job
    # has the shared tiers and storage to itself). E: checkpoint bursts of co-scheduled jobs.
    contention: float = field(default=1.0, metadata={"min": 0.0, "max": 1.0, "unit": "fraction"})
    # Service latency of a read at the storage node (E: NVMe flash ~80-100 µs plus the
    # parallel-file-system client and server; no public per-appliance figure).
    device_read_latency_us: float = field(default=100.0, metadata=_LATENCY_US)
    # Service latency of a write into the storage node's write cache (E, as above).
    device_write_latency_us: float = field(default=50.0, metadata=_LATENCY_US)
    # Size of one small random read (KV-cache block, embedding row): 4 KiB pages.
    small_read_bytes: float = field(default=4096.0, metadata={"min": 1.0, "unit": "bytes"})
    # Random-read IOPS per GB/s of rated sequential read when the catalog entry has no
    # ``read_iops`` (E: DDN AI400X2 ~3 M IOPS at ~90 GB/s, recalled; hardware.md §7 row).
    iops_per_read_gbyte_s: float = field(default=33_000.0, metadata={"min": 0.0, "unit": "IOPS per GB/s"})
    # --- multi-level checkpoints (article 003: a memory tier plus asynchronous flush) ---
    # Fast tiers in front of the storage system, first to last as listed: name -> [GB/s per
    # compute node into (and back out of) the tier, GB per node it holds, peer copies]. Peer
    # copies are replicas on other nodes (GEMINI keeps checkpoints in peers' CPU memory): with
    # 0 the tier dies with its node, with 1 or more it survives a node failure, and the tier
    # must hold the job's shard 1 + copies times. E.g. {"host-memory": [200, 1024, 1]}: PCIe
    # Gen5 x16 ~25 GB/s per GPU x 8 (E). The storage path is always the last, persisting tier.
    # Empty: the reliability analysis's single-tier model (checkpoint_mode, async_blocking_s).
    checkpoint_tiers: dict[str, list[float]] = field(
        default_factory=dict, metadata={"min": 0.0})
    # Encrypt the storage traffic that leaves through DPUs (IPsec on their security engines,
    # tenant isolation as in article 003): the security engine's rate then caps that path.
    dpu_encrypt_storage: bool = False

    def __post_init__(self) -> None:
        for name, row in self.checkpoint_tiers.items():
            if len(row) != 3 or not row[0] > 0 or row[2] != int(row[2]):
                raise ProjectFileError(
                    f"$.assumptions.storage.checkpoint_tiers.{name}: expected [GB/s per node > 0, "
                    f"GB per node, whole number of peer copies], got {list(row)}")

    def checkpoint_tier_list(self) -> tuple["CheckpointTier", ...]:
        """The checkpoint tiers as rows, first to last."""
        return tuple(CheckpointTier(name, float(row[0]), float(row[1]), int(row[2]))
                     for name, row in self.checkpoint_tiers.items())


@dataclass(frozen=True)
class CheckpointTier:
    """One fast checkpoint tier in front of the storage system (per compute node)."""

    name: str
    gbyte_s_per_node: float
    capacity_gb_per_node: float
    peer_copies: int          # replicas on other nodes; > 0 survives a node failure

    @property
    def survives_failure(self) -> bool:
        return self.peer_copies > 0


@dataclass(frozen=True)
class IOClassResult:
    path: str                          # NICs/DPUs -> fabric tiers -> storage tier, in words
    bottleneck: str | None             # the stage that limits the job (None: no storage)
    job_gbyte_s: float | None          # the job's aggregate at its bottleneck (rated)
    per_gpu_gbyte_s: float | None
    latency_us: float | None           # first byte, one way
    stages_gbyte_s: Mapping[str, float] = field(default_factory=dict)  # job's share per stage


@dataclass(frozen=True)
class StorageResult:
    fabric: str | None                 # "separate", "converged" or None (no storage reached)
    job_gpus: int
    path_gpus: int                     # GPUs whose nodes reach storage
    job_share: float                   # f: the job's fraction of the GPUs on the path
    shared_share: float                # what the job gets of every shared stage
    storage_nodes: int
    classes: Mapping[str, IOClassResult]
    diagnostics: tuple[Diagnostic, ...] = ()
    dpu_stages: tuple[DpuStage, ...] = ()  # the DPU engines on the path (core/analysis/dpu.py)

    def to_json(self) -> dict[str, Any]:
        """The evaluation JSON's ``storage`` section: one entry per I/O class."""
        return {name: to_jsonable(result) for name, result in self.classes.items()}


@dataclass(frozen=True)
class _Stage:
    name: str
    read_gbyte_s: float
    write_gbyte_s: float
    shared: bool
    small_reads_only: bool = False   # an IOPS cap: it limits small random reads only


def _job_gpus(total_gpus: int, workload: Workload | None) -> int:
    """The GPUs of the workload's job on the design (all of them without a workload)."""
    if workload is None or workload.auto:
        return total_gpus
    return min(int(workload.parallelism.gpus), total_gpus)


def _scale_out_switches(flat: FlatDesign) -> np.ndarray:
    return flat.per_group(
        lambda spec: spec.kind == "switch" and spec.role == "scale-out", dtype=bool)


def _path_groups(flat: FlatDesign, kinds: tuple[str, ...]):
    """(bundles on the path, the compute nodes' first links onto it, those compute groups,
    every group reached) over bundles of ``kinds``, or None when no storage is reached."""
    compute = flat.is_compute
    on_path = flat.bundles_of_kind(*kinds)
    touches_compute = compute[flat.bundle_a] | compute[flat.bundle_b]
    first_links = on_path & touches_compute & ~(compute[flat.bundle_a] & compute[flat.bundle_b])
    start = np.zeros(len(compute), dtype=bool)
    start[flat.bundle_a[first_links]] = True
    start[flat.bundle_b[first_links]] = True
    start &= compute
    if not start.any():
        return None
    reached = _reach(flat, on_path, _scale_out_switches(flat), start)
    if not (reached & (flat.kind == "storage")).any():
        return None
    return on_path, first_links, start, reached


def _reach(flat: FlatDesign, bundles: np.ndarray, through: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Groups reached from ``start`` over ``bundles``, passing only through ``through`` groups."""
    reached = start.copy()
    a, b = flat.bundle_a[bundles], flat.bundle_b[bundles]
    frontier = start.copy()
    while frontier.any():
        nxt = np.zeros_like(reached)
        nxt[b[frontier[a]]] = True
        nxt[a[frontier[b]]] = True
        nxt &= ~reached
        reached |= nxt
        frontier = nxt & through
    return reached


def analyze_storage(
    topology: Topology,
    workload: Workload | None,
    assumptions: StorageAssumptions = StorageAssumptions(),
    network: NetworkAssumptions = NetworkAssumptions(),
) -> StorageResult:
    """The job's path, bottleneck, bandwidth and latency for every I/O class."""
    flat = topology.flat
    a = assumptions
    total_gpus = flat.gpus
    job_gpus = _job_gpus(total_gpus, workload)
    storage = flat.kind == "storage"
    n_storage = int(flat.multiplicity[storage].sum())
    # A separate storage fabric when the compute nodes' storage links reach storage, else
    # the compute fabric itself (converged; storage nodes on its switches).
    route = _path_groups(flat, _SEPARATE_KINDS)
    converged = route is None
    if converged:
        route = _path_groups(flat, ("scale-out", *_SEPARATE_KINDS))
    if route is None:
        return _no_storage(job_gpus, n_storage)
    on_path, first_links, start, reached = route
    reached_storage = reached & storage
    scale_out_switch = _scale_out_switches(flat)

    path_gpus = int(np.dot(flat.multiplicity[start], flat.gpus_per_group_unit[start]))
    f = min(1.0, job_gpus / path_gpus) if path_gpus else 0.0
    c = a.contention
    shared = f / (f + c * (1.0 - f)) if f > 0 else 0.0
    chain = _stage_chain(topology, on_path, first_links, start, reached & scale_out_switch,
                         reached_storage, converged, a)
    network_us = 2.0 * network.nic_latency_us + chain.switch_and_cable_ns / 1000.0
    fabric = "converged" if converged else "separate"
    classes = {}
    for io_class in IO_CLASSES:
        writing = io_class == "checkpoint_write"
        limits = {s.name: (s.write_gbyte_s if writing else s.read_gbyte_s) * (shared if s.shared else f)
                  for s in chain.stages
                  if not s.small_reads_only or io_class == "inference_small_read"}
        if io_class == "inference_small_read":  # IOPS-bound at the devices, not throughput
            del limits[chain.device_stage]
            limits[chain.iops_stage] = chain.small_read_gbyte_s * shared
        bottleneck = min(limits, key=limits.get)
        job = limits[bottleneck]
        latency = network_us + (a.device_write_latency_us if writing else a.device_read_latency_us)
        classes[io_class] = IOClassResult(
            path=f"{chain.path} ({fabric} storage fabric)",
            bottleneck=bottleneck,
            job_gbyte_s=job,
            per_gpu_gbyte_s=job / job_gpus if job_gpus else None,
            latency_us=latency,
            stages_gbyte_s=limits,
        )
    diagnostics = []
    if job_gpus > path_gpus:
        diagnostics.append(Diagnostic(
            "STORAGE_PARTLY_REACHED",
            f"only {path_gpus:,} of the job's {job_gpus:,} GPUs have a path to storage; "
            "storage bandwidth is for those"))
    return StorageResult(fabric, job_gpus, path_gpus, f, shared, n_storage, classes,
                         tuple(diagnostics), chain.dpu_stages)


@dataclass(frozen=True)
class _Chain:
    """The stages of the path from the compute nodes to the storage devices."""

    stages: tuple[_Stage, ...]
    path: str                       # in words
    switch_and_cable_ns: float      # one way, switches and cables crossed
    device_stage: str               # name of the devices' throughput stage
    iops_stage: str                 # name of their random-read IOPS stage
    small_read_gbyte_s: float       # IOPS x small-read size, all reached devices
    dpu_stages: tuple[DpuStage, ...] = ()


def _stage_chain(topology: Topology, on_path: np.ndarray, first_links: np.ndarray,
                 start: np.ndarray, switches: np.ndarray, reached_storage: np.ndarray,
                 converged: bool, a: StorageAssumptions) -> _Chain:
    """Every cut of the path (capacity for all compute nodes), its words and its delay."""
    flat = topology.flat
    stages: list[_Stage] = []
    lengths: dict[str, float] = {}
    # 1. the compute nodes' own links onto the path (the job's are its own)
    own = first_links & (start[flat.bundle_a] | start[flat.bundle_b])
    own_gbyte_s = float(flat.capacity_gbit_s[own].sum()) / 8.0
    stages.append(_Stage("job's own links", own_gbyte_s, own_gbyte_s, shared=False))
    lengths["job's own links"] = _mean_length_ns(flat, own)
    # 1b. the DPUs those links leave from (a separate fabric reached over DPU ports): their
    # engines are the node's own stages too; a tie with the links leaves the links binding
    dpu_stages: tuple[DpuStage, ...] = ()
    if not converged:
        n = len(start)
        own_gbit_s = (np.bincount(flat.bundle_a[own], flat.capacity_gbit_s[own], minlength=n)
                      + np.bincount(flat.bundle_b[own], flat.capacity_gbit_s[own], minlength=n))
        dpu_stages = storage_path_stages(flat, start, np.where(start, own_gbit_s, 0.0),
                                         a.dpu_encrypt_storage, a.small_read_bytes)
        stages.extend(_Stage(d.name, d.gbyte_s, d.gbyte_s, False, d.small_reads_only)
                      for d in dpu_stages)
    # 2. tier-to-tier cuts of the switches on the path, bottom-up. The path climbs from the
    # compute nodes to the top rank, then descends to the rank the storage hangs on: a
    # separate fabric's leaves (rank 1) are crossed twice, a converged fabric's storage
    # leaves (the top rank, reached over the compute spines) once.
    rank = _switch_rank(flat, on_path, switches, start)
    top = int(rank[switches].max()) if switches.any() else 0
    tier_path = ["/".join(sorted({topology.tiers.get(i, "switch")
                                  for i in np.flatnonzero(switches & (rank == r))}))
                 for r in range(1, top + 1)]
    storage_links = on_path & (reached_storage[flat.bundle_a] | reached_storage[flat.bundle_b])
    ends = np.concatenate([flat.bundle_a[storage_links], flat.bundle_b[storage_links]])
    attach = int(rank[ends[switches[ends]]].min()) if switches[ends].any() else top
    between = on_path & switches[flat.bundle_a] & switches[flat.bundle_b]
    low_rank = np.minimum(rank[flat.bundle_a], rank[flat.bundle_b])
    for r in range(1, top):
        cut = between & (low_rank == r) & (rank[flat.bundle_a] != rank[flat.bundle_b])
        if cut.any():
            gbyte_s = float(flat.capacity_gbit_s[cut].sum()) / 8.0
            name = f"{tier_path[r - 1]}–{tier_path[r]} links"
            stages.append(_Stage(name, gbyte_s, gbyte_s, shared=True))
            lengths[name] = (2.0 if r >= attach else 1.0) * _mean_length_ns(flat, cut)
    # 3. the storage nodes' links and 4. the storage devices
    link_gbyte_s = float(flat.capacity_gbit_s[storage_links].sum()) / 8.0
    stages.append(_Stage("storage links", link_gbyte_s, link_gbyte_s, shared=True))
    lengths["storage links"] = _mean_length_ns(flat, storage_links)
    rows = np.flatnonzero(reached_storage)
    mult = flat.multiplicity[rows].astype(float)
    specs = [flat.specs[flat.spec_row[i]] for i in rows]
    read = float(np.dot(mult, [float(s.read_gbyte_s) for s in specs]))
    write = float(np.dot(mult, [float(s.write_gbyte_s) for s in specs]))
    iops = float(np.dot(mult, [float(s.read_gbyte_s) * a.iops_per_read_gbyte_s for s in specs]))
    units_by_id: dict[str, int] = {}
    for i, spec in zip(rows.tolist(), specs):
        units_by_id[spec.id] = units_by_id.get(spec.id, 0) + int(flat.multiplicity[i])
    storage_ids = sorted(units_by_id)
    device_name = " + ".join(storage_ids)
    stages.append(_Stage(f"{device_name} throughput", read, write, shared=True))

    switch_ns = 0.0
    for r in range(1, top + 1):
        at = np.flatnonzero(switches & (rank == r))
        ns = float(np.mean([float(flat.specs[flat.spec_row[i]].latency_ns) for i in at]))
        switch_ns += ns * (2 if attach <= r < top else 1)
    node_ids = sorted({flat.specs[flat.spec_row[i]].id for i in np.flatnonzero(start)})
    first_words = _first_hop_words(flat, start, own, converged)
    path = " -> ".join([f"{'+'.join(node_ids)} ({first_words} per node)",
                        *[f"{t} switches" for t in tier_path],
                        ", ".join(f"{units_by_id[sid]:,} x {sid}" for sid in storage_ids)])
    return _Chain(tuple(stages), path, switch_ns + sum(lengths.values()),
                  f"{device_name} throughput", f"{device_name} random-read IOPS",
                  iops * a.small_read_bytes / 1e9, dpu_stages)


def _switch_rank(flat: FlatDesign, bundles: np.ndarray, switches: np.ndarray,
                 start: np.ndarray) -> np.ndarray:
    """Hops of every switch on the path from the compute nodes (1 = their leaves; 0 elsewhere)."""
    rank = np.zeros(len(switches), dtype=np.int64)
    a, b = flat.bundle_a[bundles], flat.bundle_b[bundles]
    seen = start.copy()
    frontier = start.copy()
    hop = 0
    while frontier.any():
        hop += 1
        nxt = np.zeros_like(seen)
        nxt[b[frontier[a]]] = True
        nxt[a[frontier[b]]] = True
        nxt &= switches & ~seen
        rank[nxt] = hop
        seen |= nxt
        frontier = nxt
    return rank


def _mean_length_ns(flat: FlatDesign, bundles: np.ndarray) -> float:
    """Propagation delay of one cable of ``bundles``, weighted by their cables."""
    cables = flat.cables[bundles].astype(float)
    if not cables.sum():
        return 0.0
    ns_per_m = np.array([NS_PER_M.get(m, 5.0) for m in flat.medium_names])
    delay = flat.length_m[bundles] * ns_per_m[flat.medium_code[bundles]]
    return float(np.dot(cables, delay) / cables.sum())


def _first_hop_words(flat: FlatDesign, start: np.ndarray, own: np.ndarray, converged: bool) -> str:
    """Which ports of the compute nodes carry their storage I/O, in words."""
    first = int(np.flatnonzero(start)[0])
    spec = flat.specs[flat.spec_row[first]]
    units = int(flat.multiplicity[start].sum())
    ports = float(flat.cables[own].sum()) / units if units else 0.0
    speeds = "/".join(f"{v:g}G" for v in np.unique(flat.speed_gbit_s[own]))
    if converged:
        what = f"{spec.nic} compute NICs" if spec.nic else "compute NICs"
    elif spec.dpu and spec.dpus:
        what = f"{spec.dpu} DPU ports"
    else:
        what = "storage NIC ports"
    return f"{ports:g} x {speeds} {what}"


def _no_storage(job_gpus: int, storage_nodes: int) -> StorageResult:
    path = "no storage in the design" if not storage_nodes else "no storage reaches the GPUs"
    empty = IOClassResult(path, None, None, None, None)
    return StorageResult(None, job_gpus, 0, 0.0, 0.0, storage_nodes,
                         {io_class: empty for io_class in IO_CLASSES})
