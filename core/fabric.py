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

from dataclasses import dataclass, replace

from core.catalog import ComponentSpec


# Name of the outer level the topology adds over GPUs the fabric cannot reach (no bandwidth).
UNCONNECTED = "unconnected"


@dataclass(frozen=True)
class NetworkLevel:
    name: str
    domain_gpus: int
    per_gpu_gbyte_s: float
    effective_gbyte_s: float
    latency_us: float
    switch_hops: int
    in_network_reduction: bool = False

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
