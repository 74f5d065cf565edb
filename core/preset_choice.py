"""Which preset to offer first: the first of a kind that runs on the design.

Switching the Workload tab to a kind it has not shown yet sets that kind's first preset. The
first by name may not run on the design at all (DeepSeek-R1's weights exceed what an H100
holds), so the first that runs is offered, and the first of all when none does (the panels
then say why it cannot run). The Services tab's "Add a service" offers the first inference
preset that serves on the GPUs a new service would start with.
"""

from __future__ import annotations

from typing import Callable, Sequence

from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.catalog import Catalog
from core.evaluate import evaluate
from core.fabric import FabricView
from core.inference_workload import InferenceWorkload
from core.model import Design
from core.workload import Workload


def first_that_runs(design: Design, catalog: Catalog,
                    candidates: Sequence[tuple[str, Workload | InferenceWorkload]]) -> str | None:
    """The name of the first ``(name, workload)`` that ``design`` can run (no ``cannot_run``
    diagnostic when evaluated with it), else the first name; None without candidates. Each
    candidate is one evaluation of the design, stopping at the first that runs."""
    for name, workload in candidates:
        trial = design.snapshot()
        trial.workload = workload
        if not evaluate(trial, catalog).cannot_run:
            return name
    return candidates[0][0] if candidates else None


def first_service_that_runs(fabric: FabricView, assumptions: InferenceAssumptions,
                            candidates: Sequence[tuple[str, InferenceWorkload]],
                            gpus_of: Callable[[InferenceWorkload], int]) -> str | None:
    """The name of the first ``(name, workload)`` that serves on ``gpus_of(workload)`` GPUs of
    ``fabric`` (the partition a new service starts on: its deployment's GPUs, "auto" searched
    on them), else the first name; None without candidates. Serving alone, not the design:
    a few milliseconds each."""
    for name, workload in candidates:
        view = fabric.restricted_to(gpus_of(workload))
        if analyze_inference(view, workload, 0.0, assumptions).runs:
            return name
    return candidates[0][0] if candidates else None
