"""Multi-plane and rail-only fabrics: the per-plane figures and the plane failure model.

A plane is a block with role ``plane`` repeated N times (core/generators/planes.py); a
rail-only fabric has a block with role ``rail`` repeated once per rail. The planes are
identical by construction (one template, count N), so a plane's share of every aggregate is
1/N of it:

* **bandwidth**: a GPU's scale-out bandwidth is the sum over the planes it reaches, the
  bisection is N x one plane's, and collectives use all planes at once (NCCL/the NIC spread a
  flow's traffic over the planes), so the combined figures of core/analysis/network.py apply
  unchanged; ``per_plane`` gives one plane's share.
* **latency**: a path never leaves its plane, so the hops are those of one plane's Clos.
* **reliability** (docs/reference/planes.md §2): when every NIC has a port on every
  plane (ConnectX-8 as 4 x 200G on 4 planes; Alibaba HPN's dual-port NICs on two planes), a
  scale-out switch or cable failure leaves every GPU connected through its other ports: the
  job keeps running with (N-1)/N of the affected bandwidth until the part is repaired, instead
  of being interrupted as a single-plane leaf failure interrupts it. Those failures are then
  counted as *degradations*, not interruptions. When each NIC sits on one plane (8 NICs on 8
  planes, DeepSeek's current MPFT deployment) a leaf or NIC-cable failure cuts that NIC off and
  interrupts the job as in a single plane; only the bandwidth figures change. The assumption
  ``reliability.plane_failover`` chooses the other readings ("any-multi-plane", "never").
* **rail-only** (Wang et al. 2024): no spine, so traffic between rails first crosses the
  scale-up domain (see core/topology.py, which adds that hop to the rail level).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.analysis.failure_rates import job_failure_rates
from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.degrade import original_path
from core.fabric import FabricView
from core.flatten import FlatDesign
from core.inventory import Inventory
from core.model import PLANE_ROLE, RAIL_ROLE, Design
from core.workload import Workload



@dataclass(frozen=True)
class PlaneStructure:
    planes: int                    # 1 without planes
    rails: int                     # rails of a rail-only fabric, 0 otherwise
    plane_blocks: tuple[str, ...]  # paths of the plane (or rail) blocks
    link_gbit_s: float             # speed of the compute nodes' scale-out ports
    ports_per_nic: int             # ports one NIC runs at that speed (0 if not a NIC mode)

    @property
    def multi_plane(self) -> bool:
        return self.planes > 1

    @property
    def nic_spans_planes(self) -> bool:
        """Every NIC has a port on every plane: it runs at least as many ports as there are
        planes (the generator spreads them evenly; a what-if that loses whole planes leaves
        each NIC its ports on the others)."""
        return self.multi_plane and self.ports_per_nic >= self.planes

    def failover(self, policy: str) -> bool:
        """Scale-out switch and cable failures degrade bandwidth instead of interrupting, under
        ``ReliabilityAssumptions.plane_failover``."""
        if not self.multi_plane or policy == "never":
            return False
        return policy == "any-multi-plane" or self.nic_spans_planes


NO_PLANES = PlaneStructure(1, 0, (), 0.0, 0)


def plane_structure(design: Design, flat: FlatDesign) -> PlaneStructure:
    """The planes (or rails) of ``design``: the count of its ``plane``/``rail`` blocks. Plane
    blocks with different counts (a hand edit) make no plane structure: nothing can be said
    per plane then, and the design evaluates as one fabric. The runs a failure what-if splits a
    plane block into (``plane.degraded`` x1 + ``plane`` x3, core/degrade.py) count as the one
    block they came from: one failed spine leaves four planes, not two blocks that disagree."""
    planes: dict[str, int] = {}
    rails: dict[str, int] = {}
    for path, block in design.root.iter_blocks():
        if block.role in (PLANE_ROLE, RAIL_ROLE):
            of_role = planes if block.role == PLANE_ROLE else rails
            original = original_path(path)
            of_role[original] = of_role.get(original, 0) + block.count
    counts = set(planes.values()) | set(rails.values())
    if len(counts) != 1 or (planes and rails):
        return NO_PLANES
    count = counts.pop()
    compute = flat.is_compute
    scale_out = flat.bundles_of_kind("scale-out") & (compute[flat.bundle_a] | compute[flat.bundle_b])
    if not scale_out.any():
        return NO_PLANES
    speed = float(flat.speed_gbit_s[scale_out].max())
    gpus = flat.multiplicity * flat.gpus_per_group_unit
    main = flat.specs[flat.spec_row[flat.compute_groups[int(gpus[flat.compute_groups].argmax())]]]
    ports = 0
    if main.nic and main.nic in flat.catalog:
        ports = flat.catalog.get(main.nic).port_count_at(speed)
    if rails:
        return PlaneStructure(1, count, tuple(rails), speed, ports)
    return PlaneStructure(count, 0, tuple(planes), speed, ports)


@dataclass(frozen=True)
class PlanesResult:
    planes: int
    rails: int
    nic_spans_planes: bool
    link_gbit_s: float
    switches_per_plane_by_tier: dict[str, int]
    cables_per_plane: int
    per_gpu_scale_out_per_plane_gbit_s: float
    per_plane_bisection_tbit_s: float
    max_switch_hops_within_plane: int
    failover: bool
    degraded_events_per_day: float          # failures that cost bandwidth, not the job
    degraded_by_kind_per_day: dict[str, float]
    bandwidth_left_after_plane_failure: float  # share of the job's scale-out bandwidth

    def bandwidth_json(self) -> dict:
        return {
            "planes": self.planes, "rails": self.rails, "link_gbit_s": self.link_gbit_s,
            "nic_spans_planes": self.nic_spans_planes,
            "switches_per_plane_by_tier": self.switches_per_plane_by_tier,
            "cables_per_plane": self.cables_per_plane,
            "per_gpu_scale_out_per_plane_gbit_s": self.per_gpu_scale_out_per_plane_gbit_s,
            "per_plane_bisection_tbit_s": self.per_plane_bisection_tbit_s,
            "max_switch_hops_within_plane": self.max_switch_hops_within_plane,
        }

    def bandwidth_summary(self) -> str:
        """One line for reports and panels: what the planes (or rails) are and give."""
        tiers = " · ".join(f"{tier} {n:,}" for tier, n in self.switches_per_plane_by_tier.items())
        if self.rails:
            return (f"rail-only: {self.rails} rails of {tiers} switch each, no spine; traffic "
                    f"between rails crosses the scale-up domain")
        return (f"{self.planes} planes x {self.per_gpu_scale_out_per_plane_gbit_s:,.0f} Gb/s per "
                f"GPU at {self.link_gbit_s:g}G; per plane {tiers} switches, "
                f"{self.per_plane_bisection_tbit_s:,.1f} Tb/s bisection, "
                f"{self.max_switch_hops_within_plane} hops")

    def reliability_summary(self) -> str:
        """One line: what a switch or cable failure does to the job."""
        if self.failover:
            return (f"{self.degraded_events_per_day:.2f} switch/cable failures per day cost "
                    f"{1 - self.bandwidth_left_after_plane_failure:.0%} of the bandwidth, not the "
                    f"job ({'every NIC has a port on every plane' if self.nic_spans_planes else 'assumed re-routed over NVLink'})")
        if self.planes > 1 and not self.nic_spans_planes:
            return "each NIC is on one plane: a failure of its leaf or cable interrupts the job"
        return "switch and cable failures interrupt the job (assumption plane_failover)"

    def reliability_json(self) -> dict:
        return {
            "planes": self.planes, "failover": self.failover,
            "degraded_events_per_day": self.degraded_events_per_day,
            "degraded_by_kind_per_day": self.degraded_by_kind_per_day,
            "bandwidth_left_after_plane_failure": self.bandwidth_left_after_plane_failure,
        }


def _switches_per_plane(structure: PlaneStructure, flat: FlatDesign,
                        tiers: dict[int, str]) -> dict[str, int]:
    """Switches of one plane (or rail) by tier: the switch groups inside the plane blocks."""
    copies = structure.planes if structure.multi_plane else structure.rails
    prefixes = tuple(path + "/" for path in structure.plane_blocks)
    out: dict[str, int] = {}
    for group, tier in tiers.items():
        if flat.paths[group].startswith(prefixes):
            out[tier] = out.get(tier, 0) + int(flat.multiplicity[group]) // copies
    return out


def _cables_per_plane(structure: PlaneStructure, flat: FlatDesign) -> int:
    """Cables of one plane (or rail): every bundle with an end inside the plane blocks."""
    copies = structure.planes if structure.multi_plane else structure.rails
    prefixes = tuple(path + "/" for path in structure.plane_blocks)
    in_plane = np.fromiter((path.startswith(prefixes) for path in flat.paths), bool,
                           count=len(flat.paths))
    touching = in_plane[flat.bundle_a] | in_plane[flat.bundle_b]
    return int(flat.cables[touching].sum()) // copies


def analyze_planes(structure: PlaneStructure, flat: FlatDesign, tiers: dict[int, str],
                   per_gpu_scale_out_gbit_s: float, bisection_tbit_s: float, max_switch_hops: int,
                   inventory: Inventory, fabric: FabricView | None, workload: Workload | None,
                   assumptions: ReliabilityAssumptions) -> PlanesResult | None:
    """Per-plane figures of a multi-plane or rail-only design (None for one fabric)."""
    if not structure.multi_plane and not structure.rails:
        return None
    n = structure.planes
    degraded: dict[str, float] = {}
    failover = structure.failover(assumptions.plane_failover)
    if failover:
        degraded = job_failure_rates(inventory, fabric, workload, assumptions,
                                     plane_failover=True).degraded_by_kind
    return PlanesResult(
        planes=n,
        rails=structure.rails,
        nic_spans_planes=structure.nic_spans_planes,
        link_gbit_s=structure.link_gbit_s,
        switches_per_plane_by_tier=_switches_per_plane(structure, flat, tiers),
        cables_per_plane=_cables_per_plane(structure, flat),
        per_gpu_scale_out_per_plane_gbit_s=per_gpu_scale_out_gbit_s / n,
        # a rail-only fabric's rails split the bisection as planes do
        per_plane_bisection_tbit_s=bisection_tbit_s / max(n, structure.rails),
        max_switch_hops_within_plane=max_switch_hops,
        failover=failover,
        degraded_events_per_day=sum(degraded.values()),
        degraded_by_kind_per_day=degraded,
        bandwidth_left_after_plane_failure=(n - 1) / n,
    )
