"""Reliability: job interruption rate, checkpoint interval, ETTR and spares.

Reference: ../shared/reference/reliability-power.md §2 (per-component rates), §3 (Young and
Daly), §4 (ETTR), §5 (spares), §6 (checkpoint sizes), §7 (save/restart times), §11 (defaults).
Rates are events per 1000 device-days; results are per day, hours and minutes.

**What the job depends on** and how often each part interrupts it: ``failure_rates.py``.

**Checkpoints.** Size = total parameters x ``checkpoint_bytes_per_param`` (§6). The write time
is the size over the job's storage write bandwidth (its share of its path's bottleneck,
core/analysis/storage.py) x ``storage_write_efficiency``. Async mode blocks training
``async_blocking_s`` (§7/§11: 1 s) and persists in the background, so the interval is at least
the persist time; sync mode blocks for the whole write. The restore time is the size over the
job's storage read bandwidth x ``storage_read_efficiency``.

**Multi-level checkpoints** (article 003: a memory tier plus asynchronous flush). With
``checkpoint_tiers`` set, each tier has a bandwidth and a capacity per compute node. The job
stalls while its shard (size / job nodes) is copied into the first tier (the blocking time δ);
the tiers behind it and the storage path then flush it as a pipeline, so it is persisted after
δ + size / (the slowest later stage). A failure loses the work since the last checkpoint that
is *recoverable*: in a tier that survives the failure (one with peer copies on other nodes)
or persisted. A failure within L seconds of a snapshot (L = the time until it is recoverable)
falls back to the previous one and redoes one more interval: for failures spread evenly over
the interval that adds L to the expected rework, which enters Daly's model as restart time
(R + L). A checkpoint restores from the first surviving tier, else from storage. A tier too
small for the shard is skipped. Without tiers nothing changes from the single-tier model.

**Interval and ETTR.** The interval is Daly's higher-order optimum (§3; τ = M when δ ≥ 2M), the
ETTR is Daly's exact efficiency T_s/T_w at that interval with R = detection + restart (§4
"exact form"), plus the expected wait for a repaired node when ``include_spare_wait`` is set
(§4 R_eff). Without a workload the checkpoint is empty: δ = 0, τ = 0 and ETTR = e^(-R/M), the
loss from restarts alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy import special

from core.analysis.failure_rates import job_failure_rates
from core.analysis.model_stats import parameter_count
from core.assumptions.reliability import ReliabilityAssumptions
from core.assumptions.storage import CheckpointTier
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inventory import Inventory
from core.jsonable import to_jsonable
from core.workload import Workload

LOW_ETTR = 0.9  # §4: "keeps ETTR >= 0.9" is the bar the reference discusses


@dataclass(frozen=True)
class ReliabilityResult:
    interruptions_per_day: float
    mtbi_hours: float | None          # None when nothing can fail (no interruption to wait for)
    rate_per_1000_node_days: float    # unplanned λ_job per job node, x 1000 (§2 "per node" figure)
    checkpoint_size_gb: float | None  # None without a workload: there is nothing to checkpoint
    # time to persist one checkpoint (None: no workload, or no storage reaches the job)
    checkpoint_write_s: float | None
    checkpoint_blocking_s: float      # training stall per checkpoint
    # compute time between checkpoints (Daly, >= persist time); None when no checkpoint is taken
    # (no workload) or none is ever needed (nothing can fail)
    checkpoint_interval_min: float | None
    daly_interval_min: float | None   # Daly optimum before the async persist floor
    young_interval_min: float | None
    restart_total_min: float          # detection + restart (+ spare wait when enabled)
    ettr: float                       # Daly-exact efficiency at checkpoint_interval_min
    ettr_first_order: float
    rate_by_kind: Mapping[str, float] # interruptions per day by source
    job_gpus: int
    job_nodes: int
    spare_nodes: int                  # spare_fraction of the job's nodes
    spare_available_probability: float
    spares_for_target: int            # Poisson spares for spare_target (§5)
    single_points_of_failure: int
    spof_components: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    # time to read a checkpoint back (None: no workload, or nothing to restore it from)
    checkpoint_restore_s: float | None = None
    checkpoint_restore_from: str | None = None   # the tier or "storage" it restores from
    # seconds from the start of a snapshot until it survives a failure (0 without tiers)
    checkpoint_recoverable_after_s: float | None = 0.0  # None: no checkpoint (inference)
    checkpoint_tiers_used: tuple[str, ...] = ()  # the tiers of checkpoint_tiers that hold it

    @property
    def checkpoint_persisted(self) -> bool:
        """False when there is a checkpoint but no storage bandwidth to write it to."""
        return self.checkpoint_size_gb is None or self.checkpoint_write_s is not None

    @property
    def checkpoint_missing(self) -> str | None:
        """Why there is no checkpoint figure to show ("no workload", "no storage"), or None."""
        if self.checkpoint_size_gb is None:
            return "no workload"
        return None if self.checkpoint_persisted else "no storage"

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)


def _finite_or_none(minutes: float) -> float | None:
    """An interval of minutes, or None where it is infinite (no failure ever calls for one)."""
    return None if math.isinf(minutes) else minutes


# --------------------------------------------------------------------------- formulas (§3, §4, §5)


def young_interval(blocking_min: float, mtbi_min: float) -> float:
    """Young (1974): τ = √(2δM), minutes."""
    if blocking_min <= 0 or not mtbi_min > 0:
        return 0.0
    if math.isinf(mtbi_min):
        return math.inf
    return math.sqrt(2.0 * blocking_min * mtbi_min)


def daly_interval(blocking_min: float, mtbi_min: float) -> float:
    """Daly (2006) higher-order optimum, minutes (§3): τ = M when δ ≥ 2M."""
    d, m = blocking_min, mtbi_min
    if d <= 0 or not m > 0:
        return 0.0
    if math.isinf(m):
        return math.inf
    if d >= 2.0 * m:
        return m
    x = d / (2.0 * m)
    return math.sqrt(2.0 * d * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - d


def daly_efficiency(
    interval_min: float, blocking_min: float, restart_min: float, mtbi_min: float
) -> float:
    """T_s / T_w of Daly's exact wall-time model (§3): τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)).

    ``mtbi_min`` ≤ 0 or infinite means no failures: τ / (τ + δ). τ = 0 with δ = 0 is the limit
    e^{−R/M} (continuous free checkpoints, restart loss only).
    """
    t, d, r, m = interval_min, blocking_min, restart_min, mtbi_min
    if not m > 0 or math.isinf(m):
        if t <= 0:
            return 1.0 if d <= 0 else 0.0
        return t / (t + d)
    if t <= 0:
        return math.exp(-r / m) if d <= 0 else 0.0
    x = (t + d) / m
    if x + r / m > 700.0:
        return 0.0
    return t / (m * math.exp(r / m) * math.expm1(x))


def first_order_ettr(
    interval_min: float, blocking_min: float, restart_min: float, mtbi_min: float
) -> float:
    """§4 first order: [τ/(τ+δ)]·[1 − ((τ+δ)/2 + R)/M], clipped to [0, 1].

    With δ = 0 this is the Kokolis closed form 1 − N·r_f·(u0 + Δt/2).
    """
    t, d, r, m = interval_min, blocking_min, restart_min, mtbi_min
    save = t / (t + d) if t + d > 0 else 1.0
    loss = 0.0 if not m > 0 or math.isinf(m) else ((t + d) / 2.0 + r) / m
    return min(1.0, max(0.0, save * (1.0 - loss)))


def ettr_curve(
    mtbi_hours: float, blocking_s: float, restart_min: float, intervals_min: np.ndarray
) -> np.ndarray:
    """Daly-exact ETTR for each checkpoint interval (minutes) — the GUI's ETTR-vs-interval chart.

    ``mtbi_hours`` ≤ 0 or infinite means no failures. Intervals ≤ 0 give the τ → 0 limit.
    """
    tau = np.asarray(intervals_min, dtype=float)
    d = max(0.0, float(blocking_s)) / 60.0
    r = max(0.0, float(restart_min))
    m = float(mtbi_hours) * 60.0
    out = np.empty_like(tau)
    positive = tau > 0
    if not m > 0 or math.isinf(m):
        out[positive] = tau[positive] / (tau[positive] + d)
        out[~positive] = 1.0 if d <= 0 else 0.0
        return out
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        denom = m * np.exp(r / m) * np.expm1((tau + d) / m)
        out[positive] = tau[positive] / denom[positive]
    out[~positive] = math.exp(-r / m) if d <= 0 else 0.0
    out[~np.isfinite(out)] = 0.0
    return out


def spares_for(mu: float, target: float) -> int:
    """Smallest k with P[Poisson(mu) ≤ k] ≥ target (§5)."""
    if not mu > 0:
        return 0
    target = min(max(target, 0.0), 1.0 - 1e-12)
    # scipy's inverse CDF: constant time and memory for any mu (a window of k values around mu
    # grew with sqrt(mu) and took minutes and GBs at the mu of 1e12 failures). Past its range
    # (mu ~1e19 gives NaN) the normal limit, exact to far more digits than mu carries there.
    k = _poisson_ppf(target, mu)
    if not math.isfinite(k):
        k = math.ceil(mu + float(special.ndtri(target)) * math.sqrt(mu))
    return int(k)


def _poisson_ppf(q: float, mu: float) -> float:
    """scipy.stats.poisson.ppf(q, mu) for mu > 0 and 0 <= q < 1, by the same special functions
    (scipy.stats itself costs most of a second to import, at every start of the window)."""
    if q <= 0:
        return -1.0  # the support's start minus one, as scipy answers
    inverse = float(special.pdtrik(q, mu))  # continuous inverse of the CDF; NaN past its range
    if not math.isfinite(inverse):
        return inverse
    k = math.ceil(inverse)
    below = max(k - 1, 0)
    return float(below if special.pdtr(below, mu) >= q else k)


# --------------------------------------------------------------------------- analysis


def analyze_reliability(
    inventory: Inventory,
    fabric: FabricView | None,
    workload: Workload | None,
    storage_write_gbyte_s: float,
    single_points_of_failure: tuple[str, ...] = (),
    assumptions: ReliabilityAssumptions = ReliabilityAssumptions(),
    storage_read_gbyte_s: float = 0.0,
    checkpoint_tiers: tuple[CheckpointTier, ...] = (),
    plane_failover: bool = False,
) -> ReliabilityResult:
    """Interruptions, checkpoint interval, ETTR and spares of ``workload`` on the design.

    ``storage_write_gbyte_s`` / ``storage_read_gbyte_s`` are the checkpoint write and restore
    bandwidths the job reaches (its share of its storage path, GB/s, rated);
    failure_rates.py says what the job depends on (and, with ``plane_failover``, which network
    failures only degrade a multi-plane fabric). ``checkpoint_tiers`` are the fast tiers in
    front of storage (the storage assumptions, core/assumptions/storage.py), first to last.
    """
    a = assumptions
    diagnostics: list[Diagnostic] = []

    rates = job_failure_rates(inventory, fabric, workload, a, plane_failover)
    diagnostics.extend(rates.diagnostics)
    job_gpus, job_nodes = rates.job_gpus, rates.job_nodes
    node_hw = rates.node_hardware_per_1000_days
    rate_by_kind = dict(rates.rate_by_kind)
    unplanned_per_day = rates.unplanned_per_day
    per_day = unplanned_per_day + rate_by_kind["planned"]
    mtbi_hours = 24.0 / per_day if per_day > 0 else None
    mtbi_min = mtbi_hours * 60.0 if mtbi_hours is not None else math.inf
    if per_day <= 0:
        diagnostics.append(Diagnostic(
            "NO_FAILURE_MODEL", "nothing in the design can fail: no nodes, GPUs or switches"))

    ckpt = _checkpoint(workload, storage_write_gbyte_s, storage_read_gbyte_s, job_nodes,
                       checkpoint_tiers, a, diagnostics)
    mode, size_bytes, write_s, blocking_s = ckpt.mode, ckpt.size_bytes, ckpt.persist_s, ckpt.blocking_s
    spare_nodes, p_spare, spares_needed, restart_total = _restart(job_nodes, node_hw, a,
                                                                  diagnostics)
    # rework of a snapshot not yet recoverable, and the restore when restart_min leaves it out
    restart_total += ckpt.recoverable_after_s / 60.0
    if not a.restart_includes_restore and ckpt.restore_s is not None:
        restart_total += ckpt.restore_s / 60.0

    # ---- interval and ETTR
    blocking_min = blocking_s / 60.0
    daly = daly_interval(blocking_min, mtbi_min)
    young = young_interval(blocking_min, mtbi_min)
    interval = daly
    if size_bytes > 0 and mode == "async" and write_s / 60.0 > interval:
        diagnostics.append(Diagnostic(
            "CHECKPOINT_PERSIST_SLOW",
            f"persisting a checkpoint takes {write_s / 60.0:.1f} min, longer than the optimal "
            f"interval of {daly:.1f} min; the interval is raised to the persist time",
        ))
        interval = write_s / 60.0
    if math.isinf(interval):  # no failures: checkpoints are never needed
        ettr = ettr1 = 1.0
    else:
        ettr = daly_efficiency(interval, blocking_min, restart_total, mtbi_min)
        ettr1 = first_order_ettr(interval, blocking_min, restart_total, mtbi_min)
    if per_day > 0 and ettr < LOW_ETTR:
        diagnostics.append(Diagnostic(
            "LOW_ETTR",
            f"effective training time ratio {ettr:.2f}: the job is interrupted every "
            f"{mtbi_hours:.1f} h; shorten detection/restart (warm spares, in-memory checkpoints) "
            "or the blocking save",
        ))

    return ReliabilityResult(
        interruptions_per_day=per_day,
        mtbi_hours=mtbi_hours,
        rate_per_1000_node_days=unplanned_per_day * 1000.0 / job_nodes if job_nodes else 0.0,
        checkpoint_size_gb=size_bytes / 1e9 if workload is not None else None,
        checkpoint_write_s=write_s if workload is not None and ckpt.persisted else None,
        checkpoint_blocking_s=blocking_s,
        checkpoint_interval_min=_finite_or_none(interval) if size_bytes > 0 else None,
        daly_interval_min=_finite_or_none(daly) if size_bytes > 0 else None,
        young_interval_min=_finite_or_none(young) if size_bytes > 0 else None,
        restart_total_min=restart_total,
        ettr=ettr,
        ettr_first_order=ettr1,
        rate_by_kind=rate_by_kind,
        job_gpus=int(job_gpus),
        job_nodes=int(job_nodes),
        spare_nodes=spare_nodes,
        spare_available_probability=p_spare,
        spares_for_target=spares_needed,
        single_points_of_failure=len(single_points_of_failure),
        spof_components=tuple(single_points_of_failure),
        diagnostics=tuple(diagnostics),
        checkpoint_restore_s=ckpt.restore_s if workload is not None else None,
        checkpoint_restore_from=ckpt.restore_from if workload is not None else None,
        checkpoint_recoverable_after_s=ckpt.recoverable_after_s if size_bytes > 0 else None,
        checkpoint_tiers_used=ckpt.tiers_used,
    )


@dataclass(frozen=True)
class _Checkpoint:
    mode: str
    size_bytes: float
    persist_s: float              # from the start of a snapshot until it is in storage
    persisted: bool               # False when no storage bandwidth reaches the job
    blocking_s: float             # training stall per checkpoint
    recoverable_after_s: float    # from the start of a snapshot until it survives a failure
    restore_s: float | None
    restore_from: str | None
    tiers_used: tuple[str, ...]


def _checkpoint(workload: Workload | None, storage_write_gbyte_s: float,
                storage_read_gbyte_s: float, job_nodes: int,
                checkpoint_tiers: tuple[CheckpointTier, ...], a: ReliabilityAssumptions,
                diagnostics: list[Diagnostic]) -> _Checkpoint:
    """Size, blocking, persist, recoverable and restore times of one checkpoint of the job."""
    mode = a.checkpoint_mode
    if mode not in ("async", "sync"):
        diagnostics.append(Diagnostic(
            "BAD_ASSUMPTION", f"checkpoint_mode {mode!r} is not 'async' or 'sync'; using async"))
        mode = "async"
    params = parameter_count(workload.model).total if workload is not None else 0.0
    size_bytes = params * a.checkpoint_bytes_per_param
    bandwidth = max(0.0, float(storage_write_gbyte_s)) * a.storage_write_efficiency * 1e9
    read_bandwidth = max(0.0, float(storage_read_gbyte_s)) * a.storage_read_efficiency * 1e9
    write_s = size_bytes / bandwidth if size_bytes > 0 and bandwidth > 0 else 0.0
    persisted = bandwidth > 0
    if size_bytes > 0 and bandwidth <= 0:
        diagnostics.append(Diagnostic(
            "NO_STORAGE",
            f"no storage write bandwidth reaches the job: a {size_bytes / 1e9:,.0f} GB checkpoint "
            "cannot be persisted"
            + (f"; assuming a {a.sync_fallback_blocking_s:.0f} s blocking save" if mode == "sync" else ""),
        ))
    restore_s = size_bytes / read_bandwidth if size_bytes > 0 and read_bandwidth > 0 else None
    restore_from = "storage" if restore_s is not None else None
    tiers = _usable_tiers(size_bytes, job_nodes, checkpoint_tiers, diagnostics)
    if size_bytes <= 0:
        return _Checkpoint(mode, 0.0, 0.0, persisted, 0.0, 0.0, None, None, ())
    if not tiers:
        if mode == "async":
            blocking_s = a.async_blocking_s
        else:
            blocking_s = write_s if bandwidth > 0 else a.sync_fallback_blocking_s
        return _Checkpoint(mode, size_bytes, write_s, persisted, blocking_s, 0.0, restore_s,
                           restore_from, ())

    # Multi-level: snapshot into the first tier, then a pipelined flush through the others.
    job_bytes_s = [(name, per_node * 1e9 * job_nodes, survives)
                   for name, per_node, survives in tiers]
    snapshot_s = size_bytes / job_bytes_s[0][1]
    slowest = math.inf
    ready_s: list[float] = [snapshot_s]   # when each tier holds the snapshot
    for _, bytes_s, _ in job_bytes_s[1:]:
        slowest = min(slowest, bytes_s)
        ready_s.append(snapshot_s + size_bytes / slowest)
    persist_s = snapshot_s + size_bytes / min(slowest, bandwidth) if persisted else 0.0
    recoverable_s = next((t for t, (_, _, survives) in zip(ready_s, job_bytes_s) if survives),
                         persist_s)
    surviving = next(((name, bytes_s) for name, bytes_s, survives in job_bytes_s if survives), None)
    if surviving is not None:
        restore_from, restore_s = surviving[0], size_bytes / surviving[1]
    if mode == "sync":  # the job waits for the whole flush: nothing is at risk once it resumes
        blocking_s = persist_s if persisted else a.sync_fallback_blocking_s
        recoverable_s = 0.0
    else:
        blocking_s = snapshot_s
        if not persisted and surviving is None:
            recoverable_s = 0.0  # nothing ever becomes recoverable: NO_STORAGE says so
    return _Checkpoint(mode, size_bytes, persist_s, persisted, blocking_s, recoverable_s,
                       restore_s, restore_from, tuple(name for name, _, _ in tiers))


def _usable_tiers(size_bytes: float, job_nodes: int, checkpoint_tiers: tuple[CheckpointTier, ...],
                  diagnostics: list[Diagnostic]) -> list[tuple[str, float, bool]]:
    """(name, GB/s per node, survives a failure) of the checkpoint tiers the job's shard fits."""
    if not checkpoint_tiers or size_bytes <= 0 or job_nodes <= 0:
        return []
    shard_gb = size_bytes / 1e9 / job_nodes
    usable = []
    for tier in checkpoint_tiers:
        needed_gb = shard_gb * (1 + tier.peer_copies)  # its own shard and its peers' copies
        if tier.capacity_gb_per_node < needed_gb:
            diagnostics.append(Diagnostic(
                "CHECKPOINT_TIER_TOO_SMALL",
                f"checkpoint tier {tier.name!r} holds {tier.capacity_gb_per_node:,.0f} GB per "
                f"node, less than the {needed_gb:,.1f} GB the job's shard and "
                f"{tier.peer_copies} peer copies need: the tier is skipped"))
            continue
        usable.append((tier.name, float(tier.gbyte_s_per_node), bool(tier.survives_failure)))
    return usable


def _restart(job_nodes: int, node_hw: float, a: ReliabilityAssumptions,
             diagnostics: list[Diagnostic]) -> tuple[int, float, int, float]:
    """(spare nodes, probability one is free, spares for the target, minutes to restart):
    nodes in repair are Poisson with mean rate x repair time (§5)."""
    spare_nodes = int(math.floor(a.spare_fraction * job_nodes + 1e-9))
    mu = node_hw / 1000.0 * a.repair_days_mean
    p_spare = float(special.pdtr(spare_nodes - 1, mu)) if spare_nodes > 0 else 0.0
    if mu <= 0:
        p_spare = 1.0
    spares_needed = spares_for(mu, a.spare_target)
    restart_total = a.detection_min + a.restart_min
    if a.include_spare_wait:
        restart_total += (1.0 - p_spare) * a.repair_days_mean * 1440.0
    if spare_nodes < spares_needed:
        diagnostics.append(Diagnostic(
            "SPARES_SHORT",
            f"{spare_nodes} spare nodes ({a.spare_fraction:.0%}) for a {job_nodes}-node job; "
            f"{spares_needed} keep it whole with {a.spare_target:.0%} probability "
            f"(Poisson, mean {mu:.1f} nodes in repair)",
        ))
    return spare_nodes, p_spare, spares_needed, restart_total
