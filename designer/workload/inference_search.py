"""The serving deployment search run off the GUI thread for the Workload tab (its result is
shown by designer/panels/deployment_search.py).

``run_inference_search`` (worker thread) evaluates the design with the workload's deployment
set to "auto": core then runs ``search_deployment`` exactly as an evaluation of that workload
would (on its partition's GPUs, with the design's facility power, $/GPU-hour and storage read
per GPU), so a row's figures are the ones the Performance panel shows once it is used.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.analysis.inference_search import DeploymentSearch
from core.catalog import Catalog
from core.errors import DesignError
from core.evaluate import evaluate
from core.inference_workload import AUTO, InferenceWorkload
from core.model import Design


@dataclass(frozen=True)
class InferenceSearchOutcome:
    workload: InferenceWorkload  # the workload searched (the form's, at search time)
    search: DeploymentSearch


def run_inference_search(snapshot: Design, workload: InferenceWorkload, catalog: Catalog) -> InferenceSearchOutcome:
    """Search ``workload``'s deployment on ``snapshot`` as an evaluation with "auto" would
    (worker thread); a design whose workload has no GPUs to run on raises its reason."""
    ev = evaluate(snapshot, catalog, replace(workload, deployment=AUTO))
    if ev.inference_search is None:
        reasons = "; ".join(d.message for d in ev.cannot_run) or "the design has no GPUs"
        raise DesignError(f"the deployment search cannot run: {reasons}")
    return InferenceSearchOutcome(workload, ev.inference_search)
