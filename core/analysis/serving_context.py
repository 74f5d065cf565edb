"""One deployment served on a design, as the analyses above the serving roofline ask for it and
read it: what it is served on (ServingContext: the roofline of serving.py behind one call), the
variants they serve (the workload with another deployment, the deployment at another batch) and
what they read of the answer (ServedFigures). The deployment search (inference_search.py) and
the inference bottleneck's what-ifs (inference_bottleneck.py) share it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from core.assumptions.inference import InferenceAssumptions
from core.analysis.serving import InferenceResult, serve_deployment
from core.fabric import FabricView
from core.inference_workload import Deployment, InferenceWorkload


@dataclass(frozen=True)
class ServingContext:
    """What serve_deployment needs besides the workload: the design's fabric and facility
    power, the serving assumptions, the cost analysis's $/GPU-hour and the storage analysis's
    bulk read per GPU (a remote prefix cache reads over it; None without storage)."""

    fabric: FabricView
    facility_kw: float
    assumptions: InferenceAssumptions = InferenceAssumptions()
    usd_per_gpu_hour: float | None = None
    storage_read_gbyte_s_per_gpu: float | None = None

    def serve(self, workload: InferenceWorkload, curve: bool = True) -> InferenceResult:
        return serve_deployment(self.fabric, workload, self.facility_kw, self.assumptions,
                                self.usd_per_gpu_hour,
                                storage_read_gbyte_s_per_gpu=self.storage_read_gbyte_s_per_gpu,
                                curve=curve)


def with_deployment(workload: InferenceWorkload, deployment: Deployment) -> InferenceWorkload:
    return replace(workload, deployment=deployment)


def replace_batch(deployment: Deployment, batch: int) -> Deployment:
    """The deployment with its decode batch (an aggregated replica's batch) set to ``batch``."""
    if deployment.disaggregated:
        return replace(deployment, decode=replace(deployment.decode, batch=batch))
    layout = replace(deployment.decode, batch=batch)
    return Deployment(deployment.mode, layout, layout)


@dataclass(frozen=True)
class ServedFigures:
    """What one deployment served gives, as the search ranks it and the what-ifs compare it
    (None where it cannot run)."""

    runs: bool
    meets_slo: bool | None
    ttft_ms: float | None
    tpot_ms: float | None
    output_tokens_per_s_per_gpu: float | None  # prefill counted
    output_tokens_per_s: float | None  # the whole service: per GPU x the deployment's GPUs

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(ServedFigures)}


def served_figures(result: InferenceResult) -> dict:
    """The ServedFigures fields of ``result``."""
    per_gpu = result.output_tokens_per_s_per_gpu
    return dict(runs=result.runs, meets_slo=result.meets_slo, ttft_ms=result.ttft_ms,
                tpot_ms=result.tpot_ms, output_tokens_per_s_per_gpu=per_gpu,
                output_tokens_per_s=per_gpu * result.workload.deployment.gpus if per_gpu is not None else None)
