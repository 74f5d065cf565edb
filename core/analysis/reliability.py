"""Reliability: job interruption rate, checkpoint interval, ETTR and spares.

Reference: ../shared/reference/reliability-power.md §2 (per-component rates), §3 (Young and
Daly), §4 (ETTR), §5 (spares), §6 (checkpoint sizes), §7 (save/restart times), §11 (defaults).
Rates are events per 1000 device-days; results are per day, hours and minutes.

**What the job depends on** (λ_job = Σ n_i·λ_i, §2). The job spans the product of its
parallelism degrees (tp·pp·dp·cp) in GPUs, capped at the design's GPUs; no workload or
``"auto"`` parallelism means the whole design. Ranks fill the fabric's GPU numbering in order
(``core.fabric``), so the job occupies ``ceil(job_gpus / gpus_per_node)`` nodes.

* Per-node parts scale with the job's nodes: hosts (catalog rate of the server/super-node, else
  ``host_per_1000_node_days`` per 8 GPUs), software (per 8 GPUs), NICs/DPUs, scale-up switches,
  and the node links (one per NIC/DPU port).
* GPUs scale with the job's GPUs.
* Scale-out switch tier *i* (fabric level *i*: leaf = 1, spine = 2, core = 3, or by level name)
  counts only once the job spans more than one level-(i-1) domain, and then for the share of
  level-*i* domains the job touches: ``ceil(job / domain_i) · domain_i / gpus``. For the leaf
  tier that is the job's share of leaf domains; in a 2-tier fabric the spine's domain is the
  whole design, so the spine counts fully once the job spans more than one leaf domain. In a
  3-tier fabric the spines count per pod touched and the core once the job spans two pods.
* Switch-to-switch links scale like the leaf tier (the job's traffic leaves through the uplinks
  of its own leaves) and count once the job spans more than one scale-up domain.
* Storage counts fully (every job checkpoints to it); planned events are per job.

Links are counted from cable items when the inventory has them (one cable per link; node links
are the NIC/DPU ports, the rest are switch-to-switch). Without cables they are derived from the
powered (switch-side) transceiver ends: ``(ends - node links) / 2``, a module with ``lanes = 2``
(twin-port OSFP) counting as two ends. Transceivers carry no failure rate of their own: the link
rate covers cable plus optics (§2).

Rate precedence for an item: the item's own override, then ``rate_overrides[catalog_id]``, then
the catalog's ``failure_rate_per_1000_days``, then the per-kind default below.

**Checkpoints.** Size = total parameters x ``checkpoint_bytes_per_param`` (§6). The write time
is the size over the reachable storage write bandwidth x ``storage_write_efficiency``. Async mode
blocks training ``async_blocking_s`` (§7/§11: 1 s) and persists in the background, so the
interval is at least the persist time; sync mode blocks for the whole write.

**Interval and ETTR.** The interval is Daly's higher-order optimum (§3; τ = M when δ ≥ 2M), the
ETTR is Daly's exact efficiency T_s/T_w at that interval with R = detection + restart (§4
"exact form"), plus the expected wait for a repaired node when ``include_spare_wait`` is set
(§4 R_eff). Without a workload the checkpoint is empty: δ = 0, τ = 0 and ETTR = e^(-R/M), the
loss from restarts alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
from scipy import special, stats

from core.analysis.model_stats import parameter_count
from core.diagnostics import Diagnostic
from core.jsonable import to_jsonable
from core.fabric import FabricView
from core.inventory import Inventory, InventoryItem
from core.workload import Workload

RATE_KEY = "failure_rate_per_1000_days"
RATE_KINDS = ("gpu", "host", "nic", "link", "switch", "scale-up", "storage", "software", "planned")
DEFAULT_TIER_LEVEL = {"leaf": 1, "spine": 2, "core": 3}
LOW_ETTR = 0.9  # §4: "keeps ETTR >= 0.9" is the bar the reference discusses


# Bounds of the assumptions below (core/settings.py reads them from the field metadata): rates,
# times and sizes are not negative; shares and probabilities are within 0-1 (a write efficiency
# above 0; a spare target below 1, which no finite number of spares reaches).
_PER_DEVICE = {"min": 0.0, "unit": "per 1000 device-days"}
_PER_NODE = {"min": 0.0, "unit": "per 1000 node-days"}
_MINUTES = {"min": 0.0, "unit": "min"}
_SECONDS = {"min": 0.0, "unit": "s"}
_EFFICIENCY = {"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}


@dataclass(frozen=True)
class ReliabilityAssumptions:
    # --- failure rates (§2) ---
    # Per-component rates, per 1000 device-days, used when the catalog has none
    # (reliability-power.md §2, H100-class, job-interrupting).
    # §2 GPU all causes (range 0.14-0.75).
    gpu_per_1000_days: float = field(default=0.25, metadata=_PER_DEVICE)
    # §2 NIC (StepFun 0.22/8); also DPUs.
    nic_per_1000_days: float = field(default=0.03, metadata=_PER_DEVICE)
    # §2 link = cable + optics (HPN 0.019; StepFun 0.036).
    link_per_1000_days: float = field(default=0.02, metadata=_PER_DEVICE)
    # §2 single-chip switch, critical (HPN 0.017).
    switch_per_1000_days: float = field(default=0.02, metadata=_PER_DEVICE)
    # §2 chassis switch ~123x single-chip (HPN, low confidence).
    chassis_multiplier: float = field(default=123.0, metadata={"min": 0.0, "unit": "×"})
    # §2: NVLink faults are inside the GPU rate.
    scale_up_switch_per_1000_days: float = field(default=0.0, metadata=_PER_DEVICE)
    # No public per-appliance figure; file-system faults sit in software.
    storage_per_1000_days: float = field(default=0.0, metadata=_PER_DEVICE)
    # §2 host non-GPU, per 8-GPU node.
    host_per_1000_node_days: float = field(default=0.45, metadata=_PER_NODE)
    # §2 software/unknown/hangs, per 8-GPU node (0.7-15).
    software_per_1000_node_days: float = field(default=1.0, metadata=_PER_NODE)
    # §2 planned interruptions: operator policy.
    planned_per_day: float = field(default=0.0, metadata={"min": 0.0, "unit": "per day"})
    # --- recovery (§7 engine defaults, §11) ---
    # Detection of a failure, 0.5-10 min.
    detection_min: float = field(default=2.0, metadata=_MINUTES)
    # Restart with a warm spare, 1-20 min.
    restart_min: float = field(default=5.0, metadata=_MINUTES)
    # --- checkpoints (§6, §7, §11) ---
    # bf16 weights + fp32 master + Adam m, v (range 10-16).
    checkpoint_bytes_per_param: float = field(default=14.0, metadata={"min": 0.0, "unit": "bytes / parameter"})
    # "async": training blocks async_blocking_s and the checkpoint persists in the background;
    # "sync": training blocks for the whole write (§7).
    checkpoint_mode: str = field(default="async", metadata={"choices": ("async", "sync")})
    # §7/§11 async blocking save (ByteCheckpoint 0.34-0.59 s).
    async_blocking_s: float = field(default=1.0, metadata=_SECONDS)
    # §7/§11 sync save when no storage bandwidth is known.
    sync_fallback_blocking_s: float = field(default=300.0, metadata=_SECONDS)
    # E: share of rated write bandwidth a checkpoint burst reaches.
    storage_write_efficiency: float = field(default=0.8, metadata=_EFFICIENCY)
    # --- repair and spares (§2, §5, §11) ---
    # StepFun mean (median 0.85 d).
    repair_days_mean: float = field(default=5.5, metadata={"min": 0.0, "unit": "days (mean)"})
    # §11 spares 5% of nodes (0-10%).
    spare_fraction: float = field(default=0.05, metadata={"min": 0.0, "max": 1.0, "unit": "fraction"})
    # §5 spares sized for 99%.
    spare_target: float = field(
        default=0.99, metadata={"min": 0.0, "max": 1.0, "max_exclusive": True, "unit": "fraction"})
    # Add (1 - P_spare) x repair to R (§4 R_eff).
    include_spare_wait: bool = False
    # --- per-component overrides ---
    # Catalog id -> rate per 1000 device-days (per node for servers/super-nodes).
    rate_overrides: dict[str, float] = field(default_factory=dict, metadata=_PER_DEVICE)


@dataclass(frozen=True)
class ReliabilityResult:
    interruptions_per_day: float
    mtbi_hours: float                 # 0 when nothing can fail (empty design)
    rate_per_1000_node_days: float    # unplanned λ_job per job node, x 1000 (§2 "per node" figure)
    checkpoint_size_gb: float
    checkpoint_write_s: float         # time to persist one checkpoint (0 when it cannot)
    checkpoint_blocking_s: float      # training stall per checkpoint
    checkpoint_interval_min: float    # compute time between checkpoints (Daly, >= persist time)
    daly_interval_min: float          # Daly optimum before the async persist floor
    young_interval_min: float
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

    @property
    def checkpoint_persisted(self) -> bool:
        """False when there is a checkpoint but no storage bandwidth to write it to."""
        return self.checkpoint_size_gb <= 0 or self.checkpoint_write_s > 0

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)


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
    k = stats.poisson.ppf(target, mu)
    if not math.isfinite(k):
        k = math.ceil(mu + stats.norm.ppf(target) * math.sqrt(mu))
    return int(k)


# --------------------------------------------------------------------------- analysis


def _rate(item: InventoryItem, default: float, a: ReliabilityAssumptions) -> float:
    if RATE_KEY in item.overrides:
        return float(item.overrides[RATE_KEY])
    if item.catalog_id in a.rate_overrides:
        return float(a.rate_overrides[item.catalog_id])
    value = item.spec.get(RATE_KEY)
    return default if value is None else float(value)


def _node_equivalents(item: InventoryItem) -> float:
    """8-GPU node equivalents of one compute item (a DGX = 1, an NVL72 = 9)."""
    gpus = item.spec.get("accelerators", 8) or 8
    return max(1.0, float(gpus) / 8.0)


def analyze_reliability(
    inventory: Inventory,
    fabric: FabricView | None,
    workload: Workload | None,
    storage_write_gbyte_s: float,
    single_points_of_failure: tuple[str, ...] = (),
    assumptions: ReliabilityAssumptions = ReliabilityAssumptions(),
) -> ReliabilityResult:
    """Interruptions, checkpoint interval, ETTR and spares of ``workload`` on the design.

    ``storage_write_gbyte_s`` is the checkpoint write bandwidth the job can reach (storage and
    storage network, GB/s); see the module docstring for what the job depends on.
    """
    a = assumptions
    diagnostics: list[Diagnostic] = []

    # ---- job size
    total_gpus = inventory.gpus or (fabric.gpus if fabric is not None else 0)
    total_nodes = inventory.compute_nodes
    if workload is not None and not workload.auto:
        requested = int(workload.parallelism.gpus)
        if requested > total_gpus:
            diagnostics.append(Diagnostic(
                "JOB_EXCEEDS_DESIGN",
                f"the workload needs {requested} GPUs (tp x pp x dp x cp) but the design has "
                f"{total_gpus}; reliability is for {total_gpus}",
            ))
        job_gpus = min(requested, total_gpus)
    else:
        job_gpus = total_gpus
    if total_nodes > 0 and total_gpus > 0:
        per_node = total_gpus / total_nodes
        job_nodes = min(total_nodes, max(1, math.ceil(job_gpus / per_node - 1e-9)))
        node_share = job_nodes / total_nodes
        gpu_share = job_gpus / total_gpus
    else:
        per_node = float(fabric.gpus_per_server) if fabric is not None else 8.0
        job_nodes = total_nodes
        node_share = gpu_share = 1.0

    # ---- fabric shares
    levels = fabric.levels if fabric is not None else ()
    level_by_name = {lvl.name: i for i, lvl in enumerate(levels)}

    def tier_share(role: str) -> float:
        if total_gpus <= 0:  # a network without compute: count it whole
            return 1.0
        if len(levels) < 2:
            inner = levels[0].domain_gpus if levels else per_node
            return 1.0 if job_gpus > inner else 0.0
        index = level_by_name.get(role, DEFAULT_TIER_LEVEL.get(role, len(levels) - 1))
        index = min(max(index, 1), len(levels) - 1)
        if job_gpus <= levels[index - 1].domain_gpus:
            return 0.0
        domain = max(1, levels[index].domain_gpus)
        return min(1.0, math.ceil(job_gpus / domain) * domain / total_gpus)

    # ---- rates (per 1000 days, summed over the job's share of each item)
    kind_rate = dict.fromkeys(RATE_KINDS, 0.0)
    node_hw = 0.0  # per-node hardware (takes nodes out for repair), job total
    node_links = 0.0
    switch_ends = 0.0
    cable_count = 0.0
    cable_rate_sum = 0.0
    node_equiv_job = 0.0
    for item in inventory.items:
        n = item.count
        if n <= 0:
            continue
        kind, role = item.kind, item.role
        if kind in ("server", "supernode"):
            equiv = _node_equivalents(item)
            rate = _rate(item, a.host_per_1000_node_days * equiv, a)
            kind_rate["host"] += n * node_share * rate
            node_hw += n * node_share * rate
            node_equiv_job += n * node_share * equiv
        elif kind == "accelerator":
            rate = _rate(item, a.gpu_per_1000_days, a)
            kind_rate["gpu"] += n * gpu_share * rate
            node_hw += n * gpu_share * rate
        elif kind in ("nic", "dpu"):
            rate = _rate(item, a.nic_per_1000_days, a)
            kind_rate["nic"] += n * node_share * rate
            node_hw += n * node_share * rate
            node_links += n * int(item.spec.get("ports", 1) or 1)
        elif kind == "switch" and role == "scale-up":
            rate = _rate(item, a.scale_up_switch_per_1000_days, a)
            kind_rate["scale-up"] += n * node_share * rate
            node_hw += n * node_share * rate
        elif kind == "switch":
            default = a.switch_per_1000_days * (
                a.chassis_multiplier if item.spec.get("chassis", False) else 1.0
            )
            kind_rate["switch"] += n * tier_share(role) * _rate(item, default, a)
        elif kind == "storage":
            kind_rate["storage"] += n * _rate(item, a.storage_per_1000_days, a)
        elif kind == "cable":
            cable_count += n
            cable_rate_sum += n * _rate(item, a.link_per_1000_days, a)
        elif kind == "transceiver" and item.powered:
            switch_ends += n * max(1, int(item.spec.get("lanes", 1) or 1))

    if cable_count > 0:
        link_rate = cable_rate_sum / cable_count
        fabric_links = max(0.0, cable_count - node_links)
    else:
        link_rate = a.link_per_1000_days
        fabric_links = max(0.0, (switch_ends - node_links) / 2.0)
    node_link_rate = node_links * node_share * link_rate
    kind_rate["link"] = node_link_rate + fabric_links * tier_share("leaf") * link_rate
    node_hw += node_link_rate
    if node_equiv_job == 0 and total_nodes == 0 and job_gpus > 0:
        node_equiv_job = job_gpus / 8.0  # GPUs without host items: count software per 8 GPUs
    kind_rate["software"] = a.software_per_1000_node_days * node_equiv_job

    rate_by_kind = {k: v / 1000.0 for k, v in kind_rate.items()}
    unplanned_per_day = sum(rate_by_kind.values())
    rate_by_kind["planned"] = float(a.planned_per_day)
    per_day = unplanned_per_day + rate_by_kind["planned"]
    mtbi_hours = 24.0 / per_day if per_day > 0 else 0.0
    mtbi_min = mtbi_hours * 60.0 if per_day > 0 else math.inf
    if per_day <= 0:
        diagnostics.append(Diagnostic(
            "NO_FAILURE_MODEL", "nothing in the design can fail: no nodes, GPUs or switches"))

    # ---- checkpoint
    mode = a.checkpoint_mode
    if mode not in ("async", "sync"):
        diagnostics.append(Diagnostic(
            "BAD_ASSUMPTION", f"checkpoint_mode {mode!r} is not 'async' or 'sync'; using async"))
        mode = "async"
    params = parameter_count(workload.model).total if workload is not None else 0.0
    size_bytes = params * a.checkpoint_bytes_per_param
    bandwidth = max(0.0, float(storage_write_gbyte_s)) * a.storage_write_efficiency * 1e9
    write_s = size_bytes / bandwidth if size_bytes > 0 and bandwidth > 0 else 0.0
    if size_bytes > 0 and bandwidth <= 0:
        diagnostics.append(Diagnostic(
            "NO_STORAGE",
            f"no storage write bandwidth reaches the job: a {size_bytes / 1e9:,.0f} GB checkpoint "
            "cannot be persisted"
            + (f"; assuming a {a.sync_fallback_blocking_s:.0f} s blocking save" if mode == "sync" else ""),
        ))
    if size_bytes <= 0:
        blocking_s = 0.0
    elif mode == "async":
        blocking_s = a.async_blocking_s
    else:
        blocking_s = write_s if bandwidth > 0 else a.sync_fallback_blocking_s

    # ---- restart, spares
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
        interval = 0.0
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
        checkpoint_size_gb=size_bytes / 1e9,
        checkpoint_write_s=write_s,
        checkpoint_blocking_s=blocking_s,
        checkpoint_interval_min=interval,
        daly_interval_min=0.0 if math.isinf(daly) else daly,
        young_interval_min=0.0 if math.isinf(young) else young,
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
    )
