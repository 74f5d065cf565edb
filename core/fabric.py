"""The network as the analyses see it: a stack of nested GPU domains.

The first ``scale_up_levels`` levels are the scale-up domain (NVLink, UB...): the server's or
super-node's own, then, when the drawing joins several of them through scale-up switches (e.g.
GB200 compute trays cabled to NVLink switch trays), the drawn scale-up domain. Each outer level is a larger domain reached
through one more switch tier (leaf, spine, core, or an island's upper tier). Ranks are numbered
so that consecutive GPUs share the innermost domains (Megatron's tp-cp-ep-dp-pp order places
groups on this numbering), which is how real schedulers place jobs on rail-optimised fabrics.

``per_gpu_gbyte_s`` is the per-direction line bandwidth that each GPU gets for traffic leaving
the next-inner domain while *every* GPU does the same (so oversubscription below this level is
already divided out). ``effective_gbyte_s`` is what collectives achieve on it (NCCL-effective).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from core.catalog import ComponentSpec


# Name of the outer level the topology adds over GPUs the fabric cannot reach (no bandwidth).
UNCONNECTED = "unconnected"


@dataclass(frozen=True)
class TierBehaviour:
    """How one scale-out level spreads and holds traffic: the facts the load-balancing model
    (core/analysis/load_balance.py) turns into a fraction of line rate per collective pattern.

    ``paths`` is the number of equal-cost links up from one switch of the tier below (the bins
    flows are hashed onto; 1 at the first scale-out level, where a NIC has one way to its leaf),
    ``sources`` the links into that switch from below (each carries one NIC's worth of flows
    times ``flows_per_source``, the oversubscription of the tiers below it), and
    ``path_speed_ratio`` how many NICs' rate one uplink carries."""

    mode: str                       # load balancing in use (core/catalog_fabric.py)
    paths: int
    sources: int
    flows_per_source: float
    path_speed_ratio: float         # one uplink's speed / one NIC's (2 for 800G over 400G NICs)
    lower_domain_gpus: int          # GPUs under one switch of the tier below (ring members)
    domain_gpus: int                # GPUs this level joins
    gpus_per_server: int
    flow_control: str               # credit | pfc | lossy
    selective_retransmit: bool
    buffer_mb_per_port: float       # the last-hop switch's buffer share of one port
    nic_gbyte_s: float              # one NIC's line rate (the bandwidth-delay product)
    rtt_us: float                   # round trip across this level
    # assumptions (NetworkAssumptions, core/assumptions/network.py)
    qps_per_connection: int = 1
    channels_per_nic: int = 2
    alltoall_peers_in_flight: int = 8
    flowlet_splits: int = 4
    pfc_hol_efficiency: float = 0.8
    retransmit_efficiency: float = 0.9
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # hashed once: the collectives look fractions up by it thousands of times per search
        object.__setattr__(self, "_hash", hash(tuple(
            getattr(self, f.name) for f in fields(self) if f.compare)))

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True)
class NetworkLevel:
    name: str
    domain_gpus: int
    per_gpu_gbyte_s: float
    effective_gbyte_s: float
    latency_us: float
    switch_hops: int
    in_network_reduction: bool = False
    # None for scale-up levels and hand-made views: line-rate behaviour (fraction 1)
    behaviour: TierBehaviour | None = None
    # All-reduce rate per GPU when the job reduces in the network here (the switches have it
    # and network.in_network_reduction turns it on): each rank moves S once, not 2S(n-1)/n.
    # 0: not used.
    in_network_gbyte_s: float = 0.0

    @property
    def per_gpu_gbit_s(self) -> float:
        return self.per_gpu_gbyte_s * 8.0


@dataclass(frozen=True)
class FabricView:
    gpus: int
    accelerator: ComponentSpec
    gpus_per_server: int
    levels: tuple[NetworkLevel, ...]
    scale_up_levels: int = 1
    # Rail-only fabric (leaves and no tier above them, each server on this many rails): traffic
    # between GPUs on different rails first crosses the scale-up domain (0: not rail-only).
    rails_via_scale_up: int = 0

    @property
    def scale_up_domain_gpus(self) -> int:
        return self.scale_up.domain_gpus

    @property
    def scale_up(self) -> NetworkLevel:
        """The outermost scale-up level: the whole domain and the bandwidth across it."""
        return self.levels[min(self.scale_up_levels, len(self.levels)) - 1]

    @property
    def first_scale_out(self) -> int:
        """Index of the innermost level outside the scale-up domain (== len(levels) if none)."""
        return min(self.scale_up_levels, len(self.levels))

    @property
    def connected_gpus(self) -> int:
        """GPUs one job can span: all of them, or, when the fabric falls into parts (an outer
        UNCONNECTED level), the domain of the outermost level that joins them."""
        if len(self.levels) > 1 and self.levels[-1].name == UNCONNECTED:
            return min(self.gpus, self.levels[-2].domain_gpus)
        return self.gpus

    def level_for_span(self, span_gpus: int) -> int:
        """Index of the innermost level whose domain holds ``span_gpus`` consecutive GPUs."""
        for index, level in enumerate(self.levels):
            if span_gpus <= level.domain_gpus:
                return index
        return len(self.levels) - 1

    def restricted_to(self, job_gpus: int) -> "FabricView":
        """The view a job on the first ``job_gpus`` GPUs sees: outer domains shrink to the job."""
        job_gpus = max(1, min(job_gpus, self.gpus))
        levels: list[NetworkLevel] = []
        for level in self.levels:
            levels.append(replace(level, domain_gpus=min(level.domain_gpus, job_gpus)))
            if level.domain_gpus >= job_gpus:
                break
        return replace(self, gpus=job_gpus, levels=tuple(levels),
                       scale_up_levels=min(self.scale_up_levels, len(levels)))
