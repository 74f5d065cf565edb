"""The inference analysis: serve an inference workload on a design (issue 15).

A fixed deployment is served as written (``core/analysis/serving.py``: the roofline of one
deployment); ``"deployment": "auto"`` is searched under the SLOs
(``core/analysis/inference_search.py``) and the chosen deployment served. The layers run one
way, as for training (performance.py over parallelism_search.py over step_time.py): this module
over the search over serving.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.assumptions.inference import InferenceAssumptions
from core.analysis.inference_search import DeploymentSearch, search_deployment
from core.analysis.serving import InferenceResult
from core.analysis.serving_context import ServingContext
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload, deployment_to_dict


@dataclass(frozen=True)
class InferenceAnalysis:
    """An inference workload on a design: ``result`` is the deployment served (its
    ``workload`` carries that deployment: the search's choice for "auto"); ``workload`` is the
    one asked ("auto" stays "auto"); ``search`` is the search that chose (None when the
    workload fixes its deployment)."""

    workload: InferenceWorkload
    context: ServingContext  # what it was served on (the bottleneck's what-ifs serve on it too)
    result: InferenceResult
    search: DeploymentSearch | None = None


def analyze_inference_workload(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                               assumptions: InferenceAssumptions | None = None,
                               usd_per_gpu_hour: float | None = None, *,
                               storage_read_gbyte_s_per_gpu: float | None = None) -> InferenceAnalysis:
    """Serve ``workload`` on ``fabric``, searching its deployment when it asks for "auto";
    ``facility_kw`` is the design's facility power (tokens per second per MW),
    ``usd_per_gpu_hour`` the cost analysis's (None when unpriced), ``storage_read_gbyte_s_per_gpu``
    the storage analysis's bulk read per GPU (a remote prefix cache reads over it)."""
    context = ServingContext(fabric, facility_kw, assumptions or InferenceAssumptions(),
                             usd_per_gpu_hour, storage_read_gbyte_s_per_gpu)
    if not workload.auto:
        return InferenceAnalysis(workload, context, context.serve(workload))
    search = search_deployment(fabric, workload, facility_kw, context.assumptions, usd_per_gpu_hour,
                               storage_read_gbyte_s_per_gpu=storage_read_gbyte_s_per_gpu)
    return InferenceAnalysis(workload, context, search.result, search)


def analyze_inference(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                      assumptions: InferenceAssumptions | None = None,
                      usd_per_gpu_hour: float | None = None, *,
                      storage_read_gbyte_s_per_gpu: float | None = None) -> InferenceResult:
    """The deployment served of ``analyze_inference_workload`` (the search's choice for "auto")."""
    return analyze_inference_workload(fabric, workload, facility_kw, assumptions, usd_per_gpu_hour,
                                      storage_read_gbyte_s_per_gpu=storage_read_gbyte_s_per_gpu).result


def inference_section_json(result: InferenceResult, search: DeploymentSearch | None) -> dict:
    """The evaluation JSON's ``inference`` section of one served workload (the main one or a
    service): the serving figures (the contract keys null when it cannot run, with why in
    ``cannot_run``), the deployment served (``deployment``: the search's choice for "auto", null
    when none runs) and the search (``search``: its candidates with why each loses; null for a
    fixed deployment)."""
    chosen = result.workload.deployment if search is None else search.deployment
    return {**result.to_json(),
            "deployment": deployment_to_dict(chosen) if chosen is not None else None,
            "search": search.to_json() if search is not None else None}
