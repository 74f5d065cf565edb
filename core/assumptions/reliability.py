"""Assumptions of the reliability analysis: failure rates, recovery, checkpoints, spares.

Saved with each project under ``assumptions.reliability``; each default names its section of
../shared/reference/reliability-power.md. Below the analyses (core/assumptions): the job's
failure rates (failure_rates.py), the planes and the reliability analysis read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    # E: share of rated read bandwidth a checkpoint restore reaches (as for writes).
    storage_read_efficiency: float = field(default=0.8, metadata=_EFFICIENCY)
    # §3: R = detect + reschedule + init + load, so restart_min already holds loading the
    # checkpoint. False: R adds the restore time computed from the restore path or tier.
    restart_includes_restore: bool = True
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
    # --- multi-plane fabrics (docs/reference/planes.md §2) ---
    # Which scale-out switch and cable failures of a multi-plane fabric only cost bandwidth:
    # "nic-on-every-plane" when every NIC has a port on every plane (HPN, ConnectX-8 planes);
    # "any-multi-plane" also when each NIC sits on one plane (traffic re-routed over NVLink);
    # "never": they interrupt the job as in one fabric.
    plane_failover: str = field(default="nic-on-every-plane", metadata={
        "choices": ("nic-on-every-plane", "any-multi-plane", "never")})
    # --- per-component overrides ---
    # Catalog id -> rate per 1000 device-days (per node for servers/super-nodes).
    rate_overrides: dict[str, float] = field(default_factory=dict, metadata=_PER_DEVICE)
