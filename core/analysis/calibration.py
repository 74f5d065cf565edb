"""Software-stack calibration: how much of an accelerator's peak its kernels reach in a step.

The efficiency of one GEMM is a prior by GEMM size times a calibration factor:

* the **prior** is the accelerator's measured GEMM-size sweep (relative to its best GEMM) where
  one is public, else Calculon's size table, interpolated in log size;
* the **factor** is fitted per accelerator on published training step times
  (``python -m tests.validation.calibrate``; each fit is named next to
  ``PerformanceAssumptions.gemm_efficiency_scale_by_accelerator``). An accelerator without a
  fitted run takes its measured GEMM ceiling x an H100's step realisation, or else the
  A100-derived default, and its results carry ``UNCALIBRATED_ACCELERATOR``.

Fused attention runs at a per-accelerator fraction of the GEMM curve
(``flash_attention_efficiency_by_accelerator``). FP8 GEMMs take a further factor, applied where
the hardware rates are set up (compute.py).
"""

from __future__ import annotations

import math

from core.analysis.performance_assumptions import PerformanceAssumptions
from core.diagnostics import Diagnostic


def _log_interp(xs, ys, x: float) -> float:
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    lg = math.log(x)
    for i in range(1, len(xs)):
        if x <= xs[i]:
            x0, x1 = math.log(xs[i - 1]), math.log(xs[i])
            return ys[i - 1] + (ys[i] - ys[i - 1]) * (lg - x0) / (x1 - x0)
    return ys[-1]


def gemm_efficiency_prior(gflop: float, a: PerformanceAssumptions,
                          accelerator_id: str = "") -> float:
    """Kernel-level efficiency of one GEMM of ``gflop`` GFLOP.

    The accelerator's measured curve when it has one (relative to its largest GEMM), else
    Calculon's table; log-interpolated. Below a measured curve's first point Calculon's shape
    continues it.
    """
    curve = a.gemm_curve_efficiency_by_accelerator.get(accelerator_id) if accelerator_id else None
    if curve:
        xs = a.gemm_curve_gflop_by_accelerator.get(accelerator_id)
        if xs and len(xs) == len(curve):
            if gflop >= xs[0]:
                return _log_interp(xs, curve, gflop)
            base = _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, xs[0])
            return curve[0] * _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, gflop) / base
    return _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, gflop)


def efficiency_scale(a: PerformanceAssumptions, accelerator_id: str) -> float:
    """The calibration factor for ``accelerator_id``: its fitted entry, else its measured GEMM
    ceiling x the step realisation of a calibrated accelerator, else the default."""
    fitted = a.gemm_efficiency_scale_by_accelerator.get(accelerator_id)
    if fitted is not None:
        return fitted
    ceiling = a.measured_gemm_ceiling_by_accelerator.get(accelerator_id)
    if ceiling is not None:
        return ceiling * a.step_realisation
    return a.gemm_efficiency_scale


def gemm_efficiency(gflop: float, a: PerformanceAssumptions, accelerator_id: str = "") -> float:
    """Efficiency of one GEMM of ``gflop`` GFLOP in a training step: prior x calibration."""
    return gemm_efficiency_prior(gflop, a, accelerator_id) * efficiency_scale(a, accelerator_id)



def flash_attention_efficiency(a: PerformanceAssumptions, accelerator_id: str) -> float:
    """Fused attention kernel efficiency relative to the GEMM curve's top for this accelerator."""
    return a.flash_attention_efficiency_by_accelerator.get(accelerator_id,
                                                           a.flash_attention_efficiency)


def uncalibrated_diagnostic(a: PerformanceAssumptions, accelerator_id: str) -> Diagnostic | None:
    """The warning for an accelerator whose compute efficiency no published run has fitted."""
    if accelerator_id in a.gemm_efficiency_scale_by_accelerator:
        return None
    ceiling = a.measured_gemm_ceiling_by_accelerator.get(accelerator_id)
    basis = (f"its measured GEMM ceiling ({ceiling:g} of peak) x an H100's step realisation "
             f"({a.step_realisation:g})" if ceiling is not None else
             f"the default factor {a.gemm_efficiency_scale:g} (A100-derived)")
    return Diagnostic(
        "UNCALIBRATED_ACCELERATOR",
        f"no published training run of {accelerator_id} is fitted yet: its compute "
        f"efficiency uses {basis}, so treat MFU and step time as estimates",
    )
