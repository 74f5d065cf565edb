"""The inference services of a design, each served on its partition (core/partitions.py), and
the partition named in what a workload on one says.

``core/evaluate.py`` calls ``serve_services`` once the design's power and cost are known: each
service is ``analyze_inference`` on its partition's fabric, with the partition's share of the
facility power (tokens/s per MW are the partition's) and its $/GPU-hour. A service whose
partition cannot be resolved (an unknown block, more GPUs than there are) is not served: its
result has no figures and the partition's error says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.analysis.inference import (InferenceResult, analyze_inference_workload,
                                     inference_section_json)
from core.analysis.inference_bottleneck import InferenceBottleneck, explain_inference_bottleneck
from core.analysis.inference_search import DeploymentSearch
from core.analysis.serving import model_shape
from core.analysis.storage import analyze_storage
from core.assumptions import Assumptions
from core.assumptions.inference import InferenceAssumptions
from core.diagnostics import Diagnostic
from core.inference_workload import InferenceWorkload, inference_workload_to_dict
from core.model import Design
from core.partitions import Partitions, PartitionView
from core.topology import Topology


@dataclass(frozen=True)
class ServiceResult:
    """One service of the design: its partition and what it serves there (for "auto", the
    deployment the search chose, the search, and what binds it with the what-ifs), as the main
    workload's evaluation has them."""

    name: str
    partition: PartitionView
    inference: InferenceResult  # runs False (with cannot_run) when it is not served
    search: DeploymentSearch | None = None  # the deployment search, when the service asks "auto"
    bottleneck: InferenceBottleneck | None = None  # None when it is not served

    @property
    def workload(self) -> InferenceWorkload:
        """The service's workload as asked ("deployment": "auto" stays "auto")."""
        return self.search.workload if self.search is not None else self.inference.workload

    def to_json(self) -> dict[str, Any]:
        """Its partition, workload, and an ``inference`` section with the keys of the
        evaluation's own."""
        return {"name": self.name, "partition": self.partition.name,
                "blocks": list(self.partition.blocks) if self.partition.blocks else None,
                "requested_gpus": self.partition.requested_gpus, "gpus": self.partition.gpus,
                "accelerator": (self.partition.fabric.accelerator.id
                                if self.partition.fabric is not None else None),
                "it_kw": self.partition.it_kw, "facility_kw": self.partition.facility_kw,
                "usd_per_gpu_hour": self.partition.usd_per_gpu_hour,
                "workload": inference_workload_to_dict(self.workload),
                "inference": inference_section_json(self.inference, self.search),
                "bottleneck": self.bottleneck.to_json() if self.bottleneck is not None else None}


def serve_services(design: Design, partitions: Partitions, assumptions: Assumptions,
                   topology: Topology) -> tuple[ServiceResult, ...]:
    """Every service of ``design`` served on its partition (``partitions.services``, with their
    shares of power and cost), its diagnostics naming the service and the partition;
    ``topology`` is the design's (the storage a GPU-count partition reaches)."""
    out = []
    for service, view in zip(design.services, partitions.services):
        if view.fabric is None:
            out.append(ServiceResult(service.name, view,
                                     unserved(service.workload, view.problems, assumptions.inference)))
            continue
        served = analyze_inference_workload(
            view.fabric, service.workload, view.facility_kw or 0.0, assumptions.inference,
            usd_per_gpu_hour=view.usd_per_gpu_hour,
            storage_read_gbyte_s_per_gpu=_storage_read_per_gpu(service.workload, view, topology, assumptions))
        where = f"service {service.name} on {on_what(view)}"
        result = replace(served.result, cannot_run=named(served.result.cannot_run, where),
                         diagnostics=named(served.result.diagnostics, where))
        out.append(ServiceResult(service.name, view, result, served.search,
                                 explain_inference_bottleneck(served)))
    return tuple(out)


def _storage_read_per_gpu(workload: InferenceWorkload, view: PartitionView, topology: Topology,
                          assumptions: Assumptions) -> float | None:
    """The bulk read per GPU of the storage the partition's GPUs reach, for a remote prefix
    cache (the only placement that reads it; worked out only then: a storage path walk)."""
    if workload.kv_cache.placement != "remote":
        return None
    own = view.analysed.topology if view.analysed is not None else topology
    storage = analyze_storage(own, None, assumptions.storage, assumptions.network)
    return storage.classes["data_loading"].per_gpu_gbyte_s


def unserved(workload: InferenceWorkload, reasons: tuple[Diagnostic, ...],
             assumptions: InferenceAssumptions) -> InferenceResult:
    """The result of a service that is not served (its partition has no GPUs to give it):
    what the model is, no serving figures, ``reasons`` why."""
    shape = model_shape(workload)
    return InferenceResult(workload=workload, runs=False, cannot_run=reasons, diagnostics=(),
                           total_params=shape.total_params, active_params=shape.active_params,
                           weights_gb_per_gpu=None, kv_bytes_per_token=shape.kv_bytes_per_token,
                           kv_cache_gb_per_gpu=None, max_concurrency_per_replica=None, batch=None,
                           assumptions=assumptions)


def on_what(view: PartitionView) -> str:
    """"partition serve (blocks serve: 576 GPUs)"."""
    return f"partition {view.name} ({view.describe()})"


def named(diagnostics: tuple[Diagnostic, ...], where: str) -> tuple[Diagnostic, ...]:
    """``diagnostics`` saying which workload and partition they are about ("service chat on
    partition serve (...): ...")."""
    return tuple(replace(d, message=f"{where}: {d.message}") for d in diagnostics)


def service_warnings(services: tuple[ServiceResult, ...]) -> list[Diagnostic]:
    """What the services' analyses raised (an unresolved partition's error is the partition's,
    raised once by core/partitions.py)."""
    return [d for s in services if s.partition.fabric is not None
            for d in (*s.inference.cannot_run, *s.inference.diagnostics)]
