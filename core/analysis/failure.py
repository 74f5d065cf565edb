"""What failed or drained units cost: the ``failure`` section of the evaluation.

Pure: it compares the evaluation of the intact design with that of the degraded one
(core/degrade.py, ordered by core/evaluate.py), which every other section then describes.

* **Bandwidth.** ``lost_bisection_fraction`` is 1 - degraded / intact bisection; the scale-out
  injection bandwidth is the capacity of the scale-out cables that leave compute nodes (a failed
  plane of N takes 1/N of it, a failed leaf its servers' rails).
* **GPUs.** ``gpus_failed`` / ``gpus_drained``: GPUs in units out of service; ``gpus_stranded``:
  GPUs left in service that the fabric no longer joins to the largest connected part (a pod
  whose leaves all failed); ``gpus_usable``: what one job can still span.
* **The job.** ``fits``: the workload as written still runs on what is left. When it does not,
  it is laid out again on the usable GPUs (``relayout``): with fewer data-parallel replicas and
  its model split kept, as operators restart a job, or when not even one replica fits, with the
  parallelism search's best layout. The run numbers (``mfu``, ``training_days``,
  ``tokens_per_s``, ``ettr``) are that layout's; they are null when nothing runs.
* **Cost per day.** ``gpu_hours_lost_per_day``: with a workload that ran on the intact design,
  the share of its effective throughput (tokens/s x ETTR) that is gone, times its GPUs x 24 h
  (a slowed job counts too, an unaffected one costs nothing); without one, the GPUs lost x 24.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from core.analysis.network import BandwidthResult
from core.analysis.performance import PerformanceResult
from core.diagnostics import Diagnostic
from core.failure_paths import describe_target
from core.flatten import FlatDesign
from core.workload import parallelism_to_dict

HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class OutOfServiceItem:
    path: str
    link_id: str
    failed: int
    drained: int
    units: int       # the item's units (instances, cables) over the whole design

    def to_json(self) -> dict:
        return {"target": describe_target(self.path, self.link_id), "failed": self.failed,
                "drained": self.drained, "of_units": self.units}


@dataclass(frozen=True)
class RunFigures:
    """A run's headline figures (None where the job does not run or there is none)."""

    runs: bool | None
    job_gpus: int | None
    mfu: float | None
    tokens_per_s: float | None
    training_days: float | None
    ettr: float | None

    @property
    def effective_tokens_per_s(self) -> float | None:
        if not self.runs or self.tokens_per_s is None or self.ettr is None:
            return None
        return self.tokens_per_s * self.ettr


def run_figures(performance: PerformanceResult | None, ettr: float | None) -> RunFigures:
    if performance is None:
        return RunFigures(None, None, None, None, None, ettr)
    return RunFigures(performance.runs, performance.job_gpus, performance.mfu,
                      performance.tokens_per_s, performance.training_days, ettr)


@dataclass(frozen=True)
class FailureResult:
    items: tuple[OutOfServiceItem, ...]
    gpus_intact: int
    gpus_failed: int
    gpus_drained: int
    gpus_stranded: int
    gpus_usable: int
    gpus_lost: int                        # usable GPUs intact - usable GPUs left
    bisection_tbit_s_intact: float
    bisection_tbit_s: float
    lost_bisection_fraction: float | None  # None when the intact design has no bisection
    scale_out_injection_gbit_s_intact: float
    scale_out_injection_gbit_s: float
    lost_scale_out_fraction: float | None
    fits: bool | None                     # the workload as written runs on what is left
    relayout: dict | None                 # the search's best layout, when it does not
    degraded: RunFigures                  # the run on what is left (as written, or relayout)
    intact: RunFigures
    gpu_hours_lost_per_day: float
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_json(self) -> dict:
        return {
            "applied": True,
            "out_of_service": [item.to_json() for item in self.items],
            "gpus_intact": self.gpus_intact, "gpus_failed": self.gpus_failed,
            "gpus_drained": self.gpus_drained, "gpus_stranded": self.gpus_stranded,
            "gpus_usable": self.gpus_usable, "gpus_lost": self.gpus_lost,
            "bisection_tbit_s": self.bisection_tbit_s,
            "lost_bisection_fraction": self.lost_bisection_fraction,
            "scale_out_injection_gbit_s": self.scale_out_injection_gbit_s,
            "lost_scale_out_fraction": self.lost_scale_out_fraction,
            "fits": self.fits, "relayout": self.relayout,
            "runs": self.degraded.runs, "job_gpus": self.degraded.job_gpus,
            "mfu": self.degraded.mfu, "tokens_per_s": self.degraded.tokens_per_s,
            "training_days": self.degraded.training_days, "ettr": self.degraded.ettr,
            "gpu_hours_lost_per_day": self.gpu_hours_lost_per_day,
            "cost_basis": "the intact design's hardware (a failure refunds nothing); the training "
                          "run on what is left",
            "intact": {**asdict(self.intact), "gpus": self.gpus_intact,
                       "bisection_tbit_s": self.bisection_tbit_s_intact,
                       "scale_out_injection_gbit_s": self.scale_out_injection_gbit_s_intact},
        }


FAILURE_JSON_KEYS = ("applied", "out_of_service", "gpus_intact", "gpus_failed", "gpus_drained",
                     "gpus_stranded", "gpus_usable", "gpus_lost", "bisection_tbit_s",
                     "lost_bisection_fraction", "scale_out_injection_gbit_s",
                     "lost_scale_out_fraction", "fits", "relayout", "runs", "job_gpus", "mfu",
                     "tokens_per_s", "training_days", "ettr", "gpu_hours_lost_per_day", "cost_basis", "intact")


def no_failure_json() -> dict:
    """The section of a design with nothing out of service: every key, null."""
    return {**{key: None for key in FAILURE_JSON_KEYS}, "applied": False, "out_of_service": []}


def scale_out_injection_gbit_s(flat: FlatDesign) -> float:
    """Capacity of the scale-out cables with a compute node at one end (Gb/s per direction)."""
    mask = flat.bundles_of_kind("scale-out") & (flat.is_compute[flat.bundle_a] | flat.is_compute[flat.bundle_b])
    return float(np.sum(flat.capacity_gbit_s[mask]))


def _lost_fraction(intact: float, left: float) -> float | None:
    return None if intact <= 0 else max(0.0, 1.0 - left / intact)


def analyze_failure(
    items: tuple[OutOfServiceItem, ...],
    intact_flat: FlatDesign, degraded_flat: FlatDesign,
    intact_connected_gpus: int, degraded_connected_gpus: int,
    gpus_failed: int,
    intact_bandwidth: BandwidthResult, degraded_bandwidth: BandwidthResult,
    intact: RunFigures, as_written: RunFigures, relayout: PerformanceResult | None,
    relayout_ettr: float | None,
) -> FailureResult:
    """The failure section from the two evaluations (see the module docstring). ``as_written``
    is the workload's own layout on the degraded design, ``relayout`` the search's best layout
    there when that one does not run (None otherwise)."""
    gpus_removed = intact_flat.gpus - degraded_flat.gpus
    degraded = as_written
    relayout_json = None
    if relayout is not None:
        degraded = run_figures(relayout, relayout_ettr)
        relayout_json = {"method": "search" if relayout.search is not None else "fewer data-parallel replicas",
                         "parallelism": parallelism_to_dict(relayout.parallelism), "runs": relayout.runs,
                         "cannot_run": [d.to_json() for d in relayout.cannot_run]}
    if intact.effective_tokens_per_s:
        kept = (degraded.effective_tokens_per_s or 0.0) / intact.effective_tokens_per_s
        gpu_hours = max(0.0, 1.0 - kept) * intact.job_gpus * HOURS_PER_DAY
    else:
        gpu_hours = max(0, intact_connected_gpus - degraded_connected_gpus) * HOURS_PER_DAY
    injection_intact = scale_out_injection_gbit_s(intact_flat)
    injection = scale_out_injection_gbit_s(degraded_flat)
    bisection_intact = intact_bandwidth.bisection_tbit_s or 0.0
    bisection = degraded_bandwidth.bisection_tbit_s or 0.0
    summary = ", ".join(f"{describe_target(item.path, item.link_id)}:{item.failed + item.drained}"
                        for item in items[:5])
    diagnostics = (Diagnostic(
        "OUT_OF_SERVICE",
        f"failure what-if: {summary}{' ...' if len(items) > 5 else ''} out of service; every "
        f"figure describes the degraded design", tuple(item.path for item in items if not item.link_id)),)
    return FailureResult(
        items=items,
        gpus_intact=intact_flat.gpus,
        gpus_failed=gpus_failed,
        gpus_drained=gpus_removed - gpus_failed,
        gpus_stranded=degraded_flat.gpus - degraded_connected_gpus,
        gpus_usable=degraded_connected_gpus,
        gpus_lost=max(0, intact_connected_gpus - degraded_connected_gpus),
        bisection_tbit_s_intact=bisection_intact,
        bisection_tbit_s=bisection,
        lost_bisection_fraction=_lost_fraction(bisection_intact, bisection),
        scale_out_injection_gbit_s_intact=injection_intact,
        scale_out_injection_gbit_s=injection,
        lost_scale_out_fraction=_lost_fraction(injection_intact, injection),
        fits=as_written.runs,
        relayout=relayout_json,
        degraded=degraded,
        intact=intact,
        gpu_hours_lost_per_day=gpu_hours,
        diagnostics=diagnostics,
    )
