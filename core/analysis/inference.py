"""The inference analysis: serve an inference workload on a design (issue 15).

A fixed deployment is served as written (``core/analysis/serving.py``: the roofline of one
deployment); ``"deployment": "auto"`` asks for the deployment search under the SLOs, which is
not modelled yet and says so. The layers run one way, as for training (performance.py over
parallelism_search.py over step_time.py): this module over the search over serving.py.
"""

from __future__ import annotations

from core.analysis.inference_assumptions import InferenceAssumptions
from core.analysis.serving import InferenceResult, model_shape, serve_deployment
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload


def analyze_inference(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                      assumptions: InferenceAssumptions | None = None,
                      usd_per_gpu_hour: float | None = None, *,
                      storage_read_gbyte_s_per_gpu: float | None = None) -> InferenceResult:
    """Serve ``workload`` on ``fabric``; ``facility_kw`` is the design's facility power (tokens
    per second per MW), ``usd_per_gpu_hour`` the cost analysis's (None when unpriced),
    ``storage_read_gbyte_s_per_gpu`` the storage analysis's bulk read per GPU (a remote prefix
    cache reads over it; None without storage)."""
    a = assumptions or InferenceAssumptions()
    if not workload.auto:
        return serve_deployment(fabric, workload, facility_kw, a, usd_per_gpu_hour,
                                storage_read_gbyte_s_per_gpu=storage_read_gbyte_s_per_gpu)
    shape = model_shape(workload)
    reason = Diagnostic("INFERENCE_NOT_MODELLED",
                        "inference: the deployment search (\"deployment\": \"auto\") is not modelled yet")
    return InferenceResult(workload=workload, runs=False, cannot_run=(reason,), diagnostics=(),
                           total_params=shape.total_params, active_params=shape.active_params,
                           weights_gb_per_gpu=None, kv_bytes_per_token=shape.kv_bytes_per_token,
                           kv_cache_gb_per_gpu=None, max_concurrency_per_replica=None, batch=None,
                           assumptions=a)
