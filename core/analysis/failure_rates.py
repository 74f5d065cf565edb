"""How often a training job is interrupted by the parts of the design it depends on.

Reference: ../shared/reference/reliability-power.md §2 (per-component rates). Rates are events
per 1000 device-days; the result is per day.

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

Links are counted from cable items when the inventory has them (the links each carries; node links
are the NIC/DPU ports, the rest are switch-to-switch). Without cables they are derived from the
powered (switch-side) transceiver ends: ``(ends - node links) / 2``, a module with ``lanes = 2``
(twin-port OSFP) counting as two ends. Transceivers carry no failure rate of their own: the link
rate covers cable plus optics (§2).

Rate precedence for an item: the item's own override, then ``rate_overrides[catalog_id]``, then
the catalog's ``failure_rate_per_1000_days``, then the per-kind default of
``ReliabilityAssumptions``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inventory import Inventory, InventoryItem
from core.workload import Workload

RATE_KEY = "failure_rate_per_1000_days"
RATE_KINDS = ("gpu", "host", "nic", "link", "switch", "scale-up", "storage", "software", "planned")
DEFAULT_TIER_LEVEL = {"leaf": 1, "spine": 2, "core": 3}


@dataclass(frozen=True)
class JobFailureRates:
    """What interrupts the job, and how often."""

    job_gpus: int
    job_nodes: int
    rate_by_kind: dict[str, float]      # interruptions per day by source, "planned" included
    unplanned_per_day: float
    node_hardware_per_1000_days: float  # the job's per-node hardware: what takes nodes to repair
    diagnostics: tuple[Diagnostic, ...] = ()
    # failures per day that only cost bandwidth (``plane_failover``): scale-out switches, links
    degraded_by_kind: dict[str, float] = field(default_factory=dict)


def job_failure_rates(
    inventory: Inventory,
    fabric: FabricView | None,
    workload: Workload | None,
    a: ReliabilityAssumptions,
    plane_failover: bool = False,
) -> JobFailureRates:
    """Interruption rates of ``workload``'s job on the design (the module docstring says which
    share of each item the job depends on).

    ``plane_failover``: the scale-out fabric is several planes and every NIC has a port on each
    (core/analysis/planes.py), so a scale-out switch or cable failure costs 1/N of the affected
    bandwidth, not the job: those rates go to ``degraded_by_kind`` instead of interrupting."""
    diagnostics: list[Diagnostic] = []

    # ---- job size
    total_gpus = inventory.gpus or (fabric.gpus if fabric is not None else 0)
    total_nodes = inventory.compute_nodes
    if workload is not None and not workload.auto:
        requested = int(workload.parallelism.gpus)
        if requested > total_gpus:
            diagnostics.append(Diagnostic(
                "JOB_EXCEEDS_DESIGN",
                f"the workload needs {requested:,} GPUs (tp x pp x dp x cp) but the design has "
                f"{total_gpus:,}: reliability is for a job on all {total_gpus:,}",
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
    plane_switches = 0.0  # scale-out switches of a multi-plane fabric with failover
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
            node_links += n * int(item.spec.ports or 1)
        elif kind == "switch" and role == "scale-up":
            rate = _rate(item, a.scale_up_switch_per_1000_days, a)
            kind_rate["scale-up"] += n * node_share * rate
            node_hw += n * node_share * rate
        elif kind == "switch":
            default = a.switch_per_1000_days * (
                a.chassis_multiplier if item.spec.chassis else 1.0
            )
            rate = n * tier_share(role) * _rate(item, default, a)
            if plane_failover and role in DEFAULT_TIER_LEVEL:
                plane_switches += rate
            else:
                kind_rate["switch"] += rate
        elif kind == "storage":
            kind_rate["storage"] += n * _rate(item, a.storage_per_1000_days, a)
        elif kind == "cable":  # per link: a splitter cable carries several
            links = item.links or n
            cable_count += links
            cable_rate_sum += links * _rate(item, a.link_per_1000_days, a)
        elif kind == "transceiver" and item.powered:
            switch_ends += n * max(1, int(item.spec.lanes or 1))

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

    degraded: dict[str, float] = {}
    if plane_failover:
        degraded = {"switch": plane_switches / 1000.0, "link": kind_rate["link"] / 1000.0}
        kind_rate["link"] = 0.0
        node_hw -= node_link_rate
    rate_by_kind = {k: v / 1000.0 for k, v in kind_rate.items()}
    unplanned_per_day = sum(rate_by_kind.values())
    rate_by_kind["planned"] = float(a.planned_per_day)
    return JobFailureRates(job_gpus, job_nodes, rate_by_kind, unplanned_per_day, node_hw,
                           tuple(diagnostics), degraded)


def _rate(item: InventoryItem, default: float, a: ReliabilityAssumptions) -> float:
    if RATE_KEY in item.overrides:
        return float(item.overrides[RATE_KEY])
    if item.catalog_id in a.rate_overrides:
        return float(a.rate_overrides[item.catalog_id])
    value = item.spec.failure_rate_per_1000_days
    return default if value is None else float(value)


def _node_equivalents(item: InventoryItem) -> float:
    """8-GPU node equivalents of one compute item (a DGX = 1, an NVL72 = 9)."""
    gpus = item.spec.accelerators or 8
    return max(1.0, float(gpus) / 8.0)
