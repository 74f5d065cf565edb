"""The result of evaluating a design: one field per analysis (core/units.py registers them,
core/evaluate.py runs them), the design as the analyses saw it and the merged warnings."""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.bottleneck import BottleneckResult
from core.analysis.cost import CostResult
from core.analysis.dpu import DpuResult
from core.analysis.failure import FailureResult
from core.analysis.inference_bottleneck import InferenceBottleneck
from core.analysis.inference_search import DeploymentSearch
from core.analysis.network import BandwidthResult, LatencyResult
from core.analysis.performance import PerformanceResult
from core.analysis.planes import PlanesResult
from core.analysis.power import PowerResult
from core.analysis.reliability import ReliabilityResult
from core.analysis.serving import InferenceResult
from core.analysis.storage import StorageResult
from core.assumptions import Assumptions
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inventory import Inventory
from core.partitions import Partitions
from core.service_results import ServiceResult
from core.site.analysis import SiteResult
from core.topology import Topology
from core.workload import Workload


@dataclass(frozen=True)
class Counts:
    gpus: int
    servers: int
    switches: int
    switches_by_tier: dict[str, int]
    scale_up_switches: int
    nics: int
    dpus: int
    storage_nodes: int
    links: int
    transceivers: int
    cables: int = 0  # what is bought: a splitter serves several links


@dataclass(frozen=True)
class Evaluation:
    design_name: str
    counts: Counts
    bandwidth: BandwidthResult
    latency: LatencyResult
    power: PowerResult
    reliability: ReliabilityResult
    performance: PerformanceResult | None
    workload: Workload | None
    assumptions: Assumptions
    inventory: Inventory
    topology: Topology
    warnings: tuple[Diagnostic, ...]
    elapsed_s: float
    spof_units: int = 0  # switch units that are single points of failure
    # what limits MFU (training) or each serving phase (inference), and the what-if that helps most
    bottleneck: BottleneckResult | InferenceBottleneck | None = None
    # why the workload cannot run on the design (errors; empty when it runs or there is none)
    cannot_run: tuple[Diagnostic, ...] = ()
    cost: CostResult | None = None  # None only for an Evaluation built without it
    storage: StorageResult | None = None  # None only for an Evaluation built without it
    dpus: DpuResult | None = None  # what the DPUs do (None only for an Evaluation built without it)
    # failed/drained units: what they cost (every other field describes the degraded design)
    failure: FailureResult | None = None
    planes: PlanesResult | None = None  # per-plane figures of a multi-plane or rail-only design
    inference: InferenceResult | None = None  # serving figures of an inference workload
    # the deployment search of an inference workload with "deployment": "auto" (its result is
    # ``inference``, whose workload carries the chosen deployment)
    inference_search: DeploymentSearch | None = None
    # Several workloads on one design (core/services.py): the partitions resolved (None when the
    # design carries no services and no workload partition) and every service served on its own.
    # The main workload's figures above are then those on its partition (partitions.main).
    partitions: Partitions | None = None
    services: tuple[ServiceResult, ...] = ()
    # the design placed on the floor: racks, rows, halls, real cable lengths (core/site)
    site: SiteResult | None = None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The error-severity warnings: what makes the design invalid as drawn (or its job
        unable to run); every output says so at the top."""
        return tuple(w for w in self.warnings if w.severity == "error")

    @property
    def valid(self) -> bool:
        """No error-severity warning: the design can be built as drawn and its figures read
        as those of a buildable design."""
        return not self.errors

    @property
    def job_fabric(self) -> FabricView | None:
        """The fabric the main workload runs on: its partition's when the design carries
        several workloads, else the design's."""
        if self.partitions is not None and self.partitions.main is not None:
            return self.partitions.main.fabric
        return self.topology.fabric
