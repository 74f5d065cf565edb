"""The bracket of an uncalibrated accelerator's estimate (issue 22: uncalibrated is never
flattering).

An accelerator without a fitted published run is estimated at two ends (calibration.py):

* **conservative** (the default): its kernels run no better than the least efficient
  calibrated family of its generation, and its MFU on the job is no higher than any calibrated
  part of that generation reaches on the same layout and fabric. The second rule matters
  because MFU is a fraction of the chip's own peak: a slower chip on the same network loses
  less of its step to communication, so equal kernel efficiency alone still let a Hygon DCU
  or an Ascend 910C out-utilise a measured GB200 only because nobody has measured them.
* **optimistic**: its own estimate (measured GEMM ceiling x step realisation, else the
  A100-derived default), what every figure used before.

``bracket_step`` gives the step the assumptions' end asks for and both ends' step times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from core.analysis.calibration import efficiency_basis, generation_families
from core.analysis.compute import dense_peak
from core.assumptions.performance import PerformanceAssumptions
from core.analysis.step_time import StepTime, layout_step_time
from core.catalog import default_catalog
from core.fabric import FabricView
from core.workload import ModelSpec, Parallelism


@dataclass(frozen=True)
class Bracket:
    step: StepTime              # the step at the end ``uncalibrated_efficiency`` names
    conservative_s: float
    optimistic_s: float


def bracket_step(view: FabricView, model: ModelSpec, par: Parallelism, precision: str,
                 a: PerformanceAssumptions, peak_tflops: float, job_gpus: int,
                 core: StepTime, optimizer: str = "adamw") -> Bracket | None:
    """Both ends of an uncalibrated accelerator's step on ``view`` (``core`` is the step at
    the end the assumptions name, from its efficiency alone; ``optimizer`` the workload's);
    None when it is calibrated."""
    acc = view.accelerator
    if acc.id in a.gemm_efficiency_scale_by_accelerator:
        return None
    year = acc.year
    optimistic = a.uncalibrated_efficiency == "optimistic"
    other = replace(a, uncalibrated_efficiency="conservative" if optimistic else "optimistic")
    other_core = (layout_step_time(view, model, par, precision, other, peak_tflops, job_gpus,
                                   optimizer)
                  if efficiency_basis(a, acc.id, year, False) != efficiency_basis(a, acc.id, year, True)
                  else core)
    cons_core, opt_core = (other_core, core) if optimistic else (core, other_core)
    if not all(0 < c.step_time_s < math.inf for c in (cons_core, opt_core)):
        return None
    # MFU no higher than the generation's calibrated parts on this layout: F / (N peak step)
    # <= F / (N peak_p step_p) for every peer p, i.e. step >= peak_p step_p / peak
    floor_s = max((_peer_seconds(view, model, par, precision, a, job_gpus, peer, optimizer)
                   / peak_tflops
                   for peer in generation_families(a, year)), default=0.0)
    conservative_s = max(cons_core.step_time_s, floor_s)
    if conservative_s > cons_core.step_time_s:
        # the margin is compute the chip is not known to reach: shown as compute time
        breakdown = dict(cons_core.breakdown_s)
        breakdown["compute"] = breakdown.get("compute", 0.0) + conservative_s - cons_core.step_time_s
        cons_core = replace(cons_core, step_time_s=conservative_s, breakdown_s=breakdown,
                            bubble_fraction=cons_core.bubble_fraction * cons_core.step_time_s
                            / conservative_s)
    return Bracket(opt_core if optimistic else cons_core, conservative_s, opt_core.step_time_s)


def _peer_seconds(view: FabricView, model: ModelSpec, par: Parallelism, precision: str,
                  a: PerformanceAssumptions, job_gpus: int, peer_id: str,
                  optimizer: str) -> float:
    """peak x step of calibrated part ``peer_id`` on the same job (0 if the catalog lacks it
    or it cannot run the step)."""
    catalog = default_catalog()
    if peer_id not in catalog:
        return 0.0
    peer = catalog.get(peer_id)
    peak, peer_precision = dense_peak(peer, precision, [])
    step = layout_step_time(replace(view, accelerator=peer), model, par, peer_precision, a,
                            peak, job_gpus, optimizer).step_time_s
    return peak * step if 0 < step < math.inf else 0.0
